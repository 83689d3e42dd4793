// Topics: every topic by name; a topic's messages with a live tail, and a form to publish one that the
// emulator checks against the topic's schema (its refusal shown at the field).
import { useEffect, useState } from 'preact/hooks';
import { ApiFailure, api, feedUrl, messageOf, must, type Topic, type TopicMessage } from './api.js';
import { frameBatcher } from './batch.js';
import { type FieldErrors, type FormValues, topicFields, valuesToObject, violationsByField } from './forms.js';
import { FieldList, Notice, Problem } from './ui.js';

/** Messages kept in the tail. */
const TAIL = 200;

export function TopicsView() {
  const [topics, setTopics] = useState<Topic[]>();
  const [problem, setProblem] = useState<string>();
  const [openId, setOpenId] = useState<number>();

  const load = () =>
    must(api.GET('/_emulator/topics')).then(
      ({ topics: list }) => setTopics(list),
      (error: unknown) => setProblem(messageOf(error)),
    );
  useEffect(() => {
    load();
  }, []);

  const opened = topics?.find((topic) => topic.id === openId);
  return (
    <>
      <p class="lead">The event-streams topics. Open one to follow its messages and publish to it.</p>
      {problem && <Problem>{problem}</Problem>}
      <div class="actions">
        <button type="button" onClick={load}>
          Refresh topics
        </button>
      </div>
      {topics && topics.length === 0 && <p>No topic yet: create one through the management API.</p>}
      <ul class="pick-list" aria-label="Topics">
        {topics?.map((topic) => (
          <li key={topic.id}>
            <button type="button" aria-pressed={topic.id === openId} onClick={() => setOpenId(topic.id)}>
              {topic.name}
            </button>{' '}
            <span class="hint">
              id {topic.id}
              {topic.waiting_consumers > 0 &&
                ` · ${topic.waiting_consumers} ${topic.waiting_consumers === 1 ? 'consumer' : 'consumers'} waiting`}
            </span>
          </li>
        ))}
      </ul>
      {opened && <TopicDetail key={opened.id} topic={opened} />}
    </>
  );
}

function TopicDetail({ topic }: { topic: Topic }) {
  const [messages, setMessages] = useState<TopicMessage[]>([]);
  const [feed, setFeed] = useState<'connecting' | 'following' | 'ended'>('connecting');
  useEffect(() => {
    const live = frameBatcher<TopicMessage>(
      (more) =>
        setMessages((current) => {
          // A reconnection goes on after the last message it had: nothing comes twice, this makes sure.
          const seen = new Set(current.map((message) => message.message_id));
          return [...current, ...more.filter((message) => !seen.has(message.message_id))].slice(-TAIL);
        }),
      TAIL,
    );
    const source = new EventSource(feedUrl(`/_emulator/topics/${topic.id}/messages/stream`));
    source.addEventListener('message', (event) => live.add(JSON.parse((event as MessageEvent<string>).data)));
    source.onopen = () => setFeed('following');
    // The browser reconnects by itself; it gives up when the topic is gone (a 404).
    source.onerror = () => setFeed(source.readyState === EventSource.CLOSED ? 'ended' : 'connecting');
    return () => {
      source.close();
      live.cancel();
    };
  }, [topic.id]);

  return (
    <section class="detail" aria-labelledby="topic-title">
      <h2 id="topic-title">Topic {topic.name}</h2>
      {topic.description && <p>{topic.description}</p>}
      <div class="columns">
        <section aria-labelledby="tail-title">
          <h3 id="tail-title">
            Messages{' '}
            <span class={`feed feed-${feed === 'following' ? 'live' : 'connecting'}`}>
              {feed === 'following' ? 'Following' : feed === 'connecting' ? 'Connecting…' : 'Ended'}
            </span>
          </h3>
          {feed === 'ended' && <Problem>The topic's stream ended: the topic may be gone.</Problem>}
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: the tail scrolls, so the keyboard must reach it. */}
          <div class="tail" role="log" tabIndex={0} aria-label={`Messages of ${topic.name}`}>
            <ol>
              {messages.map((message) => (
                <li key={message.message_id} data-message-id={message.message_id}>
                  <span class="hint">
                    #{message.message_id} at {message.time}
                  </span>
                  <code>{JSON.stringify(message.payload)}</code>
                </li>
              ))}
            </ol>
          </div>
          {messages.length === 0 && <p>No message yet.</p>}
        </section>
        <PublishForm topic={topic} />
      </div>
    </section>
  );
}

function PublishForm({ topic }: { topic: Topic }) {
  const fields = topicFields(topic);
  const [values, setValues] = useState<FormValues>({});
  const [errors, setErrors] = useState<FieldErrors>({});
  const [result, setResult] = useState<string>();

  const submit = async (event: Event) => {
    event.preventDefault();
    setResult(undefined);
    const built = valuesToObject(fields, values);
    if ('errors' in built) return setErrors(built.errors);
    try {
      const published = await must(
        api.POST('/_emulator/topics/{topic_id}/messages', {
          params: { path: { topic_id: topic.id } },
          body: built.value,
        }),
      );
      setErrors({});
      setResult(`Published message ${published.message_id}.`);
    } catch (error) {
      setErrors(
        error instanceof ApiFailure
          ? { '': error.message, ...violationsByField(error.violations) }
          : { '': messageOf(error) },
      );
    }
  };

  return (
    <section aria-labelledby="publish-title">
      <h3 id="publish-title">Publish a message</h3>
      <form onSubmit={submit} noValidate>
        <FieldList idPrefix="message" fields={fields} values={values} errors={errors} onValues={setValues} />
        <button type="submit">Publish</button>
        {result && <Notice>{result}</Notice>}
      </form>
    </section>
  );
}
