// Calls the emulator's own API (/_emulator/*) by operationId and checks each answer against
// spec/emulator, as helpers.ts does for the platform's APIs.

import type { components, operations } from '@platform-api/spec/types/emulator';
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import { expect } from 'vitest';
import type { MockServer } from '../../../src/index.js';
import { deref, loadEmulatorSpec } from '../../../src/spec/bundles.js';
import { anchorRefs, createAjv } from '../../../src/spec/checks.js';
import { type Answer, type CallOptions, send, toAnswer } from '../helpers.js';

const { document, operations: emulatorOperations } = loadEmulatorSpec();
const ajv: Ajv2020 = createAjv({ documents: { emulator: document } });
const validators = new Map<string, ValidateFunction>();

export type EmulatorOperationId = keyof operations;
type Schemas = components['schemas'];

type Responses<Id extends EmulatorOperationId> = operations[Id]['responses'];
type JsonOf<Response> = Response extends { content: { 'application/json': infer Body } } ? Body : undefined;
/** The body the spec declares for the endpoint's 2xx answer. */
export type SuccessOf<Id extends EmulatorOperationId> = {
  [Status in keyof Responses<Id>]: Status extends 200 | 201 | 204 ? JsonOf<Responses<Id>[Status]> : never;
}[keyof Responses<Id>];

/** An EmulatorError answer's body (the call has checked it against the spec). */
export const emulatorErrorOf = (answer: Answer) => answer.body as Schemas['EmulatorError'];
/** A verification's 409 body. */
export const verificationFailureOf = (answer: Answer) => answer.body as Schemas['VerificationFailure'];

export type ControlOptions = Pick<CallOptions, 'params' | 'query' | 'body' | 'rawBody' | 'headers'>;

/** Calls an endpoint of the emulator API and checks that its answer is one the spec declares. */
export async function control<Id extends EmulatorOperationId>(
  server: MockServer,
  operationId: Id,
  options: ControlOptions = {},
): Promise<Answer<SuccessOf<Id>>> {
  const op = emulatorOperations.find((candidate) => candidate.operationId === operationId);
  if (!op) throw new Error(`No emulator operation ${operationId}`);
  const answer = await toAnswer<SuccessOf<Id>>(await send(server, op, options));
  const declared = op.responses[String(answer.status)];
  expect(declared, `${operationId} declares no ${answer.status} (${JSON.stringify(answer.body)})`).toBeDefined();
  const media = declared && deref(document, declared).content?.['application/json'];
  if (media?.schema && typeof answer.body === 'object') {
    const key = `${operationId} ${answer.status}`;
    let validate = validators.get(key);
    if (!validate) {
      validate = ajv.compile(anchorRefs('emulator', media.schema) as object);
      validators.set(key, validate);
    }
    expect(validate(answer.body), `${key}: ${ajv.errorsText(validate.errors)}`).toBe(true);
  }
  return answer;
}

/** How many consumers wait on the topic now, as `GET /_emulator/topics` says. */
export async function waitingConsumers(server: MockServer, topicId: number): Promise<number> {
  const { body } = await control(server, 'inspect_topics');
  return body?.topics.find((topic) => topic.id === topicId)?.waiting_consumers ?? 0;
}

/** Settles once `count` consumers wait on the topic: a consumer has read it, found nothing, and waits. */
export function consumersWaiting(server: MockServer, topicId: number, count = 1): Promise<void> {
  return expect.poll(() => waitingConsumers(server, topicId), { timeout: 30_000 }).toBe(count);
}
