import { clientCredentials, createTokenClient } from '@platform-api/client';

const authUrl = process.env.AUTH_URL ?? 'http://127.0.0.1:4010';
const clientId = process.env.CLIENT_ID ?? '';
const clientSecret = process.env.CLIENT_SECRET ?? '';

// The provider the clients use: Basic header by default; 'json', 'form' and 'multipart' also work.
const tokens = clientCredentials({ authUrl, clientId, clientSecret, format: 'json' });
const token = await tokens.getToken();
console.log(`cached token: ${token === (await tokens.getToken())}`);

// The raw, typed token endpoint, for tools that manage tokens themselves.
const tokenClient = createTokenClient({ baseUrl: authUrl });
const { data, error } = await tokenClient.POST('/oauth2/token', {
  body: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret },
  headers: { 'Content-Type': 'application/json' },
});
console.log(data ? `token valid for ${data.expires_in} s` : `refused: ${error.error}`);
