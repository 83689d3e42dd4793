// The emulator's own API, /_emulator/*: routed and validated from spec/emulator like the platform's
// APIs (its paths are the routes, its parameter and body schemas the validators), and answered in its
// EmulatorError shape. The endpoints themselves are in the files beside this one.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { components, operations } from '@platform-api/spec/types/emulator';
import { InvalidRequest, PayloadTooLarge } from '../errors.js';
import {
  type BodyReader,
  isJsonContentType,
  notUtf8,
  parseJson,
  unreadableJson,
  unsupportedEncoding,
} from '../http/body.js';
import type { Reply } from '../http/replies.js';
import { type RouteMatch, type RouteResult, Router } from '../http/router.js';
import type { OpenApiDocument, Operation } from '../spec/bundles.js';
import type { RequestValidators } from '../spec/validators.js';

export type EmulatorOperationId = keyof operations;
export type EmulatorSchemas = components['schemas'];

/** What an endpoint gets: the request, its checked parameters, and readers of its body. */
export interface ControlRequest {
  req: IncomingMessage;
  res: ServerResponse;
  /** Path and query parameters, checked against the operation's spec and coerced to their types. */
  params: Readonly<Record<string, unknown>>;
  /** The JSON body, checked against the operation's schema (400 for another Content-Type, bad JSON or a violation). */
  json<T>(): Promise<T>;
  /** The body as text, for one that may not be JSON (a YAML state document); PayloadTooLarge past the limit. */
  text(limit: number): Promise<string>;
}

/** An endpoint's answer; undefined when it wrote its own (the event stream). */
export type ControlHandler = (request: ControlRequest) => Promise<Reply | undefined> | Reply | undefined;

export type ControlHandlers = { [Id in EmulatorOperationId]: ControlHandler };

/** A small JSON body is all any endpoint but the state document takes. */
const CONTROL_BODY_LIMIT = 64 * 1024;

export class ControlPlane {
  private readonly router: Router<'emulator'>;
  readonly document: OpenApiDocument;
  private readonly validators: RequestValidators;

  constructor(
    private readonly handlers: ControlHandlers,
    spec: { document: OpenApiDocument; operations: Operation<'emulator'>[]; validators: RequestValidators },
  ) {
    this.document = spec.document;
    this.validators = spec.validators;
    this.router = new Router(spec.operations);
    const missing = spec.operations.filter((op) => !(op.operationId in handlers)).map((op) => op.operationId);
    if (missing.length > 0) throw new Error(`No emulator endpoint for ${missing.join(', ')}`);
  }

  route(method: string, pathname: string): RouteResult<'emulator'> {
    return this.router.route(method, pathname);
  }

  /** The endpoint's answer to a request the router matched; a refusal is thrown (see errorReply). */
  serve(req: IncomingMessage, res: ServerResponse, route: RouteMatch<'emulator'>, query: string, bodies: BodyReader) {
    const { operation } = route;
    const { validators } = this;
    const params = validators.checkParams(operation, route.params, query);
    const handler = this.handlers[operation.operationId as EmulatorOperationId];
    return handler({
      req,
      res,
      params,
      json: <T>() => readJson<T>(req, operation, validators, bodies),
      text: (limit) => readText(req, limit, bodies),
    });
  }
}

async function readJson<T>(
  req: IncomingMessage,
  operation: Operation<'emulator'>,
  validators: RequestValidators,
  bodies: BodyReader,
): Promise<T> {
  const contentType = req.headers['content-type'];
  if (!isJsonContentType(contentType)) {
    throw new InvalidRequest(
      'UNSUPPORTED_CONTENT_TYPE',
      `Content-Type must be application/json, not ${contentType ?? 'absent'}`,
    );
  }
  // The platform APIs' rules for a JSON body: UTF-8 (no other charset), sent as is (no Content-Encoding).
  const unreadable = unreadableJson(contentType as string, req.headers['content-encoding']);
  if (unreadable) throw new InvalidRequest('UNSUPPORTED_CONTENT_TYPE', unreadable);
  const bytes = await readWithin(req, CONTROL_BODY_LIMIT, bodies);
  const notText = notUtf8(bytes);
  if (notText) throw new InvalidRequest('INVALID_JSON', notText);
  const value = parseJson(bytes.toString('utf8'));
  validators.checkBody(operation, value);
  return value as T;
}

/** The body; one over the limit is a 400, as these endpoints declare no 413. */
async function readWithin(req: IncomingMessage, limit: number, bodies: BodyReader): Promise<Buffer> {
  try {
    return await bodies.readAll(req, limit, 'request body');
  } catch (error) {
    if (error instanceof PayloadTooLarge) throw new InvalidRequest('INVALID_REQUEST', error.detail);
    throw error;
  }
}

async function readText(req: IncomingMessage, limit: number, bodies: BodyReader): Promise<string> {
  const unreadable = unsupportedEncoding(req.headers['content-encoding']);
  if (unreadable) throw new InvalidRequest('UNSUPPORTED_CONTENT_TYPE', unreadable);
  return (await bodies.readAll(req, limit, 'request body')).toString('utf8');
}
