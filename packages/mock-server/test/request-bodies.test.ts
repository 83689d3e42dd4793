// Every operation reads its body by the same rules, whoever serves it: a hand-written handler, the
// resource engine's generic operations and its custom handlers, and the engine's one binary body (a
// package's zip). JSON is UTF-8 (RFC 8259 8.1) and no Content-Encoding is decoded, so anything else is
// refused rather than stored as another value than was sent.
import { describe, expect, it } from 'vitest';
import { managementErrorOf, ORDER_SCHEMA, session } from './support/helpers.js';

/** A create of each kind of server, with its body around a name (the place for the bytes under test). */
const CREATES = {
  // The engine's custom handler (folders.create).
  create_folder: (name: Buffer) => json('{"name":"', name, '"}'),
  // The engine's generic create.
  create_recipe: (name: Buffer) => json('{"recipe":{"code":"{}","name":"', name, '"}}'),
  // A hand-written handler.
  create_topic: (name: Buffer) => json(`{"schema":${JSON.stringify(ORDER_SCHEMA)},"name":"`, name, '"}'),
} as const;

const LISTS = { create_folder: 'list_folders', create_recipe: 'list_recipes', create_topic: 'list_topics' } as const;

const json = (before: string, name: Buffer, after: string) =>
  Buffer.concat([Buffer.from(before), name, Buffer.from(after)]);

describe('request bodies', () => {
  it('refuses a management body that is not UTF-8, a charset other than UTF-8 and a Content-Encoding, storing nothing', async () => {
    const { run } = await session();
    for (const operationId of Object.keys(CREATES) as (keyof typeof CREATES)[]) {
      const body = CREATES[operationId];
      const create = async (rawBody: Buffer, headers: Record<string, string> = {}) => {
        const answer = await run(operationId, { rawBody, headers: { 'content-type': 'application/json', ...headers } });
        return answer.status < 300 ? [answer.status] : [answer.status, managementErrorOf(answer).message];
      };
      // printf '{"name":"bad-\xff"}': read as UTF-8 regardless, it would be stored as "bad-\ufffd".
      expect(await create(body(Buffer.from('bad-\xff', 'latin1'))), operationId).toEqual([
        400,
        'The body is not UTF-8 (RFC 8259)',
      ]);
      // A Latin-1 "é", as its charset says: read as UTF-8 it would be stored as something else.
      expect(
        await create(body(Buffer.from('bad-é', 'latin1')), { 'content-type': 'application/json; charset=latin1' }),
        operationId,
      ).toEqual([400, 'A JSON body is UTF-8 (RFC 8259), not charset=latin1']);
      expect(await create(body(Buffer.from('bad-gzip')), { 'content-encoding': 'gzip' }), operationId).toEqual([
        400,
        'Content-Encoding gzip is not supported: send the body uncompressed',
      ]);
      const listed = await run(LISTS[operationId]);
      expect(JSON.stringify(listed.body), operationId).not.toMatch(/bad-/);
      // UTF-8 said in any spelling, and the identity encoding, are taken.
      let taken = 0;
      for (const headers of <Record<string, string>[]>[
        { 'content-type': 'application/json; charset=UTF-8' },
        { 'content-type': 'application/json;charset="utf-8"' },
        { 'content-encoding': 'identity' },
      ]) {
        const [status] = await create(body(Buffer.from(`ok-é-${++taken}`)), headers);
        expect(status, `${operationId} ${JSON.stringify(headers)}`).toBeLessThan(300);
      }
      expect(JSON.stringify((await run(LISTS[operationId])).body), operationId).toMatch(/ok-é-3/);
    }
  });

  it('refuses a number past the range of a double in a field the schema leaves open, storing nothing', async () => {
    // Taken, `1e400` (Infinity to JSON.parse) would be stored and answered as null: not what was sent.
    const { run } = await session();
    const sent = (matrix: string) =>
      run('create_genie', {
        rawBody: Buffer.from(`{"name":"Sizing","matrix":${matrix}}`),
        headers: { 'content-type': 'application/json' },
      });
    for (const matrix of ['{"weight":1e400}', '{"rows":[1,{"w":-1e999}]}']) {
      const refused = await sent(matrix);
      expect([refused.status, managementErrorOf(refused).message], matrix).toEqual([
        400,
        expect.stringMatching(/^Request body \/\S+ is a number past the range of a double; send it as a string$/),
      ]);
    }
    expect(JSON.stringify((await run('list_genies')).body)).not.toContain('Sizing');
    // The largest double is a number like any other: stored and answered as sent.
    expect((await sent('{"weight":1e308}')).status).toBeLessThan(300);
    expect(JSON.stringify((await run('list_genies')).body)).toContain('"matrix":{"weight":1e+308}');
  });

  it('refuses a package zip sent with a Content-Encoding, naming it', async () => {
    const { run } = await session();
    const folder = await run('create_folder', { body: { name: 'Sales' } });
    const imported = await run('import_package', {
      params: { folder_id: folder.body.id },
      rawBody: 'PK',
      headers: { 'content-type': 'application/octet-stream', 'content-encoding': 'gzip' },
    });
    expect([imported.status, managementErrorOf(imported).message]).toEqual([
      400,
      'Content-Encoding gzip is not supported: send the body uncompressed',
    ]);
  });
});
