/**
 * A table-driven check of the scope middleware for any route: declare what
 * the route needs, and {@link assertScopeMatrix} sends it every kind of
 * token and asserts Mastodon's answers. Later route groups add their rows:
 *
 * ```ts
 * const fixtures = await scopeFixtures(instance);
 * await assertScopeMatrix(t, (path, init) => instance.request(path, init), fixtures, [
 *   { method: "GET", path: "/api/v1/accounts/verify_credentials", kind: "user",
 *     scopes: ["read:accounts", "profile"] },
 * ]);
 * ```
 *
 * A request "passes" the middleware when its answer is not one of the token
 * errors; what the handler then says (200, 404, 422 for a missing
 * parameter…) is the route's own business and not checked here, but a 5xx
 * is never an answer: a refusal is exactly the 401/403 (422 for an app
 * token on a user route) Mastodon sends, and a crash is no refusal.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { createAccessToken, createApplication } from "../../actors/oauth/tokens.ts";
import { ALL_SCOPES, scopesAllow, TOP_LEVEL_SCOPES } from "../../model/scopes.ts";
import { LOGIN_REFUSALS } from "../../actors/auth/sessions.ts";
import { oauthAccessTokens } from "../../db/schema/mod.ts";
import type { TestInstance } from "../harness.ts";
import { createUser, type UserState } from "./helpers.ts";

/** One route and what it declares. */
export interface ScopeRow {
  method: string;
  path: string;
  /** As declared with requireScopes (token), requireApp (app) or requireUser (user). */
  kind: "token" | "app" | "user";
  /** The declared scopes (any one suffices); empty means any token. */
  scopes: string[];
  /** Extra request options (a body, a content type). */
  init?: RequestInit;
}

/** Who a test token belongs to. */
export type Holder = UserState | "app" | "appless";

/** Tokens on demand, for every holder and scope set, on one instance. */
export interface ScopeFixtures {
  token(holder: Holder, scopes: string[]): Promise<string>;
  /** A token of a good user with every scope, revoked. */
  revoked: string;
}

/** Creates the users and the application the matrix needs (four users, one app). */
export async function scopeFixtures(instance: TestInstance): Promise<ScopeFixtures> {
  const db = instance.rookery.ctx.database.db;
  const prefix = `m${crypto.randomUUID().slice(0, 6)}`;
  const holders: Record<UserState, string> = {
    ok: (await createUser(instance, `${prefix}_ok`)).userId,
    unconfirmed: (await createUser(instance, `${prefix}_unconfirmed`, "unconfirmed")).userId,
    pending: (await createUser(instance, `${prefix}_pending`, "pending")).userId,
    disabled: (await createUser(instance, `${prefix}_disabled`, "disabled")).userId,
  };
  const { application } = await createApplication(db, {
    name: "scope matrix",
    redirectUris: ["urn:ietf:wg:oauth:2.0:oob"],
    scopes: [...ALL_SCOPES],
  });
  const cache = new Map<string, string>();
  const token = async (holder: Holder, scopes: string[]) => {
    const key = `${holder}:${scopes.join(" ")}`;
    let value = cache.get(key);
    if (!value) {
      const userId = holder === "app" || holder === "appless" ? null : holders[holder];
      value = (await createAccessToken(db, {
        applicationId: holder === "appless" ? null : application.id,
        userId,
        scopes,
      })).token;
      cache.set(key, value);
    }
    return value;
  };
  const revoked = await createAccessToken(db, {
    applicationId: application.id,
    userId: holders.ok,
    scopes: [...ALL_SCOPES],
  });
  await db.update(oauthAccessTokens).set({ revokedAt: new Date() })
    .where(eq(oauthAccessTokens.id, revoked.row.id));
  return { token, revoked: revoked.token };
}

/** Sends a request (in-process or over HTTP). */
export type Send = (path: string, init: RequestInit) => Promise<Response>;

const TOKEN_ERRORS = new Set<string>([
  "The access token is invalid",
  "This action is outside the authorized scopes",
  "This method requires an authenticated user",
  ...Object.values(LOGIN_REFUSALS),
]);

async function errorOf(res: Response): Promise<string | null> {
  try {
    const body = await res.clone().json();
    return typeof body?.error === "string" ? body.error : null;
  } catch {
    return null;
  }
}

/** Asserts that the middleware let the request through and the handler answered. */
async function assertPasses(res: Response, label: string): Promise<void> {
  const error = await errorOf(res);
  assert.ok(
    !([401, 403, 422].includes(res.status) && error && TOKEN_ERRORS.has(error)) &&
      res.status !== 401 && res.status < 500,
    `${label}: expected the middleware to pass and the route to answer, got ${res.status} ${error}`,
  );
}

async function assertError(
  res: Response,
  status: number,
  message: string,
  label: string,
): Promise<void> {
  const error = await errorOf(res);
  assert.equal(res.status, status, `${label}: status (${error})`);
  assert.equal(error, message, `${label}: error`);
}

/** The top-level scopes that cover a scope (read ⊃ read:x, follow ⊃ write:follows…). */
export function parentScopes(scope: string): string[] {
  return TOP_LEVEL_SCOPES.filter((g) => g !== scope && scopesAllow([g], [scope]));
}

/** A scope that covers none of `scopes`. */
export function lackingScope(scopes: readonly string[]): string {
  const lacking = ALL_SCOPES.find((s) => !scopesAllow([s], scopes));
  assert.ok(lacking, `every scope covers ${scopes.join(" ")}`);
  return lacking;
}

/** Runs the whole matrix for each row, one test step per row. */
export async function assertScopeMatrix(
  t: Deno.TestContext,
  send: Send,
  fixtures: ScopeFixtures,
  rows: ScopeRow[],
): Promise<void> {
  for (const row of rows) {
    const name = `${row.method} ${row.path} (${row.kind}${
      row.scopes.length ? `: ${row.scopes.join(" | ")}` : ""
    })`;
    await t.step(name, async () => {
      const call = (token: string | null) => {
        const headers = new Headers(row.init?.headers);
        if (token) headers.set("authorization", `Bearer ${token}`);
        return send(row.path, { ...row.init, method: row.method, headers });
      };
      const invalid = "The access token is invalid";
      const missing = await call(null);
      await assertError(missing, 401, invalid, "no token");
      assert.match(missing.headers.get("www-authenticate") ?? "", /^Bearer .*invalid_token/);
      await assertError(await call("not-a-token"), 401, invalid, "unknown token");
      await assertError(await call(fixtures.revoked), 401, invalid, "revoked token");

      const granted = row.scopes.length ? row.scopes : ["read"];
      if (row.scopes.length) {
        const lacking = lackingScope(row.scopes);
        const res = await call(await fixtures.token("ok", [lacking]));
        await assertError(
          res,
          403,
          "This action is outside the authorized scopes",
          `scope ${lacking}`,
        );
        assert.match(res.headers.get("www-authenticate") ?? "", /insufficient_scope/);
      }
      for (const scope of granted) {
        await assertPasses(await call(await fixtures.token("ok", [scope])), `scope ${scope}`);
        for (const parent of parentScopes(scope)) {
          await assertPasses(
            await call(await fixtures.token("ok", [parent])),
            `parent ${parent} of ${scope}`,
          );
        }
      }

      const appToken = await fixtures.token("app", [granted[0]]);
      if (row.kind === "user") {
        await assertError(
          await call(appToken),
          422,
          "This method requires an authenticated user",
          "app token",
        );
        for (const state of ["unconfirmed", "pending", "disabled"] as const) {
          await assertError(
            await call(await fixtures.token(state, [granted[0]])),
            403,
            LOGIN_REFUSALS[state],
            `${state} user`,
          );
        }
      } else {
        await assertPasses(await call(appToken), "app token");
      }
      if (row.kind === "app") {
        await assertError(
          await call(await fixtures.token("appless", [granted[0]])),
          401,
          invalid,
          "token without an application",
        );
      }
    });
  }
}
