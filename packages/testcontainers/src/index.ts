// A Testcontainers module for the emulator's image (`npm run image` builds platform-api-mock:dev): tests in
// any Node project start the platform in a container and get its URL, credentials and ready-made clients.
import { randomBytes } from 'node:crypto';
import {
  type Auth,
  clientCredentials,
  createEventStreamsClient,
  createManagementClient,
  createTokenClient,
  type EventStreamsClient,
  type EventStreamsClientOptions,
  type ManagementClient,
  type ManagementClientOptions,
  type ThrowingManagementClient,
  type TokenClient,
} from '@platform-api/client';
import { Emulator, type EmulatorWorkspace, type WorkspaceOptions } from '@platform-api/mock-server/testkit/emulator';
import {
  AbstractStartedContainer,
  GenericContainer,
  type StartedTestContainer,
  type StopOptions,
  type StoppedTestContainer,
  Wait,
} from 'testcontainers';

export type { Emulator, EmulatorWorkspace, WorkspaceOptions } from '@platform-api/mock-server/testkit/emulator';

/** The image `npm run image` builds. */
export const PLATFORM_EMULATOR_IMAGE = 'platform-api-mock:dev';
/** The port the image's emulator listens on. */
export const PLATFORM_EMULATOR_PORT = 4010;
/**
 * How long stop() lets the emulator drain after SIGTERM (it exits within 4 s) before the engine kills it;
 * testcontainers' own default, 0, kills at once, which a data dir survives but a waiting consumer does not.
 */
const STOP_GRACE_MS = 10_000;

/** A client's options without those the container fills in (the address and the credentials). */
type Filled<Options> = Omit<Options, 'baseUrl' | 'dataCenter' | 'auth'>;

/**
 * The platform emulator in a container: `await new PlatformEmulatorContainer().start()`. Started, it
 * answers on a free port of the host; `getUrl()`, `getClientId()`, `getClientSecret()` and the client
 * factories of the started container reach it. Every GenericContainer setting applies, and
 * `withEmulatorFlags('--max-batch-size', '10')` passes platform-api-mock's flags.
 */
export class PlatformEmulatorContainer extends GenericContainer {
  private clientId = 'testcontainers';
  // A fresh secret per container, unless the test chooses one.
  private clientSecret = randomBytes(18).toString('base64url');
  // The container listens beyond its loopback, where the fleet-level emulator API (workspaces) needs an
  // admin token: one chosen here, so that the handle knows it without reading the banner.
  private readonly adminToken = randomBytes(18).toString('base64url');
  private flags: string[] = [];

  constructor(image = PLATFORM_EMULATOR_IMAGE) {
    super(image);
    this.withExposedPorts(PLATFORM_EMULATOR_PORT)
      // The docs page answers once the emulator listens (its HEALTHCHECK needs systemd under podman).
      .withWaitStrategy(Wait.forHttp('/docs/', PLATFORM_EMULATOR_PORT).forStatusCode(200))
      .withStartupTimeout(60_000);
  }

  /** The bootstrap API key's credentials (every right). Default: client ID `testcontainers`, a random secret. */
  withCredentials(clientId: string, clientSecret: string): this {
    this.clientId = clientId;
    this.clientSecret = clientSecret;
    return this;
  }

  /** Flags of platform-api-mock (see its --help), e.g. `withEmulatorFlags('--rate-limit', '60')`. */
  withEmulatorFlags(...flags: string[]): this {
    this.flags.push(...flags);
    return this;
  }

  override async start(): Promise<StartedPlatformEmulatorContainer> {
    // The secret goes through the environment, not the command line that `ps` and `inspect` show.
    this.withEnvironment({
      PLATFORM_API_MOCK_CLIENT_ID: this.clientId,
      PLATFORM_API_MOCK_CLIENT_SECRET: this.clientSecret,
      PLATFORM_API_MOCK_ADMIN_TOKEN: this.adminToken,
    });
    if (this.flags.length > 0) this.withCommand(this.flags);
    const credentials = { clientId: this.clientId, clientSecret: this.clientSecret, adminToken: this.adminToken };
    return new StartedPlatformEmulatorContainer(await super.start(), credentials);
  }
}

export class StartedPlatformEmulatorContainer extends AbstractStartedContainer {
  /** One token provider for every client made here: one token, renewed before it expires. */
  readonly auth: Auth;

  private readonly clientId: string;
  private readonly clientSecret: string;
  private readonly adminToken: string;

  constructor(
    started: StartedTestContainer,
    credentials: { clientId: string; clientSecret: string; adminToken: string },
  ) {
    super(started);
    ({ clientId: this.clientId, clientSecret: this.clientSecret, adminToken: this.adminToken } = credentials);
    this.auth = clientCredentials({ authUrl: this.getUrl(), clientId: this.clientId, clientSecret: this.clientSecret });
  }

  /** Stops the container with SIGTERM, the emulator draining first (`timeout`: ms before SIGKILL, default 10 s). */
  override stop(options: Partial<StopOptions> = {}): Promise<StoppedTestContainer> {
    return super.stop({ timeout: STOP_GRACE_MS, ...options });
  }

  /** The emulator's address from the host, e.g. `http://localhost:32771`: the base URL of every API. */
  getUrl(): string {
    return `http://${this.getHost()}:${this.getMappedPort(PLATFORM_EMULATOR_PORT)}`;
  }

  getClientId(): string {
    return this.clientId;
  }

  getClientSecret(): string {
    return this.clientSecret;
  }

  /** The token the fleet-level emulator API (workspaces, another tenant's state) needs: `Authorization: Bearer <token>`. */
  getAdminToken(): string {
    return this.adminToken;
  }

  /** The event-streams client of @platform-api/client, signed in with the container's credentials. */
  createEventStreamsClient(options: Filled<EventStreamsClientOptions> = {}): EventStreamsClient {
    return createEventStreamsClient({ ...options, baseUrl: this.getUrl(), auth: this.auth });
  }

  /** The management client of @platform-api/client, signed in with the container's credentials. */
  createManagementClient(options: Filled<ManagementClientOptions> & { throwOnError: true }): ThrowingManagementClient;
  createManagementClient(options?: Filled<ManagementClientOptions>): ManagementClient;
  createManagementClient(options: Filled<ManagementClientOptions> = {}): ManagementClient | ThrowingManagementClient {
    return createManagementClient({ ...options, baseUrl: this.getUrl(), auth: this.auth });
  }

  /** The token endpoint's client, for tests of the OAuth flow itself. */
  createTokenClient(): TokenClient {
    return createTokenClient({ baseUrl: this.getUrl() });
  }

  /**
   * The test kit's handle on this emulator (`@platform-api/mock-server/testkit`): the request journal
   * (`requests()`, `verify()`, `expectRequest()` with the closest requests in its failure), the clock,
   * faults, and `api`, the typed client of the emulator API.
   */
  emulator(): Emulator {
    const { clientId, clientSecret, adminToken } = this;
    return new Emulator({ url: this.getUrl(), clientId, clientSecret, adminToken });
  }

  /**
   * A new workspace in this container (`emulator().workspace()`, with the admin token): its own
   * bootstrap credentials, state, journal, faults and clock. A test file takes one of its own, so that
   * files share one container in parallel; `delete()` frees it.
   */
  workspace(options?: WorkspaceOptions): Promise<EmulatorWorkspace> {
    return this.emulator().workspace(options);
  }

  /**
   * A fresh emulator (POST /_emulator/reset), without a restart: empty state, the bootstrap key as at
   * start, no faults, an empty journal, real time.
   */
  reset(): Promise<void> {
    return this.emulator().reset();
  }
}
