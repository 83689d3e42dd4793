// Checked by tsc (npm run typecheck), never run: an endpoint declared for one operation cannot serve
// another, even one whose request has the same shape, and a handler must say what it answers. Each
// `@ts-expect-error` below fails the typecheck as soon as the line it marks compiles.
import { NO_CONTENT } from '../../src/control/replies.js';
import type { Reply } from '../../src/http/replies.js';
import { type EmulatorEndpoints, endpoint, NO_BODY, type PlatformEndpoints } from '../../src/pipeline/endpoint.js';

const created: Reply = { status: 201, json: '{"message_id":"1"}' };

export const attachedToItsOperation: Pick<PlatformEndpoints, 'publish_message'> = {
  publish_message: endpoint('publish_message', { body: { kind: 'json' }, handle: () => created }),
};

export const attachedToAnother: Pick<PlatformEndpoints, 'consume_messages'> = {
  // @ts-expect-error publish_message's endpoint cannot serve consume_messages
  consume_messages: endpoint('publish_message', { body: { kind: 'json' }, handle: () => created }),
};

export const attachedToOneOfTheSameShape: Pick<EmulatorEndpoints, 'clear_requests'> = {
  // @ts-expect-error clear_faults and clear_requests take the same request: their operationIds tell them apart
  clear_requests: endpoint('clear_faults', { body: NO_BODY, handle: () => NO_CONTENT }),
};

// @ts-expect-error clear_requests has no endpoint
export const missingOne: Pick<EmulatorEndpoints, 'clear_faults' | 'clear_requests'> = {
  clear_faults: endpoint('clear_faults', { body: NO_BODY, handle: () => NO_CONTENT }),
};

export const readingAnotherBody = endpoint('consume_messages', {
  body: { kind: 'json' },
  handle({ body }) {
    // @ts-expect-error consume's body has offsets, not a batch's payloads
    return body.payloads ? created : NO_CONTENT;
  },
});

export const answeringNothing = endpoint('clear_faults', {
  body: NO_BODY,
  // @ts-expect-error a handler returns its reply, or NO_REPLY when it wrote its own: undefined is neither
  handle() {},
});
