// The answers the emulator API's endpoints share.
import { InvalidRequest } from '../errors.js';
import type { Reply } from '../http/replies.js';

export const NO_CONTENT: Reply = Object.freeze({ status: 204, json: '' });

/** Runs `change`; an error of the `mistake` class it throws (the caller's to fix, in the domain's words) is a 400 with its message. */
export function asInvalidRequest<T>(mistake: abstract new (...args: never[]) => Error, change: () => T | Promise<T>) {
  const invalid = (error: unknown): never => {
    if (error instanceof mistake) throw new InvalidRequest('INVALID_REQUEST', error.message);
    throw error;
  };
  try {
    const done = change();
    return done instanceof Promise ? done.catch(invalid) : done;
  } catch (error) {
    return invalid(error);
  }
}
