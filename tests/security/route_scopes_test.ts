/**
 * Walks every route of the app's own router (`rookery.routes`, read at run
 * time, so a new route is covered the day it is added) and asserts the scope
 * promises of docs/security.md:
 * - every write route under /api/ (POST, PUT, PATCH, DELETE) refuses a token
 *   that holds every read scope and nothing else;
 * - every /api/v1/admin/ and /api/v2/admin/ route refuses an admin's token
 *   without the admin scopes, an admin write route a token without
 *   `admin:write`, an admin read route one without `admin:read`;
 * - every GET under /api/ that needs a token refuses one without any read
 *   scope (`write` only);
 * - the routes Mastodon guards with the top-level `read` refuse a token
 *   holding every `read:*` scope but not `read` itself.
 * A refusal is exactly Mastodon's: 403 "This action is outside the authorized
 * scopes" (the streaming channels answer as Mastodon's streaming server: 401
 * "Access token does not have the required scopes"). The exemptions are the
 * routes Mastodon itself guards otherwise, each with its reason.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { startInstance, test, type TestInstance } from "../harness.ts";
import { createAccount, createToken } from "../fixtures/users.ts";
import { users } from "../../db/schema/mod.ts";
import { SCOPE_ERRORS } from "../../api/middleware/scopes.ts";
import { STREAM_ERRORS } from "../../api/streaming/streams.ts";
import { ALL_SCOPES } from "../../model/scopes.ts";

/** Write routes Mastodon does not guard with a write scope. */
const WRITE_EXEMPT: Record<string, string> = {
  "POST /api/v1/apps": "public: registering an application needs no token",
  "POST /api/v1/accounts/:account_id{[0-9]+}/email_subscriptions":
    "public: a visitor subscribes by e-mail, no token needed (Mastodon 4.7)",
  "POST /api/v1/statuses/:id{[0-9]+}/translate":
    "read:statuses: translating reads a status and changes nothing",
};

/** Admin routes written as POST that only read (Mastodon asks for admin:read). */
const ADMIN_READS_BY_POST: Record<string, string> = {
  "POST /api/v1/admin/measures": "dashboard figures for a period",
  "POST /api/v1/admin/dimensions": "dashboard breakdowns",
  "POST /api/v1/admin/retention": "dashboard cohorts",
  "POST /api/v1/admin/canonical_email_blocks/test": "lists the blocks an address matches",
};

/** GET routes that need a token but no read scope in Mastodon. */
const READ_EXEMPT: Record<string, string> = {
  "GET /api/v1/apps/verify_credentials": "any valid token: an app checks its own credentials",
  "GET /api/v1/media/:id": "write:media: a client polls the processing of its own upload",
  "GET /api/v1/domain_blocks/preview": "write:blocks: asked right before blocking a domain",
  "GET /api/v1/donation_campaigns": "any user token: Mastodon requires a user and no scope",
};

/** GET routes Mastodon guards with the top-level `read`: no `read:*` scope is enough. */
const TOP_LEVEL_READ: Record<string, string> = {
  "GET /api/v1_alpha/async_refreshes/:id": "Mastodon's doorkeeper_authorize! :read",
};
/** Every `read:*` scope, and not `read` itself. */
const NARROW_READS = ALL_SCOPES.filter((scope) => scope.startsWith("read:"));

const WRITE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
/** The strongest tokens without, in turn, any write, any read, any admin scope. */
const READ_ONLY = ["read", "profile"];
const WRITE_ONLY = ["write"];
const NOT_ADMIN = ["read", "write", "follow", "push", "profile"];

/** A route as registered (`pattern`) and a path that reaches it. */
interface Route {
  method: string;
  pattern: string;
  path: string;
}

function key(route: Route): string {
  return `${route.method} ${route.pattern}`;
}

/**
 * A concrete path for a pattern: every parameter becomes `1` (which every
 * parameter's pattern of ours accepts), the one wildcard under /api/ (the
 * streaming channels) `user`.
 */
function samplePath(pattern: string): string {
  return pattern.replace(/:[A-Za-z_]+(\{[^}]*\})?/g, "1").replace(/\*$/, "user");
}

/** The API endpoints of the router, one per method and pattern (middleware left out). */
function apiRoutes(instance: TestInstance): Route[] {
  const seen = new Map<string, Route>();
  for (const { method, path } of instance.rookery.routes) {
    if (method === "ALL" || !path.startsWith("/api/")) continue;
    const route = { method, pattern: path, path: samplePath(path) };
    seen.set(key(route), route);
  }
  return [...seen.values()];
}

function isAdmin(route: Route): boolean {
  return /^\/api\/v[12]\/admin\//.test(route.pattern);
}

/** The refusal Mastodon answers a token missing the route's scope with. */
function expectedRefusal(route: Route): { status: number; error: string } {
  return route.pattern.startsWith("/api/v1/streaming/")
    ? { status: 401, error: STREAM_ERRORS.scopes }
    : { status: 403, error: SCOPE_ERRORS.outsideScopes };
}

async function send(instance: TestInstance, route: Route, token: string | null) {
  const headers = new Headers();
  if (token) headers.set("authorization", `Bearer ${token}`);
  const res = await instance.request(route.path, { method: route.method, headers });
  // An event stream that opened would never end: read only JSON answers.
  let error: unknown = null;
  if (res.headers.get("content-type")?.includes("json")) {
    error = (await res.json().catch(() => null))?.error ?? null;
  } else await res.body?.cancel();
  return { status: res.status, error };
}

/** The routes among `routes` that do not refuse `token`, described for the failure message. */
async function notRefusing(
  instance: TestInstance,
  routes: Route[],
  token: string,
): Promise<string[]> {
  const failures: string[] = [];
  for (const route of routes) {
    const expected = expectedRefusal(route);
    const got = await send(instance, route, token);
    if (got.status !== expected.status || got.error !== expected.error) {
      failures.push(`${key(route)} → ${got.status} ${JSON.stringify(got.error)}`);
    }
  }
  return failures;
}

async function adminToken(instance: TestInstance, name: string, scopes: string[]) {
  const account = await createAccount(instance, name);
  await instance.rookery.ctx.database.db.update(users).set({ role: "owner" })
    .where(eq(users.id, account.userId));
  return await createToken(instance, account.userId, scopes);
}

function assertExemptionsExist(routes: Route[], ...lists: Record<string, string>[]): void {
  const known = new Set(routes.map(key));
  for (const list of lists) {
    for (const exempt of Object.keys(list)) {
      assert.ok(known.has(exempt), `exemption of a route that does not exist: ${exempt}`);
    }
  }
}

test("route walk: every API route refuses a token without its kind of scope", async (t) => {
  const instance = await startInstance({ worker: false });
  try {
    const routes = apiRoutes(instance);
    // The walk must see the router, not an empty list.
    for (const expected of ["POST /api/v1/statuses", "DELETE /api/v1/suggestions/:account_id"]) {
      assert.ok(routes.some((r) => key(r) === expected), `the walk misses ${expected}`);
    }
    assertExemptionsExist(routes, WRITE_EXEMPT, ADMIN_READS_BY_POST, READ_EXEMPT, TOP_LEVEL_READ);
    // An owner holds every permission, so a refusal can only be the scope's.
    const token = (scopes: string[]) =>
      adminToken(instance, `o${crypto.randomUUID().slice(0, 8)}`, scopes);
    const writes = routes.filter((r) => WRITE_METHODS.has(r.method));

    await t.step("write routes refuse a read-only token", async () => {
      const walked = writes.filter((r) => !(key(r) in WRITE_EXEMPT));
      assert.deepEqual(await notRefusing(instance, walked, await token(READ_ONLY)), []);
    });

    await t.step("admin routes refuse a token without the admin scopes", async () => {
      const admin = routes.filter(isAdmin);
      assert.deepEqual(await notRefusing(instance, admin, await token(NOT_ADMIN)), []);
      const adminWrites = admin.filter((r) =>
        WRITE_METHODS.has(r.method) && !(key(r) in ADMIN_READS_BY_POST)
      );
      const adminReads = admin.filter((r) => !adminWrites.includes(r));
      assert.deepEqual(
        await notRefusing(instance, adminWrites, await token([...NOT_ADMIN, "admin:read"])),
        [],
      );
      assert.deepEqual(
        await notRefusing(instance, adminReads, await token([...NOT_ADMIN, "admin:write"])),
        [],
      );
    });

    await t.step("GET routes that need a token refuse one without a read scope", async () => {
      const gets = routes.filter((r) => r.method === "GET" && !(key(r) in READ_EXEMPT));
      const needingToken: Route[] = [];
      for (const route of gets) {
        if ((await send(instance, route, null)).status === 401) needingToken.push(route);
      }
      assert.ok(needingToken.some((r) => r.pattern === "/api/v1/timelines/home"));
      assert.deepEqual(await notRefusing(instance, needingToken, await token(WRITE_ONLY)), []);
    });

    await t.step("routes guarded by the top-level read refuse every narrower read", async () => {
      const guarded = routes.filter((r) => key(r) in TOP_LEVEL_READ);
      assert.deepEqual(await notRefusing(instance, guarded, await token(NARROW_READS)), []);
      // And `read` opens them: the unknown id answers 404, past the scope check.
      for (const route of guarded) {
        assert.equal((await send(instance, route, await token(["read"]))).status, 404);
      }
    });
  } finally {
    await instance.close({ destroy: true });
  }
});
