// Secrets and tokens are random (192 and 256 bits) and kept as SHA-256 digests only: a fast digest is
// enough for random values, and a data dir holds nothing that authenticates.
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

export const randomToken = (bytes: number): string => randomBytes(bytes).toString('base64url');

export const digest = (secret: string): string => hash('sha256', secret, 'base64url');

export function sameDigest(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}
