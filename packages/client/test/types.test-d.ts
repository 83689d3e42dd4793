// Type tests: each `@ts-expect-error` must sit on a line that does not compile (tsc fails on an
// unused one), so every mistake below is proven to be caught at compile time.
import { describe, expectTypeOf, it } from 'vitest';
import {
  clientCredentials,
  createEventStreamsClient,
  createManagementClient,
  type EventStreamsDataCenter,
  type EventStreamsError,
  type EventStreamsErrorCode,
  type ManagementDataCenter,
  type Message,
} from '../src/index.js';

const events = createEventStreamsClient({ dataCenter: 'eu', auth: { token: 't' } });
const management = createManagementClient({ baseUrl: 'http://127.0.0.1:4010', auth: { token: 't' } });
const topic = { params: { path: { topic_id: 1042 } } };

describe('event-streams requests', () => {
  it('rejects a string topic_id', () => {
    // @ts-expect-error topic_id is an integer
    void events.POST('/api/v1/topics/{topic_id}/publish', { params: { path: { topic_id: '1042' } }, body: {} });
    // @ts-expect-error topic_id is an integer
    void events.publish('1042', { order_id: 'ORD-1' });
    // @ts-expect-error topic_id is an integer
    void events.consume('1042');
  });

  it('rejects a batch publish without payloads', () => {
    // @ts-expect-error `payloads` is required
    void events.POST('/api/v1/batch/topics/{topic_id}/publish', { ...topic, body: {} });
    // @ts-expect-error the body is required
    void events.POST('/api/v1/batch/topics/{topic_id}/publish', topic);
    // @ts-expect-error payloads are objects
    void events.publishBatch(1042, ['ORD-1']);
    // @ts-expect-error the payloads argument is required
    void events.publishBatch(1042);
  });

  it('rejects a misspelt field', () => {
    // @ts-expect-error after_mesage_id is not a field of ConsumeMessageRequest
    void events.POST('/api/v1/topics/{topic_id}/consume', { ...topic, body: { after_mesage_id: 'm-1' } });
    // @ts-expect-error timeout_secs is a number
    void events.POST('/api/v1/topics/{topic_id}/consume', { ...topic, body: { timeout_secs: '30' } });
    // @ts-expect-error afterMessageId is the option's name
    void events.consume(1042, { after_message_id: 'm-1' });
    // @ts-expect-error no such path
    void events.POST('/api/v1/topic/{topic_id}/publish', { ...topic, body: {} });
    // @ts-expect-error no such data center
    createEventStreamsClient({ dataCenter: 'us-east', auth: { token: 't' } });
    // @ts-expect-error a data center or a base URL, not both
    createEventStreamsClient({ dataCenter: 'us', baseUrl: 'http://127.0.0.1', auth: { token: 't' } });
    // @ts-expect-error the token format is one of four
    clientCredentials({ authUrl: 'https://auth.example', clientId: 'i', clientSecret: 's', format: 'xml' });
  });

  it('types the answers', async () => {
    const { data } = await events.POST('/api/v1/topics/{topic_id}/consume', { ...topic, body: { timeout_secs: 30 } });
    expectTypeOf(data).toEqualTypeOf<{ messages: Message[]; has_more: boolean } | undefined>();
    expectTypeOf(events.publishBatch(1, [{}])).resolves.toEqualTypeOf<string[]>();
    expectTypeOf<EventStreamsDataCenter>().toEqualTypeOf<'us' | 'eu' | 'jp' | 'sg' | 'au' | 'trial'>();
    expectTypeOf<'il'>().toExtend<ManagementDataCenter>();
    const { data: topics } = await management.GET('/api/event_streams/topics');
    expectTypeOf(topics).not.toBeAny();
  });
});

describe('error bodies', () => {
  it('narrow per status and reject the wrong status body', (error: EventStreamsError) => {
    if (error.is(413)) {
      expectTypeOf(error.body.max_size).toEqualTypeOf<number>();
      // @ts-expect-error a 413 body has no `details.code`
      void error.body.error.details;
    }
    if (error.is(404)) {
      expectTypeOf(error.body.error.details.code).toEqualTypeOf<'TOPIC_NOT_FOUND' | 'NOT_FOUND'>();
      // @ts-expect-error not a documented code of a 404
      void (error.body.error.details.code === 'TOPIC_MISSING');
      // @ts-expect-error max_size belongs to the 413 body
      void error.body.max_size;
    }
    if (error.is(500)) {
      expectTypeOf(error.body.error.details.code).toEqualTypeOf<'TIMEOUT' | 'INTERNAL_SERVER_ERROR'>();
    }
    if (error.is(400)) {
      expectTypeOf(error.body.error.details.code).toExtend<EventStreamsErrorCode<400>>();
      expectTypeOf<'UNKNOWN_MESSAGE_ID'>().toExtend<typeof error.body.error.details.code>();
      expectTypeOf(error.body.error.details.position).toBeUnknown();
    }
    // @ts-expect-error the event-streams API never answers 418
    void error.is(418);
    expectTypeOf(error.retryAfterMs).toEqualTypeOf<number | undefined>();
    expectTypeOf(error.response).toEqualTypeOf<Response | undefined>();
  });
});

describe('request options', () => {
  it('are typed on the helpers and on the raw POST', async () => {
    void events.publish(1, {}, { timeoutMs: 5_000, retry: { maxAttempts: 1 }, signal: AbortSignal.timeout(1) });
    // @ts-expect-error timeoutMs is a number of milliseconds
    void events.publish(1, {}, { timeoutMs: '5s' });
    void events.POST('/api/v1/topics/{topic_id}/publish', { ...topic, body: {}, timeoutMs: 100 });
    // @ts-expect-error retry takes RetryOptions
    void events.POST('/api/v1/topics/{topic_id}/publish', { ...topic, body: {}, retry: 3 });
    const { data, response } = await events.publish(1, {}).withResponse();
    expectTypeOf(data).toEqualTypeOf<string>();
    expectTypeOf(response).toEqualTypeOf<Response>();
    expectTypeOf(events.publishBatch(1, [{}]).withResponse()).resolves.toEqualTypeOf<{
      data: string[];
      responses: Response[];
    }>();
  });
});
