/**
 * Test harness: starts real Rookery instances on a real database.
 *
 * The database is chosen by the environment of the test run:
 * - TEST_DATABASE_URL unset: each instance gets its own PGlite database
 *   (in memory, or under a temporary data directory when asked).
 * - TEST_DATABASE_URL=postgres://…/postgres: each instance gets a fresh
 *   database created on that server and dropped afterwards.
 *
 * Instances can listen on a loopback port, over TLS with the test CA in
 * tests/fixtures/tls (the test task passes `--cert` for it), so that two
 * instances federate with real signed HTTP and WebFinger over https.
 */
import { loadConfig } from "../config.ts";
import { createRookery, type Rookery } from "../rookery.ts";
import { startAdminSocket } from "../admin/socket.ts";
import postgres from "postgres";
import { dumpTemplate, openDatabase } from "../db/connection.ts";

let pgliteTemplate: Promise<Blob> | null = null;

/** A migrated PGlite database, made once per test process and copied per instance. */
function migratedTemplate(): Promise<Blob> {
  pgliteTemplate ??= (async () => {
    const db = await openDatabase({ databaseUrl: null, pgliteDir: "memory://" });
    const blob = await dumpTemplate(db);
    await db.close();
    return blob;
  })();
  return pgliteTemplate;
}

export const TEST_DATABASE_URL = Deno.env.get("TEST_DATABASE_URL") || null;
export const DB_KIND = TEST_DATABASE_URL ? "postgres" : "pglite";

const TLS_DIR = new URL("./fixtures/tls/", import.meta.url);

type TestFn = (t: Deno.TestContext) => Promise<void> | void;

/** What a test may say besides its name and body. */
export interface TestOptions {
  /**
   * Reported as ignored (with its name) instead of run: a test that cannot
   * run on this database says so, e.g. `{ ignore: DB_KIND !== "postgres" }`
   * for one that needs several processes on one database.
   */
  ignore?: boolean;
}

/** Deno.test with the sanitizers off: database drivers keep pools and timers. */
export function test(name: string, fn: TestFn): void;
export function test(name: string, options: TestOptions, fn: TestFn): void;
export function test(name: string, second: TestOptions | TestFn, third?: TestFn): void {
  const [options, fn] = typeof second === "function" ? [{}, second] : [second, third!];
  Deno.test({
    name: `[${DB_KIND}] ${name}`,
    fn,
    ignore: options.ignore ?? false,
    sanitizeOps: false,
    sanitizeResources: false,
  });
}

/** Options of a test (or `t.step`) that only PostgreSQL can run (several processes, locks held from outside). */
export const POSTGRES_ONLY: TestOptions = { ignore: DB_KIND !== "postgres" };

/** Options of a test (or `t.step`) that only the embedded database can run. */
export const PGLITE_ONLY: TestOptions = { ignore: DB_KIND !== "pglite" };

/**
 * Runs `close` once every test of the file has run (passed, failed or
 * filtered out): the teardown of servers a file shares between its tests,
 * which is not a test of its own. A failure in it fails the run.
 */
export function afterAll(close: () => Promise<void> | void): void {
  Deno.test.afterAll(close);
}

/** Creates a fresh, empty database and returns its URL (PostgreSQL runs only). */
export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  if (!TEST_DATABASE_URL) throw new Error("createTestDatabase needs TEST_DATABASE_URL");
  const name = `rookery_test_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const admin = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const a = postgres(TEST_DATABASE_URL!, { max: 1, onnotice: () => {} });
      await a.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}

export interface InstanceOptions {
  /** Sees every request the listening server receives (clone it to read the body). */
  onRequest?: (request: Request) => void;
  /** Extra environment for loadConfig (ORIGIN and PORT are set by the harness). */
  env?: Record<string, string>;
  /** Serve on a loopback port (needed for federation between instances). */
  listen?: boolean;
  /** Serve over TLS with the test certificate (implies listen). */
  tls?: boolean;
  /**
   * The public origin, when something in front of the instance serves it (a
   * TLS-terminating reverse proxy: tests/fixtures/proxy.ts). Implies listen:
   * the instance itself listens over plain http at `listenOrigin`.
   */
  origin?: string;
  /**
   * The name in the origin (default localhost); 127.0.0.1 gives handles such
   * as `bella@127.0.0.1:4001` (plain-http federation tests use both).
   */
  originHost?: "localhost" | "127.0.0.1";
  /** Listen on this loopback port (default: any free one); a restart keeps its origin. */
  port?: number;
  /** Keep data here (PGlite files, keys); default: a fresh temporary directory. */
  dataDir?: string;
  /** Reuse a PostgreSQL database URL (for restart tests); default: a fresh one. */
  databaseUrl?: string;
  /** Run the queue worker (default true). */
  worker?: boolean;
  /** Serve the admin socket under dataDir, as main.ts does (default false). */
  adminSocket?: boolean;
  /** PGlite in memory instead of files (default true unless dataDir is given). */
  memory?: boolean;
}

export interface TestInstance {
  readonly rookery: Rookery;
  readonly origin: string;
  /**
   * Where the instance's own server listens: its origin, unless a proxy is in
   * front (`origin` option); null when it does not listen.
   */
  readonly listenOrigin: string | null;
  /** Host with port: the account domain. */
  readonly domain: string;
  readonly dataDir: string;
  readonly databaseUrl: string | null;
  /** Sends a request to the instance; `path` may be relative to the origin. */
  request(path: string, init?: RequestInit): Promise<Response>;
  /** Stops the instance; keeps its data unless `destroy` is true. */
  close(options?: { destroy?: boolean }): Promise<void>;
}

/** Starts an instance. Close it (with destroy) at the end of the test. */
export async function startInstance(options: InstanceOptions = {}): Promise<TestInstance> {
  const listen = options.listen || options.tls || options.origin != null;
  const dataDir = options.dataDir ?? await Deno.makeTempDir({ prefix: "rookery-test-" });
  let database: { url: string; drop(): Promise<void> } | null = null;
  let databaseUrl = options.databaseUrl ?? null;
  if (TEST_DATABASE_URL && !databaseUrl) {
    database = await createTestDatabase();
    databaseUrl = database.url;
  }

  let rookery: Rookery | null = null;
  let server: Deno.HttpServer | null = null;
  let port = 0;
  if (listen) {
    const handler = (req: Request, info: Deno.ServeHandlerInfo) => {
      options.onRequest?.(req);
      return rookery ? rookery.fetch(req, info) : new Response("starting", { status: 503 });
    };
    const { promise, resolve } = Promise.withResolvers<number>();
    const common = {
      port: options.port ?? 0,
      hostname: "127.0.0.1",
      onListen: ({ port }: { port: number }) => resolve(port),
    };
    server = options.tls
      ? Deno.serve({
        ...common,
        cert: await Deno.readTextFile(new URL("server.pem", TLS_DIR)),
        key: await Deno.readTextFile(new URL("server.key", TLS_DIR)),
      }, handler)
      : Deno.serve(common, handler);
    port = await promise;
  }
  const scheme = options.tls ? "https" : "http";
  const host = options.originHost ?? "localhost";
  const listenOrigin = listen ? `${scheme}://${host}:${port}` : null;
  const origin = options.origin ?? listenOrigin ?? `http://${host}:8080`;
  const useMemory = options.memory ?? (options.dataDir == null);
  const config = loadConfig({
    PORT: String(port || 8080),
    ORIGIN: origin,
    DATA_DIR: dataDir,
    RATE_LIMITS: "off",
    ALLOW_PRIVATE_ADDRESS: "true",
    // Instances on a loaded test machine can take longer than production's
    // 10 s to answer each other; the deadline tests set it back to 10.
    FETCH_TIMEOUT: "30",
    // The same for the fetch budget of an inbound activity (10 s in production).
    FETCH_BUDGET_SECONDS: "60",
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...options.env,
  });
  if (useMemory && !config.databaseUrl) {
    (config as { dataDir: string }).dataDir = dataDir;
  }
  const memoryDb = useMemory && !config.databaseUrl;
  rookery = await createRookery(config, {
    pgliteDir: memoryDb ? "memory://" : undefined,
    pgliteTemplate: memoryDb ? await migratedTemplate() : undefined,
  });
  // Tests never ask the outside DNS: every e-mail domain has an address and
  // no MX hosts, unless a test injects its own resolver
  // (tests/moderation/email_mx_test.ts, tests/accounts/email_domain_test.ts).
  rookery.ctx.resolveEmailDns = (_name, type) => Promise.resolve(type === "A" ? ["192.0.2.1"] : []);
  if (options.worker !== false) rookery.startWorker();
  const adminSocket = options.adminSocket ? await startAdminSocket(rookery.ctx) : null;
  const instance: TestInstance = {
    rookery,
    origin,
    listenOrigin,
    domain: new URL(origin).host,
    dataDir,
    databaseUrl,
    request(path, init) {
      const url = new URL(path, origin);
      if (server) return fetch(url, init);
      const info = {
        remoteAddr: { transport: "tcp", hostname: "127.0.0.1", port: 40000 },
        completed: Promise.resolve(),
      } as Deno.ServeHandlerInfo;
      return rookery!.fetch(new Request(url, init), info);
    },
    async close(closeOptions = {}) {
      await adminSocket?.close();
      await rookery!.closeStreams();
      await server?.shutdown();
      await rookery!.close();
      if (closeOptions.destroy) {
        await database?.drop();
        if (!options.dataDir) await Deno.remove(dataDir, { recursive: true }).catch(() => {});
      }
    },
  };
  return instance;
}

/** Reads a JSON response body, failing with the body text when it is not JSON. */
export async function json<T = any>(res: Response): Promise<T> {
  const text = await res.text();
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new Error(`Expected JSON from ${res.url || "response"} (${res.status}), got: ${text}`);
  }
}
