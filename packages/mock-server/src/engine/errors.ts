// The engine's refusals, each with the status its operation documents for the case (EXTENSIONS.md,
// "Statuses"); errors.ts renders them in the management API's ManagementError shape.
import { InvalidRequest, NotFound, Refused, type Violation } from '../errors.js';
import type { Operation } from '../spec/bundles.js';
import { firstDocumented } from './vocabulary.js';

export const notFound = (what: string, id: unknown) => new NotFound(`${what} ${id} was not found`);

/** A 400 listing, per field, what is wrong with the request. */
export function invalidFields(errors: Record<string, string>): InvalidRequest {
  const violations: Violation[] = Object.entries(errors).map(([field, message]) => ({ pointer: `/${field}`, message }));
  const list = violations.map((v) => `${v.pointer.slice(1)} ${v.message}`).join('; ');
  return new InvalidRequest('INVALID_REQUEST', `The request is invalid: ${list}`, { errors: violations });
}

/** A body field names an item that does not exist. */
export function missingReference(operation: Operation, field: string, type: string, id: unknown): Refused {
  const status = firstDocumented(operation, [422, 400, 404]);
  return new Refused(status, `${field}: ${type} ${id} was not found`, [
    { pointer: `/${field}`, message: `no ${type} ${id}` },
  ]);
}

/** A state transition, or a delete, that the item's state or contents do not allow. */
export function conflict(status: number, message: string, field?: string, why?: string): Refused {
  return new Refused(status, message, field && why ? [{ pointer: `/${field}`, message: why }] : []);
}
