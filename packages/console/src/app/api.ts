// The console's only way to the emulator: the typed client of the emulator API (/_emulator/*), on the
// page's own origin. Nothing here talks to the platform's APIs, so the console leaves no journal entry.
import { createEmulatorClient, type EmulatorApi } from '@platform-api/client';

export type Schemas = EmulatorApi.components['schemas'];
export type JournalEntry = Schemas['JournalEntry'];
export type Topic = Schemas['TopicList']['topics'][number];
export type TopicMessage = Schemas['TopicMessage'];
export type ResourceType = Schemas['ResourceTypeList']['types'][number];
export type ResourceItem = Schemas['ResourceItem'];
export type FormField = Schemas['FormField'];
export type FaultRequest = Schemas['FaultRequest'];
export type Violation = NonNullable<Schemas['EmulatorError']['errors']>[number];

export const api = createEmulatorClient({ baseUrl: location.origin });

const ADMIN_TOKEN_KEY = 'platform-api-mock admin token';

/**
 * The emulator's admin token, which its fleet-level calls need once it listens beyond loopback: asked
 * for once, then kept for this tab only (sessionStorage, gone with the tab; never localStorage, never
 * in a URL) and sent on every call of the emulator API.
 */
export const adminToken = {
  get: (): string | null => sessionStorage.getItem(ADMIN_TOKEN_KEY),
  set: (token: string): void => sessionStorage.setItem(ADMIN_TOKEN_KEY, token),
};

/** Told when the emulator asks for its admin token; `sent`: one was sent, and refused. */
let adminTokenRefused: ((sent: boolean) => void) | undefined;

export function whenAdminTokenRefused(listener: (sent: boolean) => void): void {
  adminTokenRefused = listener;
}

api.use({
  onRequest({ request }) {
    const token = adminToken.get();
    if (token) request.headers.set('authorization', `Bearer ${token}`);
    return request;
  },
  onResponse({ request, response }) {
    // Its 401 names the scheme (WWW-Authenticate: Bearer): the admin token, not a failure of the call.
    if (response.status === 401 && /^bearer\b/i.test(response.headers.get('www-authenticate') ?? ''))
      adminTokenRefused?.(request.headers.has('authorization'));
    return response;
  },
});

/** A refusal of the emulator API: its message, and the violations by JSON pointer. */
export class ApiFailure extends Error {
  constructor(
    message: string,
    readonly violations: Violation[] = [],
  ) {
    super(message);
  }
}

/** The data of a call's success; its EmulatorError (or the status, for another body) as an ApiFailure. */
export async function must<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (response.ok) return data as T;
  const refusal = error as Partial<Schemas['EmulatorError']> | undefined;
  throw new ApiFailure(refusal?.message ?? `${response.status} ${response.statusText}`, refusal?.errors ?? []);
}

/** Where a Server-Sent Events feed of the emulator API is, with its query. */
export function feedUrl(path: string, query: Record<string, string | undefined> = {}): string {
  const url = new URL(path, location.origin);
  for (const [name, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(name, value);
  return url.href;
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
