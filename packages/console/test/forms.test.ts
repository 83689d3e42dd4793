// What the views make of what a person typed, and of what the emulator answered, without a browser.
import { describe, expect, it } from 'vitest';
import type { JournalEntry, Topic } from '../src/app/api.js';
import { curlCommand } from '../src/app/curl.js';
import { createFields, faultRequest, topicFields, valuesToObject, violationsByField } from '../src/app/forms.js';
import { inlineMarkdown } from '../src/app/markdown.js';

const topic: Topic = {
  id: 1,
  name: 'orders',
  description: null,
  schema: [
    { name: 'order_id', type: 'string' },
    { name: 'amount', type: 'number', optional: true },
    { name: 'count', type: 'integer', optional: true },
    { name: 'paid', type: 'boolean', optional: true },
    { name: 'lines', type: 'array', of: 'object', optional: true },
  ],
  retention: 3600,
  created_at: '2030-01-01T00:00:00.000Z',
  updated_at: '2030-01-01T00:00:00.000Z',
  waiting_consumers: 0,
};

describe('message and create forms', () => {
  it("make a topic's message from its schema's fields, leaving out empty optional ones", () => {
    const fields = topicFields(topic);
    expect(fields.map((field) => [field.name, field.kind, field.required])).toEqual([
      ['order_id', 'text', true],
      ['amount', 'number', false],
      ['count', 'integer', false],
      ['paid', 'boolean', false],
      ['lines', 'json', false],
    ]);
    expect(
      valuesToObject(fields, { order_id: ' A-1 ', amount: '12.5', paid: 'true', lines: '[{"sku":"X"}]', count: '' }),
    ).toEqual({ value: { order_id: 'A-1', amount: 12.5, paid: true, lines: [{ sku: 'X' }] } });
  });

  it('name each field a value cannot be made of', () => {
    expect(valuesToObject(topicFields(topic), { amount: 'twelve', count: '1.5', lines: '[' })).toEqual({
      errors: {
        order_id: 'Required',
        amount: 'Must be a number',
        count: 'Must be a whole number',
        lines: 'Must be valid JSON',
      },
    });
  });

  it("offer a create body's enum as choices and keep their JSON types", () => {
    const fields = createFields([
      { name: 'name', type: 'string', required: true, description: 'Its name' },
      { name: 'level', type: 'integer', required: false, enum: [1, 2] },
    ]);
    expect(fields[0]).toEqual({ name: 'name', kind: 'text', required: true, hint: 'Its name' });
    expect(valuesToObject(fields, { name: 'x', level: '2' })).toEqual({ value: { name: 'x', level: 2 } });
  });

  it("place the emulator's violations at their top-level field", () => {
    expect(
      violationsByField([
        { pointer: '/amount', message: 'must be a number' },
        { pointer: '/lines/0/sku', message: 'is required' },
        { pointer: '/', message: 'must be object' },
      ]),
    ).toEqual({ amount: 'must be a number', lines: '0.sku: is required', '': 'must be object' });
  });
});

describe('the fault form', () => {
  const empty = {
    operation: '',
    status: '',
    code: '',
    times: '1',
    retry_after: '',
    batch_fail_positions: '',
    omit: false,
  };

  it('arms an operation fault with its Retry-After, or a batch fault', () => {
    expect(faultRequest({ ...empty, operation: 'publish_message', status: '503', retry_after: '2' })).toEqual({
      request: { operation: 'publish_message', status: 503, retry_after: 2, times: 1 },
    });
    expect(faultRequest({ ...empty, batch_fail_positions: '0, 2', omit: true, times: '3' })).toEqual({
      request: { batch_fail_positions: [0, 2], omit: true, times: 3 },
    });
  });

  it('says what is missing or wrong', () => {
    expect(faultRequest({ ...empty, status: '200', times: 'x' })).toEqual({
      errors: {
        operation: 'Required (or batch positions)',
        status: 'From 400 to 599',
        times: 'Must be a whole number',
      },
    });
    expect(faultRequest({ ...empty, batch_fail_positions: '1, -1' })).toEqual({
      errors: { batch_fail_positions: 'Whole numbers from 0, separated by commas' },
    });
  });
});

describe('copy as curl', () => {
  const entry = (request: JournalEntry['request'], extra: Partial<JournalEntry> = {}): JournalEntry => ({
    id: 1,
    time: '2030-01-01T00:00:00.000Z',
    method: 'POST',
    path: '/api/v1/topics/1/publish',
    query: {},
    operation: 'publish_message',
    api: 'event-streams',
    client_id: 'dev',
    request,
    response: { status: 201, headers: {}, body: { message_id: '1' } },
    duration_ms: 1,
    ...extra,
  });

  it('sends the same JSON with the token left to the shell, and leaves out what curl sets', () => {
    const command = curlCommand(
      entry({
        headers: {
          host: '127.0.0.1:4010',
          authorization: 'Bearer ***',
          'content-type': 'application/json',
          'content-length': '20',
        },
        body: { order_id: "O'Brien" },
      }),
      'http://127.0.0.1:4010',
    );
    expect(command).toBe(
      `curl -X POST 'http://127.0.0.1:4010/api/v1/topics/1/publish' -H "authorization: Bearer $TOKEN"` +
        ` -H 'content-type: application/json' --data-raw '{"order_id":"O'\\''Brien"}'`,
    );
  });

  it('sends a form as a form, Basic credentials from the shell, masked values as masked, the query with repeats', () => {
    const command = curlCommand(
      entry(
        {
          headers: { authorization: 'Basic ***', 'content-type': 'application/x-www-form-urlencoded' },
          body: { grant_type: 'client_credentials', client_secret: '***' },
        },
        { path: '/oauth2/token', query: { scope: ['a', 'b'] } },
      ),
      'http://127.0.0.1:4010',
    );
    expect(command).toBe(
      `curl -X POST 'http://127.0.0.1:4010/oauth2/token?scope=a&scope=b' -u "$CLIENT_ID:$CLIENT_SECRET"` +
        ` -H 'content-type: application/x-www-form-urlencoded'` +
        ` --data-raw 'grant_type=client_credentials&client_secret=***'`,
    );
  });

  it('is a plain GET without a body', () => {
    expect(curlCommand(entry({ headers: {}, body: null }, { method: 'GET', path: '/api/folders' }), 'http://h:1')).toBe(
      `curl 'http://h:1/api/folders'`,
    );
  });
});

describe('field help', () => {
  it("reads the descriptions' inline Markdown: code, strong, emphasis and links, the rest as text", () => {
    expect(
      inlineMarkdown('The `folder_id` of a **project**, see [the docs](https://docs.workato.com/x) or *this*.'),
    ).toEqual([
      { kind: 'text', text: 'The ' },
      { kind: 'code', text: 'folder_id' },
      { kind: 'text', text: ' of a ' },
      { kind: 'strong', text: 'project' },
      { kind: 'text', text: ', see ' },
      { kind: 'link', text: 'the docs', href: 'https://docs.workato.com/x' },
      { kind: 'text', text: ' or ' },
      { kind: 'em', text: 'this' },
      { kind: 'text', text: '.' },
    ]);
  });

  it('leaves snake_case names, Markdown inside code and links that are not http(s) as they are', () => {
    expect(inlineMarkdown('batch_fail_positions and `*not* emphasis`')).toEqual([
      { kind: 'text', text: 'batch_fail_positions and ' },
      { kind: 'code', text: '*not* emphasis' },
    ]);
    expect(inlineMarkdown('[x](javascript:alert(1))')).toEqual([{ kind: 'text', text: '[x](javascript:alert(1))' }]);
    expect(inlineMarkdown('plain')).toEqual([{ kind: 'text', text: 'plain' }]);
  });
});
