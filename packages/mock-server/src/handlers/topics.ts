// Topic management (/api/event_streams/topics and the legacy /pubsub/topics forms, same behaviour).

import { TopicConflict, type TopicInput } from '../domain/topics.js';
import { ManagementFailure, reply } from '../http/replies.js';
import { type Context, type EmulatorState, type RouteHandler, topicOr404, withValidJson } from './context.js';
import { page } from './paging.js';

export function topicHandlers(state: EmulatorState): Record<string, RouteHandler> {
  const handlers: Record<string, RouteHandler['handle']> = {
    list_topics: (ctx) => reply(200, page(state.topics.list(), ctx)),
    create_topic: (ctx) =>
      withValidJson(state, ctx, (input: Parameters<typeof state.topics.create>[0]) =>
        reply(
          200,
          conflictsAs422(() => state.topics.create(input)),
        ),
      ),
    get_topic: (ctx) => reply(200, topicOr404(state, ctx).topic),
    update_topic: (ctx) => {
      const entry = topicOr404(state, ctx);
      return withValidJson(state, ctx, (input: TopicInput) =>
        reply(
          200,
          conflictsAs422(() => state.topics.update(entry, input)),
        ),
      );
    },
    delete_topic: (ctx) => {
      state.topics.delete(topicOr404(state, ctx));
      return reply(200, { success: true });
    },
    purge_topic: (ctx: Context) => {
      state.store.purge(topicOr404(state, ctx).topic.id);
      return reply(200, { success: true });
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

function conflictsAs422<T>(action: () => T): T {
  try {
    return action();
  } catch (error) {
    if (error instanceof TopicConflict) throw new ManagementFailure(422, error.message);
    throw error;
  }
}
