// Topic management (/api/event_streams/topics and the legacy /pubsub/topics forms, same behaviour).
import type { EmulatorState } from '../domain/state.js';

import type { TopicInput } from '../domain/topics.js';
import { jsonReply } from '../http/replies.js';
import { type Context, type RouteHandler, topicOr404, withValidJson } from './context.js';
import { page } from './paging.js';

export function topicHandlers(state: EmulatorState): Record<string, RouteHandler> {
  const handlers: Record<string, RouteHandler['handle']> = {
    list_topics: (ctx) => jsonReply(200, page(state.topics.list(), ctx)),
    create_topic: (ctx) =>
      withValidJson(state, ctx, (input: Parameters<typeof state.topics.create>[0]) =>
        jsonReply(200, state.topics.create(input)),
      ),
    get_topic: (ctx) => jsonReply(200, topicOr404(state, ctx).topic),
    update_topic: (ctx) => {
      const entry = topicOr404(state, ctx);
      return withValidJson(state, ctx, (input: TopicInput) => jsonReply(200, state.topics.update(entry, input)));
    },
    delete_topic: (ctx) => {
      state.topics.delete(topicOr404(state, ctx));
      return jsonReply(200, { success: true });
    },
    purge_topic: (ctx: Context) => {
      state.store.purge(topicOr404(state, ctx).topic.id);
      return jsonReply(200, { success: true });
    },
  };
  // The legacy operations behave exactly like the current ones.
  return Object.fromEntries(
    Object.entries(handlers).flatMap(([operationId, handle]) => {
      const route: RouteHandler = { scope: 'topics:manage', handle };
      return [
        [operationId, route],
        [`legacy_${operationId}`, route],
      ];
    }),
  );
}
