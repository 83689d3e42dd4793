// The connector SDK's schema generation (computed from the JSON or CSV sample of the request) and the
// data-table file links (the table, its file column and the record come from state; the link names the
// emulator and expires by its clock). Over HTTP; call() checks every answer against the spec.
import { describe, expect, it } from 'vitest';
import type { MockServerOptions } from '../../src/index.js';
import { managementErrorOf, session } from '../support/helpers.js';

const NOW = Date.UTC(2026, 10, 22, 10, 15, 0);

/** A session whose clock stands at NOW. */
const sessionAtNow = (options: MockServerOptions = {}) => session({ clock: () => NOW, ...options });

describe('generate_schema_from_json', () => {
  it('answers one field per member, with nested objects, merged arrays of objects and JSON types', async () => {
    const { run } = await sessionAtNow();
    const sample = {
      order_id: 'SO-1001',
      total: 129.5,
      quantity: 3,
      paid: true,
      note: null,
      customer: { id: 7, emailAddress: 'ann@example.com' },
      lines: [
        { sku: 'A-1', price: 10 },
        { sku: 'B-2', price: 10.5, gift: false },
      ],
      tags: ['new', 'vip'],
      mixed: [1, 'two'],
      empty: [],
    };
    const answer = await run('generate_schema_from_json', { body: { sample: JSON.stringify(sample) } });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual([
      { name: 'order_id', label: 'Order ID', type: 'string', control_type: 'text' },
      { name: 'total', label: 'Total', type: 'number', control_type: 'number' },
      { name: 'quantity', label: 'Quantity', type: 'integer', control_type: 'integer' },
      { name: 'paid', label: 'Paid', type: 'boolean', control_type: 'checkbox' },
      { name: 'note', label: 'Note', type: 'string', control_type: 'text' },
      {
        name: 'customer',
        label: 'Customer',
        type: 'object',
        properties: [
          { name: 'id', label: 'ID', type: 'integer', control_type: 'integer' },
          { name: 'emailAddress', label: 'Email Address', type: 'string', control_type: 'text' },
        ],
      },
      {
        name: 'lines',
        label: 'Lines',
        type: 'array',
        of: 'object',
        properties: [
          { name: 'sku', label: 'SKU', type: 'string', control_type: 'text' },
          { name: 'price', label: 'Price', type: 'number', control_type: 'number' },
          { name: 'gift', label: 'Gift', type: 'boolean', control_type: 'checkbox' },
        ],
      },
      { name: 'tags', label: 'Tags', type: 'array', of: 'string' },
      { name: 'mixed', label: 'Mixed', type: 'array', of: 'string' },
      { name: 'empty', label: 'Empty', type: 'array', of: 'string' },
    ]);
    // Deterministic: the same sample gives the same schema.
    const again = await run('generate_schema_from_json', { body: { sample: JSON.stringify(sample) } });
    expect(again.body).toEqual(answer.body);
  });

  it('answers the documented example and merges the fields of a top-level array of objects', async () => {
    const { run } = await sessionAtNow();
    const example = await run('generate_schema_from_json', {
      body: { sample: '{"order_id": "SO-1001", "total": 129.5, "paid": true}' },
    });
    expect(example.body).toEqual([
      { name: 'order_id', label: 'Order ID', type: 'string', control_type: 'text' },
      { name: 'total', label: 'Total', type: 'number', control_type: 'number' },
      { name: 'paid', label: 'Paid', type: 'boolean', control_type: 'checkbox' },
    ]);
    const list = await run('generate_schema_from_json', { body: { sample: '[{"a": 1}, {"a": 2.5, "b": null}]' } });
    expect(list.body).toEqual([
      { name: 'a', label: 'A', type: 'number', control_type: 'number' },
      { name: 'b', label: 'B', type: 'string', control_type: 'text' },
    ]);
  });

  it('refuses a sample that is not JSON, or not an object or array of objects, with 400 on sample', async () => {
    const { run } = await sessionAtNow();
    for (const sample of [
      '{"order_id": ',
      '42',
      '"text"',
      '[1, 2]',
      '[{"a": 1}, 3]',
      `${'['.repeat(100)}${']'.repeat(100)}`,
    ]) {
      const answer = await run('generate_schema_from_json', { body: { sample } });
      expect([sample, answer.status]).toEqual([sample, 400]);
      expect(Object.keys(managementErrorOf(answer).errors ?? {})).toEqual(['sample']);
    }
    expect((await run('generate_schema_from_json', { body: { sample: '' } })).status).toBe(400);
    expect((await run('generate_schema_from_json', { body: {} })).status).toBe(400);
  });
});

describe('generate_schema_from_csv', () => {
  it('answers the documented example: header names, types from the values', async () => {
    const { run } = await sessionAtNow();
    const answer = await run('generate_schema_from_csv', {
      body: { sample: 'order_id;total;paid\nSO-1001;129.5;true\n', col_sep: 'semicolon' },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual([
      { name: 'order_id', label: 'Order ID', type: 'string', control_type: 'text' },
      { name: 'total', label: 'Total', type: 'number', control_type: 'number' },
      { name: 'paid', label: 'Paid', type: 'boolean', control_type: 'checkbox' },
    ]);
  });

  it('reads quoted values (separators, doubled quotes, line breaks) and infers each column from all its values', async () => {
    const { run } = await sessionAtNow();
    const sample = [
      'name,qty,price,zip,placed_on,placed_at,flag,blank,note',
      '"Doe, Jane",3,10,02134,2026-11-22,2026-11-22T10:15:00Z,TRUE,,"said ""hi"""',
      'Roe,4,10.5,90210,2026-11-23,2026-11-23 08:00:00+01:00,false,,"two\r\nlines"',
      '',
      'Poe,,,,,,,,plain',
    ].join('\r\n');
    const answer = await run('generate_schema_from_csv', { body: { sample } });
    expect(answer.body.map((field) => [field.name, field.type, field.control_type])).toEqual([
      ['name', 'string', 'text'],
      ['qty', 'integer', 'integer'],
      ['price', 'number', 'number'],
      ['zip', 'string', 'text'],
      ['placed_on', 'date', 'date'],
      ['placed_at', 'date_time', 'date_time'],
      ['flag', 'boolean', 'checkbox'],
      ['blank', 'string', 'text'],
      ['note', 'string', 'text'],
    ]);
    const tab = await run('generate_schema_from_csv', { body: { sample: 'a b\tc\n1\tx', col_sep: 'tab' } });
    expect(tab.body.map((field) => [field.name, field.label, field.type])).toEqual([
      ['a b', 'A B', 'integer'],
      ['c', 'C', 'string'],
    ]);
    const headerOnly = await run('generate_schema_from_csv', { body: { sample: 'id|url', col_sep: 'pipe' } });
    expect(headerOnly.body).toEqual([
      { name: 'id', label: 'ID', type: 'string', control_type: 'text' },
      { name: 'url', label: 'URL', type: 'string', control_type: 'text' },
    ]);
  });

  it('refuses malformed CSV with 400 naming the line', async () => {
    const { run } = await sessionAtNow();
    for (const [sample, why] of [
      ['a,b\n"open,1', 'line 2: a quoted value is not closed'],
      ['a,b\nx"y,1', 'line 2: a quote inside an unquoted value'],
      ['a,b\n"x"y,1', 'line 2: text follows the closing quote'],
      ['a,b\n1,2,3', 'line 2 has 3 values; the header has 2'],
      ['a,,a\n1,2,3', 'column 2 of the header has no name; the header names a twice'],
      ['\n\n', 'has no header row'],
    ]) {
      const answer = await run('generate_schema_from_csv', { body: { sample } });
      expect([sample, answer.status]).toEqual([sample, 400]);
      expect(String(managementErrorOf(answer).errors?.sample)).toContain(why);
    }
    const badSeparator = await run('generate_schema_from_csv', { body: { sample: 'a', col_sep: 'slash' } });
    expect(badSeparator.status).toBe(400);
  });
});

const TABLE = '2f1d7a3e-6c4b-4e8a-9d21-7b5f0c3a9e14';
const OTHER_TABLE = '3a1d7a3e-6c4b-4e8a-9d21-7b5f0c3a9e15';
const FILE = '0e2c4a6b-8d1f-4b3a-9e5c-7a9c1e3b5d7f';
const TEXT = '1e2c4a6b-8d1f-4b3a-9e5c-7a9c1e3b5d70';
const WITH_FILE = '6b8d0f2a-4c6e-4a1b-8d3f-5e7a9c1b3d5e';
const WITHOUT_FILE = '7b8d0f2a-4c6e-4a1b-8d3f-5e7a9c1b3d5f';
const OTHER_RECORD = '8b8d0f2a-4c6e-4a1b-8d3f-5e7a9c1b3d50';
const UNKNOWN = '9c9d0f2a-4c6e-4a1b-8d3f-5e7a9c1b3d51';

const SEED = {
  version: 1,
  resources: {
    folder: [{ id: 10, name: 'Sales' }],
    data_table: [
      {
        id: TABLE,
        name: 'Contracts',
        folder_id: 10,
        schema: [
          { name: 'contract', type: 'file', optional: true, field_id: FILE },
          { name: 'customer', type: 'string', optional: false, field_id: TEXT },
        ],
      },
      { id: OTHER_TABLE, name: 'Other', folder_id: 10, schema: [{ name: 'x', type: 'string', optional: true }] },
    ],
    data_table_record: [
      {
        $parent: TABLE,
        record_id: WITH_FILE,
        document: [
          { field_id: FILE, value: 'files/acme-contract.pdf' },
          { field_id: TEXT, value: 'Acme' },
        ],
      },
      { $parent: TABLE, record_id: WITHOUT_FILE, document: [{ field_id: TEXT, value: 'Globex' }] },
      { $parent: OTHER_TABLE, record_id: OTHER_RECORD, document: [] },
    ],
  },
};

const EXPIRES = new Date(NOW + 15 * 60 * 1000).toISOString();

describe('generate_data_table_file_upload_link', () => {
  it('answers a link on the emulator for a file column, expiring 15 minutes after the clock', async () => {
    const { server, run } = await sessionAtNow({ seed: SEED });
    const answer = await run('generate_data_table_file_upload_link', {
      params: { data_table_id: TABLE, field_id: FILE },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.data.expires_at).toBe(EXPIRES);
    const url = new URL(answer.body.data.url);
    expect(url.origin).toBe(server.url);
    expect(url.pathname).toMatch(new RegExp(`^/_emulator/uploads/${TABLE}/${FILE}/[0-9a-f-]{36}$`));
    expect(url.searchParams.get('signature')).toMatch(/^[0-9a-f]{32}$/);
    // The emulator stores no files: the address is not served.
    expect((await fetch(url, { method: 'PUT', body: 'x' })).status).toBe(404);
  });

  it('refuses an unknown table or field (404) and a column that is not a file column (400)', async () => {
    const { run } = await sessionAtNow({ seed: SEED });
    const link = (data_table_id: string, field_id: string) =>
      run('generate_data_table_file_upload_link', { params: { data_table_id, field_id } });
    expect((await link(UNKNOWN, FILE)).status).toBe(404);
    expect((await link(TABLE, UNKNOWN)).status).toBe(404);
    expect((await link(OTHER_TABLE, FILE)).status).toBe(404);
    const text = await link(TABLE, TEXT);
    expect([text.status, managementErrorOf(text).errors]).toEqual([
      400,
      { field_id: ['column customer is a string column, not a file column'] },
    ]);
  });

  it('follows the state: a file column added by an update gets links, a deleted table none', async () => {
    const { run } = await sessionAtNow({ seed: SEED });
    const field = '5e2c4a6b-8d1f-4b3a-9e5c-7a9c1e3b5d71';
    const params = { data_table_id: OTHER_TABLE, field_id: field };
    expect((await run('generate_data_table_file_upload_link', { params })).status).toBe(404);
    const updated = await run('update_data_table', {
      params: { data_table_id: OTHER_TABLE },
      body: { schema: [{ name: 'scan', type: 'file', optional: true, field_id: field }] },
    });
    expect(updated.status).toBe(200);
    expect((await run('generate_data_table_file_upload_link', { params })).status).toBe(200);
    expect((await run('delete_data_table', { params: { data_table_id: OTHER_TABLE } })).status).toBe(200);
    expect((await run('generate_data_table_file_upload_link', { params })).status).toBe(404);
  });
});

describe('generate_data_table_file_download_link', () => {
  it("answers a link to the record's file on the emulator, expiring 15 minutes after the clock", async () => {
    const { server, run } = await sessionAtNow({ seed: SEED });
    const params = { data_table_id: TABLE, record_id: WITH_FILE, field_id: FILE };
    const answer = await run('generate_data_table_file_download_link', { params });
    expect(answer.status).toBe(200);
    expect(answer.body.data.expires_at).toBe(EXPIRES);
    const url = new URL(answer.body.data.url);
    expect(url.origin).toBe(server.url);
    expect(url.pathname).toBe(`/_emulator/files/${TABLE}/${WITH_FILE}/${FILE}`);
    // Deterministic for the same record, file and time.
    expect((await run('generate_data_table_file_download_link', { params })).body).toEqual(answer.body);
  });

  it('refuses unknown tables, records and fields (404), a record without a file (404), a non-file column (400)', async () => {
    const { run } = await sessionAtNow({ seed: SEED });
    const link = (data_table_id: string, record_id: string, field_id: string) =>
      run('generate_data_table_file_download_link', { params: { data_table_id, record_id, field_id } });
    expect((await link(UNKNOWN, WITH_FILE, FILE)).status).toBe(404);
    expect((await link(TABLE, UNKNOWN, FILE)).status).toBe(404);
    expect((await link(TABLE, OTHER_RECORD, FILE)).status).toBe(404);
    expect((await link(TABLE, WITH_FILE, UNKNOWN)).status).toBe(404);
    const none = await link(TABLE, WITHOUT_FILE, FILE);
    expect([none.status, managementErrorOf(none).message]).toEqual([
      404,
      `record ${WITHOUT_FILE} has no file in column contract`,
    ]);
    expect((await link(TABLE, WITH_FILE, TEXT)).status).toBe(400);
  });

  it('follows the record: a file set by an update gets a link, a cleared or deleted one none', async () => {
    const { run } = await sessionAtNow({ seed: SEED });
    const record = { data_table_id: TABLE, record_id: WITHOUT_FILE };
    const params = { ...record, field_id: FILE };
    expect((await run('generate_data_table_file_download_link', { params })).status).toBe(404);
    await run('update_data_table_record', { params: record, body: { contract: 'files/globex.pdf' } });
    expect((await run('generate_data_table_file_download_link', { params })).status).toBe(200);
    await run('update_data_table_record', { params: record, body: { contract: null } });
    expect((await run('generate_data_table_file_download_link', { params })).status).toBe(404);
    const withFile = { data_table_id: TABLE, record_id: WITH_FILE, field_id: FILE };
    expect((await run('generate_data_table_file_download_link', { params: withFile })).status).toBe(200);
    await run('delete_data_table_record', { params: { data_table_id: TABLE, record_id: WITH_FILE } });
    expect((await run('generate_data_table_file_download_link', { params: withFile })).status).toBe(404);
  });
});
