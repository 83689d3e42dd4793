// Requests: the journal, live. The newest entries first, filtered here by operation, status and
// client; a row opens the request and the answer as the journal kept them (credentials masked).
import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, feedUrl, type JournalEntry, messageOf, must } from './api.js';
import { frameBatcher } from './batch.js';
import { curlCommand } from './curl.js';
import { CodeBlock, JsonBlock, Notice, Problem } from './ui.js';

/** Entries kept in the page; the journal itself keeps more. */
const KEEP = 1000;

interface Filters {
  operation: string;
  status: string;
  client: string;
}

export function RequestsView() {
  const [entries, setEntries] = useState<JournalEntry[]>([]);
  const [feed, setFeed] = useState<'connecting' | 'live' | 'reconnecting'>('connecting');
  const [problem, setProblem] = useState<string>();
  const [filters, setFilters] = useState<Filters>({ operation: '', status: '', client: '' });
  const [openId, setOpenId] = useState<number>();

  useEffect(() => {
    const add = (more: JournalEntry[]) => setEntries((current) => merged(current, more));
    const live = frameBatcher(add, KEEP);
    const source = new EventSource(feedUrl('/_emulator/requests/stream'));
    source.addEventListener('request', (event) => live.add(JSON.parse((event as MessageEvent<string>).data)));
    // Listening first, then the list: an entry answered in between comes by one or the other.
    source.onopen = () => {
      setFeed('live');
      newestEntries().then(add, (error: unknown) => setProblem(messageOf(error)));
    };
    source.onerror = () => setFeed('reconnecting');
    return () => {
      source.close();
      live.cancel();
    };
  }, []);

  const shown = useMemo(() => entries.filter((entry) => matches(entry, filters)), [entries, filters]);
  const operations = useMemo(
    () => [...new Set(entries.map((entry) => entry.operation).filter((op): op is string => op !== null))].sort(),
    [entries],
  );
  const opened = entries.find((entry) => entry.id === openId);
  const setFilter = (name: keyof Filters) => (event: Event) =>
    setFilters({ ...filters, [name]: (event.currentTarget as HTMLInputElement).value });

  return (
    <>
      <p class="lead">
        The requests the emulator answered on its platform APIs, newest first.{' '}
        <span class={`feed feed-${feed}`}>
          {feed === 'live' ? 'Live' : feed === 'connecting' ? 'Connecting…' : 'Reconnecting…'}
        </span>
      </p>
      {problem && <Problem>{problem}</Problem>}
      <search aria-label="Filter the requests">
        <form class="filters" onSubmit={(event) => event.preventDefault()}>
          <div class="field">
            <label for="filter-operation">Operation</label>
            <input
              id="filter-operation"
              list="seen-operations"
              value={filters.operation}
              onInput={setFilter('operation')}
            />
            <datalist id="seen-operations">
              {operations.map((op) => (
                <option key={op} value={op} />
              ))}
            </datalist>
          </div>
          <div class="field">
            <label for="filter-status">Status</label>
            <input
              id="filter-status"
              inputMode="numeric"
              placeholder="e.g. 201 or 4xx"
              value={filters.status}
              onInput={setFilter('status')}
            />
          </div>
          <div class="field">
            <label for="filter-client">Client</label>
            <input id="filter-client" value={filters.client} onInput={setFilter('client')} />
          </div>
        </form>
      </search>
      <p class="count" aria-live="polite">
        {shown.length === entries.length
          ? `${entries.length} requests`
          : `${shown.length} of ${entries.length} requests`}
      </p>
      <div class="table-scroll">
        <table class="requests">
          <caption class="visually-hidden">Answered requests</caption>
          <thead>
            <tr>
              <th scope="col">Id</th>
              <th scope="col">Time</th>
              <th scope="col">Method</th>
              <th scope="col">Path</th>
              <th scope="col">Operation</th>
              <th scope="col">Status</th>
              <th scope="col">Client</th>
              <th scope="col">ms</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((entry) => (
              <tr key={entry.id} class={entry.id === openId ? 'selected' : undefined} data-request-id={entry.id}>
                <td>{entry.id}</td>
                <td>{entry.time.slice(11, 23)}</td>
                <td>{entry.method}</td>
                <td>
                  <button
                    type="button"
                    class="link"
                    aria-expanded={entry.id === openId}
                    aria-controls="request-detail"
                    onClick={() => setOpenId(entry.id === openId ? undefined : entry.id)}
                  >
                    {entry.path}
                  </button>
                </td>
                <td>{entry.operation ?? '—'}</td>
                <td class={`status status-${String(entry.response.status)[0]}xx`}>{entry.response.status}</td>
                <td>{entry.client_id ?? '—'}</td>
                <td>{entry.duration_ms.toFixed(1)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div id="request-detail">{opened && <RequestDetail entry={opened} />}</div>
    </>
  );
}

function RequestDetail({ entry }: { entry: JournalEntry }) {
  const [copied, setCopied] = useState<string>();
  const curl = curlCommand(entry, location.origin);
  useEffect(() => setCopied(undefined), [entry.id]);
  const copy = () =>
    navigator.clipboard
      .writeText(curl)
      .then(() => setCopied('Copied to the clipboard.'))
      .catch(() => setCopied('The browser refused the clipboard: select the command below and copy it.'));
  return (
    <section class="detail" aria-labelledby="request-detail-title">
      <h2 id="request-detail-title">
        Request {entry.id}: {entry.method} {entry.path}
      </h2>
      <div class="actions">
        <button type="button" onClick={copy}>
          Copy as curl
        </button>
        {copied && <Notice>{copied}</Notice>}
      </div>
      <CodeBlock text={curl} label="curl command" />
      <div class="columns">
        <section aria-labelledby="request-part">
          <h3 id="request-part">Request</h3>
          <Headers headers={entry.request.headers} label="Request headers" />
          <h4>Body</h4>
          <JsonBlock value={entry.request.body} label="Request body" />
        </section>
        <section aria-labelledby="response-part">
          <h3 id="response-part">Response: {entry.response.status}</h3>
          <Headers headers={entry.response.headers} label="Response headers" />
          <h4>Body</h4>
          <JsonBlock value={entry.response.body} label="Response body" />
        </section>
      </div>
    </section>
  );
}

function Headers({ headers, label }: { headers: Record<string, string>; label: string }) {
  return (
    <table class="headers">
      <caption>{label}</caption>
      <tbody>
        {Object.entries(headers).map(([name, value]) => (
          <tr key={name}>
            <th scope="row">{name}</th>
            <td>{value}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The newest KEEP entries: a journal's ids are consecutive, so the first id and the total place them. */
async function newestEntries(): Promise<JournalEntry[]> {
  const first = await must(api.GET('/_emulator/requests', { params: { query: { limit: 1 } } }));
  const firstId = first.requests[0]?.id;
  if (firstId === undefined) return [];
  const after = Math.max(0, firstId + first.total - 1 - KEEP);
  return (await must(api.GET('/_emulator/requests', { params: { query: { after, limit: KEEP } } }))).requests;
}

/** Newest first, each id once, at most KEEP. */
function merged(current: JournalEntry[], more: JournalEntry[]): JournalEntry[] {
  const byId = new Map(current.map((entry) => [entry.id, entry]));
  for (const entry of more) byId.set(entry.id, entry);
  return [...byId.values()].sort((a, b) => b.id - a.id).slice(0, KEEP);
}

/** Operation: exact; status: exact, or a class such as `4xx`; client: a part of the client ID. */
function matches(entry: JournalEntry, { operation, status, client }: Filters): boolean {
  if (operation.trim() && entry.operation !== operation.trim()) return false;
  const wanted = status.trim().toLowerCase();
  if (wanted) {
    const actual = String(entry.response.status);
    const ok = /^\dxx$/.test(wanted) ? actual[0] === wanted[0] : actual === wanted;
    if (!ok) return false;
  }
  if (client.trim() && !(entry.client_id ?? '').includes(client.trim())) return false;
  return true;
}
