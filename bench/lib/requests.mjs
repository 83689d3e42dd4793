// The bench's own requests to an emulator over HTTP, each answer checked: a body given as an object is
// sent as JSON, a URLSearchParams as a form; a bearer token when given. The parsed answer, or an error
// naming the status and the answer.
export async function call(url, method, path, { body, token, expect = [200, 201, 204] } = {}) {
  const form = body instanceof URLSearchParams;
  const headers = {
    ...(token ? { authorization: `Bearer ${token}` } : {}),
    ...(body !== undefined && !form ? { 'content-type': 'application/json' } : {}),
  };
  const sent = body === undefined || form ? body : JSON.stringify(body);
  const response = await fetch(`${url}${path}`, { method, headers, body: sent });
  const text = await response.text();
  if (![expect].flat().includes(response.status))
    throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
  return text ? JSON.parse(text) : undefined;
}
