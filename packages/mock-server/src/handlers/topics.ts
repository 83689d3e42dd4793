// Topic management (/api/event_streams/topics and the legacy /pubsub/topics forms, same behaviour).
import type { EmulatorState } from '../domain/state.js';
import { jsonReply } from '../http/replies.js';
import { after } from '../store/message-store.js';
import type { Handler, Handlers } from './handler.js';
import { page } from './paging.js';

type TopicOperationId = 'list_topics' | 'create_topic' | 'get_topic' | 'update_topic' | 'delete_topic' | 'purge_topic';
type LegacyTopicOperationId = `legacy_${TopicOperationId}`;

const succeeded = () => jsonReply(200, { success: true });

export function topicHandlers({
  topics,
  store,
}: EmulatorState): Pick<Handlers, TopicOperationId | LegacyTopicOperationId> {
  const manage = <Id extends TopicOperationId>(handle: Handler<Id>['handle']): Handler<Id> => ({
    scope: 'topics:manage',
    handle,
  });
  const current: Pick<Handlers, TopicOperationId> = {
    list_topics: manage(({ params }) => jsonReply(200, page(topics.list(), params))),
    create_topic: manage((request) =>
      request.readJson({}, (input) => after(topics.create(input), (topic) => jsonReply(200, topic))),
    ),
    get_topic: manage(({ params }) => jsonReply(200, topics.require(params.topic_id).topic)),
    update_topic: manage((request) => {
      const entry = topics.require(request.params.topic_id);
      return request.readJson({}, (input) => after(topics.update(entry, input), (topic) => jsonReply(200, topic)));
    }),
    delete_topic: manage(({ params }) => after(topics.delete(topics.require(params.topic_id)), succeeded)),
    purge_topic: manage(({ params }) => after(store.purge(topics.require(params.topic_id).topic.id), succeeded)),
  };
  // The legacy operations behave exactly like the current ones.
  return {
    ...current,
    legacy_list_topics: current.list_topics,
    legacy_create_topic: current.create_topic,
    legacy_get_topic: current.get_topic,
    legacy_update_topic: current.update_topic,
    legacy_delete_topic: current.delete_topic,
    legacy_purge_topic: current.purge_topic,
  };
}
