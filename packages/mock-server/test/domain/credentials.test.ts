import { describe, expect, it } from 'vitest';
import { Credentials } from '../../src/domain/credentials.js';
import { MemoryResourceStore } from '../../src/store/memory/resources.js';

describe('Credentials.authenticateBearer', () => {
  async function keyWithToken() {
    let now = Date.parse('2026-11-22T12:00:00Z');
    const credentials = new Credentials(new MemoryResourceStore(), () => now, 60);
    const { key } = await credentials.createKey(await credentials.createClient({ name: 'client' }), { name: 'key' });
    const header = `Bearer ${credentials.issueToken(key).token}`;
    return { credentials, key, header, advance: (ms: number) => (now += ms) };
  }

  it('refuses a header it has just accepted once its token is revoked or expired', async () => {
    const revoked = await keyWithToken();
    expect(revoked.credentials.authenticateBearer(revoked.header)).toBe(revoked.key);
    expect(revoked.credentials.authenticateBearer(revoked.header)).toBe(revoked.key);
    revoked.credentials.setActive(revoked.key, false);
    expect(() => revoked.credentials.authenticateBearer(revoked.header)).toThrow('invalid or was revoked');

    const expired = await keyWithToken();
    expect(expired.credentials.authenticateBearer(expired.header)).toBe(expired.key);
    expired.advance(60_000);
    // Sent again, it is still an expired token (TOKEN_EXPIRED), not an unknown one.
    expect(() => expired.credentials.authenticateBearer(expired.header)).toThrow('has expired');
    expect(() => expired.credentials.authenticateBearer(expired.header)).toThrow('has expired');
  });

  it('reads the token in any case and spacing of "Bearer", and refuses other forms', async () => {
    const { credentials, key, header } = await keyWithToken();
    const token = header.slice('Bearer '.length);
    for (const form of [`bearer ${token}`, `Bearer   ${token}  `, `BEARER ${token}`])
      expect(credentials.authenticateBearer(form)).toBe(key);
    for (const form of [undefined, '', 'Bearer ', `Basic ${token}`, `Bearer ${token} extra`, `Bearer\t${token}`]) {
      expect(() => credentials.authenticateBearer(form)).toThrow('must be "Bearer <ACCESS_TOKEN>"');
    }
  });
});
