// API coverage over HTTP (GET and DELETE /_emulator/coverage): the operations called and the
// statuses answered against what the specs declare, the operations never called, requests to no
// operation; a test's reset leaves it, a DELETE starts it again, a journal turned off counts nothing.
import { describe, expect, it } from 'vitest';
import { CoverageTally } from '../../src/control/coverage.js';
import { loadSpecs } from '../../src/spec/bundles.js';
import { control } from '../support/control/emulator-api.js';
import { call, start, withTopic } from '../support/helpers.js';

const specs = loadSpecs();

describe('API coverage', () => {
  it('counts the operations called and the statuses answered, beside those the specs declare', async () => {
    const { server, accessToken, topicId, publish } = await withTopic();
    expect((await publish({ order_id: 'A-1' })).status).toBe(201);
    expect((await publish({ order_id: 7 })).status).toBe(400);
    const elsewhere = { token: accessToken, params: { topic_id: topicId + 1 }, body: { order_id: 'A' } };
    expect((await call(server, 'publish_message', elsewhere)).status).toBe(404);
    expect((await fetch(`${server.url}/api/v1/nowhere`)).status).toBe(404);
    // The test's own reset, and emptying the journal, leave the run's coverage.
    expect((await control(server, 'clear_requests')).status).toBe(204);
    expect((await control(server, 'reset')).status).toBe(204);

    const { body: report } = await control(server, 'get_coverage');
    // withTopic: a token, then a topic; then three publishes and a path of no operation.
    expect([report.requests, report.unrouted]).toEqual([6, 1]);
    expect(report.apis.map((api) => api.api)).toEqual(['event-streams', 'auth', 'management']);
    const events = report.apis[0];
    expect(events).toMatchObject({
      operations: 3,
      called: 1,
      statuses_answered: 3,
      undeclared: 0,
      never_called: ['consume_messages', 'publish_messages_batch'],
    });
    const publishCoverage = events?.operation_list.find((operation) => operation.operation === 'publish_message');
    expect(publishCoverage).toEqual({
      operation: 'publish_message',
      method: 'POST',
      path: '/api/v1/topics/{topic_id}/publish',
      calls: 3,
      documented: [201, 400, 401, 403, 404, 413, 429, 500],
      answered: [
        { status: 201, count: 1, documented: true },
        { status: 400, count: 1, documented: true },
        { status: 404, count: 1, documented: true },
      ],
    });
    expect(events?.statuses).toBe(
      events?.operation_list.reduce((sum, operation) => sum + operation.documented.length, 0),
    );
    expect(report.apis[1]).toMatchObject({ operations: 1, called: 1, never_called: [] });
    const management = report.apis[2];
    expect(management?.operations).toBe(specs.operations.filter((operation) => operation.api === 'management').length);
    expect(management?.called).toBe(1);
    expect(management?.never_called).not.toContain('create_topic');

    expect((await control(server, 'clear_coverage')).status).toBe(204);
    const { body: cleared } = await control(server, 'get_coverage');
    expect([cleared.requests, cleared.apis.map((api) => api.called)]).toEqual([0, [0, 0, 0]]);
    expect(Date.parse(cleared.since)).toBeGreaterThanOrEqual(Date.parse(report.since));
  });

  it('counts nothing when the journal is off', async () => {
    const server = await start({ journalSize: 0 });
    await fetch(`${server.url}/api/v1/nowhere`);
    const { body } = await control(server, 'get_coverage');
    expect([body.requests, body.unrouted]).toEqual([0, 0]);
  });

  it('marks an answer whose status the operation does not declare', () => {
    const tally = new CoverageTally(() => Date.parse('2030-01-01T00:00:00Z'));
    tally.count('consume_messages', 200);
    tally.count('consume_messages', 418);
    tally.count('consume_messages', 418);
    const [events] = tally.report(specs.operations).apis;
    expect(events?.undeclared).toBe(1);
    expect(events?.statuses_answered).toBe(1);
    expect(events?.operation_list.find((operation) => operation.operation === 'consume_messages')?.answered).toEqual([
      { status: 200, count: 1, documented: true },
      { status: 418, count: 2, documented: false },
    ]);
  });
});
