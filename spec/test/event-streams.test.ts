// Holds the event-streams bundle to the tables of api-description.md: every field, type, format,
// required and read-only flag, every status per operation, and the behaviour the spec promises.
import { describe, expect, test } from 'vitest';
import { deref, type Json, loadBundle, operationById, operations } from './support/bundles.js';

const doc = loadBundle('event-streams');
const schemas = doc.components.schemas as Json;
const JSON_UTF8 = 'application/json; charset=utf-8';

type Field = { type: string; format?: string; required: boolean; readOnly?: boolean };

/** The description's resource tables, transcribed field by field. */
const TABLES: Record<string, Record<string, Field>> = {
  Message: {
    message_id: { type: 'string', required: true, readOnly: true },
    payload: { type: 'object', required: true, readOnly: true },
    time: { type: 'string', format: 'date-time', required: true, readOnly: true },
  },
  ConsumeMessageRequest: {
    after_message_id: { type: 'string', required: false },
    since_time: { type: 'string', format: 'date-time', required: false },
    batch_size: { type: 'integer', format: 'uint32', required: false },
    timeout_secs: { type: 'integer', format: 'uint64', required: false },
  },
  ReadMessagesResponseOk: {
    messages: { type: 'array', required: true },
    has_more: { type: 'boolean', required: true },
  },
  MessageCreatedResponse: { message_id: { type: 'string', required: true } },
  CreateMessagesRequest: { payloads: { type: 'array', required: true } },
  MessagesBatchCreatedResponse: {
    message_ids: { type: 'object', required: true },
    is_partial_error: { type: 'boolean', required: true },
  },
  SizeLimitErrorResponse: {
    error: { type: 'string', required: true },
    details: { type: 'string', required: false },
    max_size: { type: 'integer', format: 'uint64', required: true },
    current_size: { type: 'integer', format: 'uint64', required: true },
  },
};

describe('resource tables', () => {
  for (const [name, fields] of Object.entries(TABLES)) {
    test(`${name} has exactly the description's fields`, () => {
      const schema = schemas[name];
      expect(schema, `components.schemas.${name}`).toBeDefined();
      expect(Object.keys(schema.properties).sort()).toEqual(Object.keys(fields).sort());
      for (const [field, want] of Object.entries(fields)) {
        const prop = schema.properties[field];
        expect(prop.type, `${name}.${field} type`).toBe(want.type);
        expect(prop.format, `${name}.${field} format`).toBe(want.format);
        expect((schema.required ?? []).includes(field), `${name}.${field} required`).toBe(want.required);
        expect(prop.readOnly ?? false, `${name}.${field} readOnly`).toBe(want.readOnly ?? false);
      }
    });
  }

  test('timeout_secs is at most 60 and the payload objects allow any properties', () => {
    expect(schemas.ConsumeMessageRequest.properties.timeout_secs.maximum).toBe(60);
    expect(schemas.Message.properties.payload.additionalProperties).toBe(true);
    expect(deref(doc, schemas.CreateMessagesRequest.properties.payloads.items).additionalProperties).toBe(true);
  });

  test('Message items of the consume response are the Message schema', () => {
    expect(deref(doc, schemas.ReadMessagesResponseOk.properties.messages.items)).toBe(schemas.Message);
  });

  test('MessagePublishResult is a oneOf discriminated on result', () => {
    const result = deref(doc, schemas.MessagesBatchCreatedResponse.properties.message_ids.additionalProperties);
    expect(result.discriminator.propertyName).toBe('result');
    const variants = result.oneOf.map((v: Json) => deref(doc, v));
    const byResult = Object.fromEntries(variants.map((v: Json) => [v.properties.result.const, v]));
    expect(Object.keys(byResult).sort()).toEqual(['failure', 'success']);
    expect(byResult.success.required.sort()).toEqual(['message_id', 'result']);
    expect(byResult.failure.required.sort()).toEqual(['error', 'result']);
    expect(Object.keys(result.discriminator.mapping).sort()).toEqual(['failure', 'success']);
  });

  test('ErrorResponse requires error.details.code; 500 codes are TIMEOUT or INTERNAL_SERVER_ERROR', () => {
    const error = schemas.ErrorResponse.properties.error;
    expect(schemas.ErrorResponse.required).toEqual(['error']);
    expect(error.required).toEqual(['details']);
    expect(error.properties.message.type).toBe('string');
    expect(error.properties.details.required).toEqual(['code']);
    const internal = schemas.InternalServerErrorResponse.properties.error.properties.details.properties.code;
    expect(internal.enum.sort()).toEqual(['INTERNAL_SERVER_ERROR', 'TIMEOUT']);
  });
});

describe('operations', () => {
  const ALL = ['400', '401', '403', '404', '429', '500'];

  test.each([
    [
      'consume_messages',
      'post',
      '/api/v1/topics/{topic_id}/consume',
      '200',
      ALL,
      'ConsumeMessageRequest',
      'ReadMessagesResponseOk',
    ],
    [
      'publish_message',
      'post',
      '/api/v1/topics/{topic_id}/publish',
      '201',
      [...ALL, '413'],
      'PublishMessageRequest',
      'MessageCreatedResponse',
    ],
    [
      'publish_messages_batch',
      'post',
      '/api/v1/batch/topics/{topic_id}/publish',
      '201',
      [...ALL, '413'],
      'CreateMessagesRequest',
      'MessagesBatchCreatedResponse',
    ],
  ])('%s: %s %s, statuses and bodies', (id, method, path, success, errors, requestSchema, responseSchema) => {
    const { op, method: m, path: p, pathItem } = operationById(doc, id);
    expect([m, p]).toEqual([method, path]);
    expect(Object.keys(op.responses).sort()).toEqual([success, ...errors].sort());
    expect(op.requestBody.required).toBe(true);
    expect(deref(doc, op.requestBody.content[JSON_UTF8].schema)).toBe(schemas[requestSchema]);
    expect(deref(doc, op.responses[success].content[JSON_UTF8].schema)).toBe(schemas[responseSchema]);

    const bodyOf = (status: string) => deref(doc, deref(doc, op.responses[status]).content[JSON_UTF8].schema);
    for (const status of ['400', '401', '403', '404', '429']) expect(bodyOf(status)).toBe(schemas.ErrorResponse);
    expect(bodyOf('500')).toBe(schemas.InternalServerErrorResponse);
    if (errors.includes('413')) expect(bodyOf('413')).toBe(schemas.SizeLimitErrorResponse);

    const retryAfter = deref(doc, deref(doc, op.responses['429']).headers['RETRY-AFTER']);
    expect(retryAfter.required).toBe(true);
    expect(retryAfter.schema.type).toBe('string');

    const topicId = deref(doc, pathItem.parameters[0]);
    expect(topicId).toMatchObject({ name: 'topic_id', in: 'path', required: true });
    expect(topicId.schema).toMatchObject({ type: 'integer', format: 'uint32', minimum: 0, maximum: 4294967295 });
  });

  test('every operation needs the bearer token', () => {
    expect(doc.security).toEqual([{ BearerAuth: [] }]);
    expect(doc.components.securitySchemes.BearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const { op } of operations(doc)) expect(op.security).toBeUndefined();
  });

  test('every request and response has at least one named example', () => {
    for (const { op } of operations(doc)) {
      const media = [op.requestBody, ...Object.values(op.responses as Json)].map(
        (r) => deref(doc, r).content[JSON_UTF8],
      );
      for (const m of media) expect(Object.keys(m.examples ?? {}).length).toBeGreaterThan(0);
    }
  });
});

describe('servers, version and documented choices', () => {
  test('version 1.7.1, five data centers, the sandbox and the local emulator', () => {
    expect(doc.info.version).toBe('1.7.1');
    expect(doc.servers.map((s: Json) => s.url)).toEqual([
      'https://event-streams.workato.com',
      'https://event-streams.eu.workato.com',
      'https://event-streams.jp.workato.com',
      'https://event-streams.sg.workato.com',
      'https://event-streams.au.workato.com',
      'https://event-streams.trial.workato.com',
      'http://127.0.0.1:4010',
    ]);
  });

  test('limits are machine-readable and match the platform facts', () => {
    expect(doc.info['x-platform-limits']).toEqual({
      consumeBatchSizeDefault: 50,
      consumeBatchSizeMax: 50,
      consumeTimeoutSecsMax: 60,
      maxMessageBytes: 1048576,
      maxBatchMessages: 100,
    });
    expect(schemas.CreateMessagesRequest.properties.payloads.maxItems).toBe(100);
  });

  test('the behaviours the description leaves open are stated', () => {
    const text = doc.info.description as string;
    expect(text).toMatch(/Sending both is a 400 \(`CONFLICTING_OFFSETS`\)/);
    expect(text).toMatch(/returned in publish order/);
    expect(text).toMatch(/answers 200 with an empty `messages` list/);
    expect(text).toMatch(/`after_message_id` is \*\*exclusive\*\*/);
    expect(text).toMatch(/`since_time` is \*\*inclusive\*\*/);
    expect(ops('publish_messages_batch').description).toMatch(/must be sent again/);
  });

  test('each documented error code names the status it comes with, and that status is specified', () => {
    // 405 answers a method a path does not have: no operation, so the description states it.
    expect(doc.info.description).toMatch(/answered 405 with an `Allow` header/);
    const statuses = new Set([...operations(doc).flatMap(({ op }) => Object.keys(op.responses)), '405']);
    const codes = Object.entries(doc.info['x-error-codes'] as Record<string, string>);
    expect(codes.length).toBeGreaterThan(10);
    for (const [code, meaning] of codes) {
      expect(code).toMatch(/^[A-Z_]+$/);
      const status = meaning.match(/\((\d{3})\)$/)?.[1];
      expect(status, `${code} ends with its status`).toBeDefined();
      expect(statuses.has(status ?? ''), `${code}: ${status} is a response`).toBe(true);
    }
  });
});

function ops(id: string): Json {
  return operationById(doc, id).op;
}
