// Holds the token endpoint's bundle to the description: four request formats, the token response,
// RFC 6749 errors and the {auth_url} server variable.
import { describe, expect, test } from 'vitest';
import { deref, type Json, loadBundle, operationById, operations } from './support/bundles.js';

const doc = loadBundle('auth');
const { op } = operationById(doc, 'request_access_token');

describe('POST /oauth2/token', () => {
  test('is the only operation', () => {
    expect(operations(doc).map((o) => `${o.method} ${o.path}`)).toEqual(['post /oauth2/token']);
  });

  test('accepts the four formats: Basic header + form, JSON, form fields, multipart', () => {
    const content = op.requestBody.content as Json;
    expect(Object.keys(content).sort()).toEqual([
      'application/json',
      'application/x-www-form-urlencoded',
      'multipart/form-data',
    ]);
    // One schema for the three media types: credentials in the Basic header (grant_type alone in the
    // body) or in the body, never both, so a generated client that honours both sends one.
    const schemas = Object.values(content).map((media: Json) => media.schema.$ref);
    expect(new Set(schemas).size).toBe(1);
    const [grantOnly, withCredentials] = deref(doc, content['application/json'].schema).oneOf.map((s: Json) =>
      deref(doc, s),
    );
    expect(grantOnly.required).toEqual(['grant_type']);
    expect(grantOnly.not.anyOf.map((s: Json) => s.required)).toEqual([['client_id'], ['client_secret']]);
    expect(withCredentials.required.sort()).toEqual(['client_id', 'client_secret', 'grant_type']);
    expect(Object.keys(content['application/x-www-form-urlencoded'].examples).sort()).toEqual([
      'basicHeader',
      'formFields',
    ]);
    const form = withCredentials;
    expect(deref(doc, form.properties.grant_type).const).toBe('client_credentials');
    // Basic header is optional: credentials may come in the body instead.
    expect(op.security).toEqual([{ ClientSecretBasic: [] }, {}]);
    expect(doc.components.securitySchemes.ClientSecretBasic).toMatchObject({ type: 'http', scheme: 'basic' });
  });

  test('answers access_token, token_type bearer and expires_in', () => {
    const schema = deref(doc, op.responses['200'].content['application/json'].schema);
    expect(schema.required.sort()).toEqual(['access_token', 'expires_in', 'token_type']);
    expect(schema.properties.access_token.type).toBe('string');
    expect(schema.properties.token_type.enum).toEqual(['bearer']);
    expect(schema.properties.expires_in.type).toBe('integer');
    const example = deref(doc, op.responses['200'].content['application/json'].examples.token);
    expect(example.value).toMatchObject({ token_type: 'bearer', expires_in: 3600 });
  });

  test('errors follow RFC 6749 section 5.2, with WWW-Authenticate on 401, and a 500 is a server_error', () => {
    expect(Object.keys(op.responses).sort()).toEqual(['200', '400', '401', '500']);
    for (const status of ['400', '401']) {
      const schema = deref(doc, op.responses[status].content['application/json'].schema);
      expect(schema.required).toEqual(['error']);
      expect(schema.properties.error.enum.sort()).toEqual([
        'invalid_client',
        'invalid_grant',
        'invalid_request',
        'invalid_scope',
        'unauthorized_client',
        'unsupported_grant_type',
      ]);
      expect(schema.properties.error_description.type).toBe('string');
    }
    expect(deref(doc, op.responses['401'].headers['WWW-Authenticate']).required).toBe(true);
    // A failure to issue a token is OAuth's server_error, not an error body of another API.
    const serverError = deref(doc, op.responses['500'].content['application/json'].schema);
    expect([serverError.required, serverError.properties.error.enum]).toEqual([['error'], ['server_error']]);
  });

  test('{auth_url} is a server variable documenting every region', () => {
    expect(doc.servers).toHaveLength(1);
    expect(doc.servers[0].url).toBe('{auth_url}');
    const variable = doc.servers[0].variables.auth_url;
    expect(variable.default).toBe('http://127.0.0.1:4010');
    const regions = variable['x-documented-values'].map((v: Json) => v.region);
    expect(regions).toEqual([
      'us',
      'eu',
      'jp',
      'sg',
      'au',
      'il',
      'cn',
      'kr',
      'uk',
      'self-service-and-sandbox',
      'custom-domain',
    ]);
  });
});
