import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('../scripts/generate-pagination.mjs', import.meta.url));
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pagination-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const query = (name: string, schema: object = { type: 'integer' }) => ({ name, in: 'query', schema });
const page = query('page');
const perPage = query('per_page', { type: 'integer', maximum: 100, default: 100 });
const list = (parameters: object[], schema: object) => ({
  get: { parameters, responses: { '200': { content: { 'application/json': { schema } } } } },
});
const array = (of = 'Item') => ({ type: 'array', items: { $ref: `#/components/schemas/${of}` } });

/** Runs the generator on `paths` and `schemas`; resolves to its table, or rejects with its error output. */
async function generate(paths: object, schemas: object = {}) {
  const spec = join(dir, 'spec.json');
  const out = join(dir, `pagination-${Math.random().toString(36).slice(2)}.ts`);
  const parameters = { PageNumber: query('page[number]') };
  await writeFile(
    spec,
    JSON.stringify({ openapi: '3.1.0', paths, components: { parameters, schemas: { Item: {}, ...schemas } } }),
  );
  await promisify(execFile)(process.execPath, [script, spec, out]);
  return ((await import(out)) as { managementPagination: Record<string, unknown> }).managementPagination;
}

describe('generate-pagination.mjs', () => {
  it('finds the style and the items of every shape a list answer takes', async () => {
    const table = await generate(
      {
        '/wrapped': list([page, perPage], {
          type: 'object',
          properties: { data: array(), count: { type: 'integer' }, page: { type: 'integer' } },
        }),
        '/bare': list([page, perPage], array()),
        '/items': list([page], { type: 'object', properties: { items: { type: ['array', 'null'], items: {} } } }),
        '/result': list(
          [{ $ref: '#/components/parameters/PageNumber' }, query('page[size]', { type: 'integer', maximum: 50 })],
          {
            $ref: '#/components/schemas/ResultList',
          },
        ),
        '/composed': list([page, perPage], {
          allOf: [{ $ref: '#/components/schemas/Paged' }, { properties: { records: array() } }],
        }),
        '/undescribed': list([page, perPage], { type: 'object', additionalProperties: true }),
        '/not-paged': list([query('folder_id')], array()),
        '/cursor': list([query('page[after]'), query('page[size]', { type: 'integer', maximum: 100 })], {
          type: 'object',
          properties: { data: { type: ['array', 'null'], items: {} }, total: { type: 'integer' } },
        }),
        '/one/{id}': { get: { responses: { '200': { content: { 'application/json': { schema: {} } } } } } },
      },
      {
        ResultList: { type: 'object', properties: { result: array(), total: { type: ['integer', 'null'] } } },
        Paged: { type: 'object', properties: { total: { type: 'integer' } } },
      },
    );
    expect(table).toEqual({
      '/wrapped': { style: 'page', page: 'page', size: 'per_page', maxSize: 100, items: 'data', total: 'count' },
      '/bare': { style: 'page', page: 'page', size: 'per_page', maxSize: 100, items: null, total: null },
      '/items': { style: 'page', page: 'page', size: null, maxSize: null, items: 'items', total: null },
      '/result': {
        style: 'page',
        page: 'page[number]',
        size: 'page[size]',
        maxSize: 50,
        items: 'result',
        total: 'total',
      },
      '/composed': { style: 'page', page: 'page', size: 'per_page', maxSize: 100, items: 'records', total: 'total' },
      '/undescribed': { style: 'page', page: 'page', size: 'per_page', maxSize: 100, items: '*', total: null },
      '/cursor': { style: 'cursor', page: 'page[after]', size: 'page[size]', maxSize: 100, items: 'data', total: null },
    });
  });

  it('fails, naming the operation, when an answer holds several arrays and none is the usual one', async () => {
    const ambiguous = list([page], { type: 'object', properties: { users: array(), groups: array() } });
    await expect(generate({ '/api/odd': ambiguous })).rejects.toThrow(
      'GET /api/odd: the answer has several arrays (users, groups); which are the items?',
    );
  });
});
