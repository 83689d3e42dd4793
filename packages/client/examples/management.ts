import { createManagementClient, ManagementError } from '@platform-api/client';

// throwOnError: error answers are thrown as ManagementError, and `data` is always there.
const management = createManagementClient({
  baseUrl: process.env.PLATFORM_URL ?? 'http://127.0.0.1:4010', // or { dataCenter: 'eu' }
  auth: { token: process.env.ACCESS_TOKEN ?? '' },
  throwOnError: true,
});

// Every API key of every API client, page after page: paginate follows each list operation's
// documented paging, and its items are typed from the spec (here ApiClient, then ApiKey).
for await (const apiClient of management.paginate('/api/v2/api_clients', { pageSize: 50 })) {
  const keys = management.paginate('/api/v2/api_clients/{api_client_id}/api_keys', {
    params: { path: { api_client_id: apiClient.id } },
  });
  for await (const key of keys) console.log(`${apiClient.name}: ${key.name} (${key.active ? 'active' : 'disabled'})`);
}

try {
  const { data: topic } = await management.GET('/api/event_streams/topics/{topic_id}', {
    params: { path: { topic_id: 4_000_000 } },
  });
  console.log(`topic ${topic.name}`);
} catch (error) {
  if (!(error instanceof ManagementError)) throw error;
  console.log(`${error.status}: ${error.is(404) ? error.body.message : error.message}`);
}
