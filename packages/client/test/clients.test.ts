import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  createEventStreamsClient,
  createManagementClient,
  eventStreamsServers,
  managementServers,
} from '../src/index.js';

/** A fetch that records the URLs and answers 201 without any network. */
function offline() {
  const urls: string[] = [];
  const fetch = async (request: Request) => {
    urls.push(request.url);
    return Response.json({ message_id: 'm-1' }, { status: 201 });
  };
  return { urls, fetch };
}

const serversOf = async (api: string) =>
  (
    parse(await readFile(new URL(`../../../spec/dist/${api}.yaml`, import.meta.url), 'utf8')) as {
      servers: { url: string }[];
    }
  ).servers.map((s) => s.url);

describe('data centers', () => {
  it('send requests to the host of the data center', async () => {
    const { urls, fetch } = offline();
    await createEventStreamsClient({ dataCenter: 'eu', auth: { token: 't' }, fetch }).publish(1042, {});
    await createManagementClient({ dataCenter: 'jp', auth: { token: 't' }, fetch }).GET('/api/event_streams/topics');
    expect(urls).toEqual([
      'https://event-streams.eu.workato.com/api/v1/topics/1042/publish',
      'https://app.jp.workato.com/api/event_streams/topics',
    ]);
  });

  it('are the non-local servers of the bundled specs', async () => {
    const remote = (urls: string[]) => urls.filter((url) => !url.startsWith('http://127.0.0.1'));
    expect(Object.values(eventStreamsServers).sort()).toEqual(remote(await serversOf('event-streams')).sort());
    expect(Object.values(managementServers).sort()).toEqual(remote(await serversOf('management')).sort());
    expect(Object.keys(eventStreamsServers)).toEqual(['us', 'eu', 'jp', 'sg', 'au', 'trial']);
  });

  it('reject an unknown data center with a clear error', () => {
    const options = { dataCenter: 'mars', auth: { token: 't' } } as unknown as Parameters<
      typeof createEventStreamsClient
    >[0];
    expect(() => createEventStreamsClient(options)).toThrow(
      'Unknown data center "mars"; use one of us, eu, jp, sg, au, trial',
    );
  });
});
