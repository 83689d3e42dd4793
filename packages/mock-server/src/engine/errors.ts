// The engine's refusals, each with the status the operation documents for its case
// (EXTENSIONS.md, "Statuses"), answered in the management API's ManagementError shape.
import type { Violation } from '../errors.js';
import type { Operation } from '../spec.js';
import { firstDocumented } from './vocabulary.js';

/** ManagementError's `errors`: messages by request field, a nested field as `parent.child`. */
export type FieldErrors = Record<string, string[]>;

export class EngineRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors?: FieldErrors,
  ) {
    super(message);
  }
}

export const notFound = (what: string, id: unknown) => new EngineRefusal(404, `${what} ${id} was not found`);

export function invalidRequest(what: string, violations: Violation[]): EngineRefusal {
  const errors: FieldErrors = {};
  for (const { pointer, message } of violations) {
    const field = pointer.split('/').filter(Boolean).join('.') || what;
    errors[field] = [...(errors[field] ?? []), message];
  }
  const list = violations.map((v) => `${v.pointer} ${v.message}`).join('; ');
  return new EngineRefusal(400, `${what} is invalid: ${list}`, errors);
}

/** A body field names an item that does not exist. */
export function missingReference(operation: Operation, field: string, type: string, id: unknown): EngineRefusal {
  const status = firstDocumented(operation, [422, 400, 404]);
  return new EngineRefusal(status, `${field}: ${type} ${id} was not found`, { [field]: [`no ${type} ${id}`] });
}

export function renderRefusal(refusal: EngineRefusal): { status: number; body: object } {
  const body = refusal.errors ? { message: refusal.message, errors: refusal.errors } : { message: refusal.message };
  return { status: refusal.status, body };
}
