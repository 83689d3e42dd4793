// `format: email` is RFC 5321's Mailbox (JSON Schema 2020-12, 7.3.2): isEmail (@platform-api/spec/
// conventions) accepts what that grammar allows and nothing else, including what ajv-formats' narrower
// regular expression refuses (a domain without a dot, a quoted local part, an address literal); and the
// management API takes such an address where its schema says `format: email`.
import { createRequire } from 'node:module';
import { isEmail } from '@platform-api/spec/conventions';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defined } from '../support/defined.js';
import { managementErrorOf, session } from '../support/helpers.js';

const { fullFormats } = createRequire(import.meta.url)('ajv-formats/dist/formats.js') as {
  fullFormats: Record<string, RegExp>;
};
const ajvFormatsEmail = defined(fullFormats.email);

const ALLOWED = [
  'joe@example.com',
  '0@com',
  'a@b',
  'Joe.Bloggs+tag@mail-1.example.co.uk',
  "!#$%&'*+-/=?^_`{|}~@example.com",
  'a.b.c@x--y.z',
  '"joe bloggs"@example.com',
  '"a..b"@example.com',
  '"a@b"@example.com',
  '"\\"quoted\\" \\\\ pair"@example.com',
  '""@example.com',
  'postmaster@[192.0.2.1]',
  'postmaster@[001.02.255.0]',
  'postmaster@[IPv6:2001:db8::1]',
  'postmaster@[ipv6:::]',
  'postmaster@[IPv6:1:2:3:4:5:6:7:8]',
  'postmaster@[IPv6:1:2:3:4:5:6:192.0.2.1]',
  'postmaster@[IPv6:::ffff:192.0.2.1]',
  'postmaster@[IPv6:1::2:3:192.0.2.1]',
  'postmaster@[x-tag:any!content]',
];

const REFUSED = [
  '',
  'joe',
  '@example.com',
  'joe@',
  '.joe@example.com',
  'joe.@example.com',
  'jo..e@example.com',
  'jo e@example.com',
  'joe@@example.com',
  'joe@-example.com',
  'joe@example-.com',
  'joe@example..com',
  'joe@example.com.',
  'joe@exa_mple.com',
  'jöe@example.com',
  '"unclosed@example.com',
  '"a"b"@example.com',
  '"tab\there"@example.com',
  'postmaster@[192.0.2.256]',
  'postmaster@[192.0.2]',
  'postmaster@[1921.0.2.1]',
  'postmaster@[IPv6:1:2:3:4:5:6:7]',
  'postmaster@[IPv6:1:2:3:4:5:6:7:8:9]',
  'postmaster@[IPv6:1:2:3:4:5:6:7::]',
  'postmaster@[IPv6:1::2::3]',
  'postmaster@[IPv6:12345::1]',
  'postmaster@[IPv6:1:2:3:4:5:6:7:192.0.2.1]',
  'postmaster@[IPv6:1:2:3:4:5::192.0.2.1]',
  'postmaster@[IPv6:g::1]',
  'postmaster@[tag-:content]',
  'postmaster@[tag:]',
  'postmaster@[no colon]',
  'postmaster@[a[b]',
];

describe('isEmail', () => {
  it("accepts what RFC 5321's Mailbox allows, refuses the rest", () => {
    expect(ALLOWED.filter((address) => !isEmail(address))).toEqual([]);
    expect(REFUSED.filter((address) => isEmail(address))).toEqual([]);
  });

  it("accepts every address ajv-formats' email accepts (a narrower grammar)", () => {
    const label = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,8}[a-z0-9])?$/);
    const atom = fc.stringMatching(/^[a-z0-9!#$%&'*+/=?^_`{|}~-]{1,8}$/);
    const address = fc
      .tuple(fc.array(atom, { minLength: 1, maxLength: 3 }), fc.array(label, { minLength: 1, maxLength: 4 }))
      .map(([local, domain]) => `${local.join('.')}@${domain.join('.')}`);
    fc.assert(
      fc.property(address, (value) => {
        if (ajvFormatsEmail.test(value)) expect(isEmail(value), value).toBe(true);
      }),
    );
  });

  it('reads a long address that almost matches to its end, either way', () => {
    // Every repetition matches one way only: no backtracking over `[a-z0-9-]*[a-z0-9]` on a long label.
    const long = `${'a'.repeat(30_000)}@${'b-'.repeat(30_000)}`;
    expect([isEmail(long), isEmail(`${long}c`)]).toEqual([false, true]);
  });
});

describe('format: email in requests', () => {
  it('takes an address RFC 5321 allows (a domain without a dot) and refuses one it does not', async () => {
    const { run } = await session();
    const created = await run('iam_create_user', { body: { email: '0@com', full_name: 'Zero' } });
    expect([created.status, created.body]).toMatchObject([200, { data: { email: '0@com' } }]);
    const refused = await run('iam_create_user', { body: { email: 'zero@', full_name: 'Zero' } });
    expect(refused.status).toBe(400);
    expect(managementErrorOf(refused).errors).toHaveProperty('email');
  });
});
