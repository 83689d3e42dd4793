// The forms the specs imply, and the fault form: a topic's message schema and a create operation's body become fields,
// and what a person typed becomes the JSON value the emulator API takes, or an error at its field.
import type { FaultRequest, FormField, Topic, Violation } from './api.js';

export type FieldKind = 'text' | 'integer' | 'number' | 'boolean' | 'json';

export interface FieldSpec {
  name: string;
  /** The label, when it is not the name. */
  label?: string;
  kind: FieldKind;
  required: boolean;
  /** Shown under the label: the type, a format or the description. */
  hint?: string;
  /** The values it may take (a select). */
  options?: unknown[];
}

/** What is typed, by field name: text, or a select's chosen option. */
export type FormValues = Record<string, string>;
export type FieldErrors = Record<string, string>;

/** A topic's schema fields (the platform's TopicSchemaField list) as form fields. */
export function topicFields(topic: Topic): FieldSpec[] {
  return topic.schema.map(({ name, type, optional, of }) => {
    const kind: FieldKind =
      type === 'integer' || type === 'number' || type === 'boolean'
        ? type
        : type === 'object' || type === 'array'
          ? 'json'
          : 'text';
    const hint =
      type === 'array'
        ? `array of ${of ?? 'values'}, as JSON`
        : type === 'object'
          ? 'object, as JSON'
          : type === 'date'
            ? 'date, e.g. 2030-01-31'
            : type === 'date_time'
              ? 'date and time, e.g. 2030-01-31T12:00:00Z'
              : type;
    return { name, kind, required: optional !== true, hint };
  });
}

/** A create operation's body fields (from the management spec) as form fields. */
export function createFields(fields: FormField[]): FieldSpec[] {
  return fields.map(({ name, type, required, description, enum: options }) => ({
    name,
    kind: type === 'object' || type === 'array' ? 'json' : type === 'string' ? 'text' : type,
    required,
    hint: type === 'object' || type === 'array' ? `${type}, as JSON` : (description ?? type),
    ...(options && { options }),
  }));
}

/** The JSON object the fields make, leaving out empty optional ones; or the errors by field. */
export function valuesToObject(
  specs: FieldSpec[],
  values: FormValues,
): { value: Record<string, unknown> } | { errors: FieldErrors } {
  const value: Record<string, unknown> = {};
  const errors: FieldErrors = {};
  for (const spec of specs) {
    const raw = (values[spec.name] ?? '').trim();
    if (raw === '') {
      if (spec.required) errors[spec.name] = 'Required';
      continue;
    }
    const parsed = parseValue(spec, raw);
    if ('error' in parsed) errors[spec.name] = parsed.error;
    else value[spec.name] = parsed.value;
  }
  return Object.keys(errors).length > 0 ? { errors } : { value };
}

function parseValue(spec: FieldSpec, raw: string): { value: unknown } | { error: string } {
  if (spec.options) return { value: JSON.parse(raw) };
  switch (spec.kind) {
    case 'text':
      return { value: raw };
    case 'boolean':
      return { value: raw === 'true' };
    case 'integer':
    case 'number': {
      const number = Number(raw);
      if (!Number.isFinite(number)) return { error: 'Must be a number' };
      if (spec.kind === 'integer' && !Number.isInteger(number)) return { error: 'Must be a whole number' };
      return { value: number };
    }
    case 'json':
      try {
        return { value: JSON.parse(raw) };
      } catch {
        return { error: 'Must be valid JSON' };
      }
  }
}

/**
 * The emulator's violations by field: the top-level member each JSON pointer names. A violation of
 * the whole body (pointer `/` or none) goes under ''.
 */
export function violationsByField(violations: Violation[]): FieldErrors {
  const errors: FieldErrors = {};
  for (const { pointer, message } of violations) {
    const field = decodePointerToken(pointer.split('/')[1] ?? '');
    const rest = pointer.split('/').slice(2).map(decodePointerToken).join('.');
    errors[field] = errors[field] ?? (rest ? `${rest}: ${message}` : message);
  }
  return errors;
}

function decodePointerToken(token: string): string {
  return token.replaceAll('~1', '/').replaceAll('~0', '~');
}

/** The Faults view's form, as typed. */
export interface FaultForm {
  operation: string;
  status: string;
  code: string;
  times: string;
  retry_after: string;
  batch_fail_positions: string;
  omit: boolean;
}

/** The fault the form describes, or what to fix, by field. */
export function faultRequest(form: FaultForm): { request: FaultRequest } | { errors: FieldErrors } {
  const errors: FieldErrors = {};
  const whole = (name: keyof FaultForm, raw: string): number | undefined => {
    if (raw.trim() === '') return undefined;
    const number = Number(raw);
    if (!Number.isInteger(number) || number < 0) errors[name] = 'Must be a whole number';
    return number;
  };
  const times = whole('times', form.times);
  const request: FaultRequest = times === undefined ? {} : { times };
  if (form.batch_fail_positions.trim()) {
    const positions = form.batch_fail_positions.split(',').map((part) => Number(part.trim()));
    if (!positions.every((p) => Number.isInteger(p) && p >= 0)) {
      errors.batch_fail_positions = 'Whole numbers from 0, separated by commas';
    }
    Object.assign(request, { batch_fail_positions: positions, omit: form.omit });
  } else {
    if (!form.operation.trim()) errors.operation = 'Required (or batch positions)';
    const status = whole('status', form.status);
    if (status === undefined) errors.status = 'Required (or batch positions)';
    else if (status < 400 || status > 599) errors.status = 'From 400 to 599';
    const retryAfter = whole('retry_after', form.retry_after);
    Object.assign(request, {
      operation: form.operation.trim(),
      status,
      ...(form.code.trim() && { code: form.code.trim() }),
      ...(retryAfter !== undefined && { retry_after: retryAfter }),
    });
  }
  return Object.keys(errors).length > 0 ? { errors } : { request };
}
