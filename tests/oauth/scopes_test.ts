/**
 * The scope middleware: every route that needs a token today, and a
 * test-only app declaring the middleware in the ways later routes will.
 */
import assert from "node:assert/strict";
import { Hono } from "hono";
import type { ApiEnv } from "../../api/env.ts";
import { installErrorHandlers } from "../../api/errors.ts";
import { authenticate } from "../../api/middleware/auth.ts";
import { requireApp, requireScopes, requireUser } from "../../api/middleware/scopes.ts";
import { startInstance, test } from "../harness.ts";
import { assertScopeMatrix, lackingScope, parentScopes, scopeFixtures } from "./scope_matrix.ts";

test("Scopes: routes that exist now", async (t) => {
  const a = await startInstance({ worker: false });
  try {
    const fixtures = await scopeFixtures(a);
    await assertScopeMatrix(t, (path, init) => a.request(path, init), fixtures, [
      { method: "GET", path: "/api/v1/apps/verify_credentials", kind: "app", scopes: [] },
      { method: "GET", path: "/oauth/userinfo", kind: "user", scopes: ["profile"] },
      { method: "POST", path: "/oauth/userinfo", kind: "user", scopes: ["profile"] },
    ]);
  } finally {
    await a.close({ destroy: true });
  }
});

test("Scopes: declarations on a test-only app", async (t) => {
  const a = await startInstance({ worker: false });
  try {
    const app = new Hono<ApiEnv>();
    installErrorHandlers(app);
    app.use(async (c, next) => {
      c.set("ctx", a.rookery.ctx);
      c.set("token", null);
      c.set("user", null);
      await next();
    });
    app.use(authenticate());
    const ok = (c: { json: (v: unknown) => Response }) => c.json({ ok: true });
    app.get("/t/accounts", requireScopes("read:accounts"), ok);
    app.post("/t/follow", requireUser("write:follows", "follow"), ok);
    app.get("/t/credentials", requireUser("read:accounts", "profile"), ok);
    app.get("/t/any-user", requireUser(), ok);
    app.post("/t/register", requireApp("write:accounts"), ok);
    app.get("/t/admin", requireUser("admin:read:accounts"), ok);
    app.post("/t/push", requireUser("push"), ok);
    app.post("/t/crash", requireUser("write:statuses"), () => {
      throw new Error("a handler that crashes once the scope check lets it run");
    });
    const send = (path: string, init: RequestInit) =>
      Promise.resolve(app.fetch(new Request(new URL(path, a.origin), init)));

    const fixtures = await scopeFixtures(a);
    await assertScopeMatrix(t, send, fixtures, [
      { method: "GET", path: "/t/accounts", kind: "token", scopes: ["read:accounts"] },
      { method: "POST", path: "/t/follow", kind: "user", scopes: ["write:follows", "follow"] },
      { method: "GET", path: "/t/credentials", kind: "user", scopes: ["read:accounts", "profile"] },
      { method: "GET", path: "/t/any-user", kind: "user", scopes: [] },
      { method: "POST", path: "/t/register", kind: "app", scopes: ["write:accounts"] },
      { method: "GET", path: "/t/admin", kind: "user", scopes: ["admin:read:accounts"] },
      { method: "POST", path: "/t/push", kind: "user", scopes: ["push"] },
    ]);

    await t.step("the hierarchy holds both ways", async () => {
      assert.deepEqual(parentScopes("read:accounts"), ["read"]);
      assert.deepEqual(parentScopes("write:follows"), ["write", "follow"]);
      assert.deepEqual(parentScopes("admin:read:accounts"), ["admin:read"]);
      assert.deepEqual(parentScopes("profile"), []);
      // A granular scope does not cover its parent, nor a sibling.
      const call = async (path: string, method: string, scopes: string[]) =>
        (await send(path, {
          method,
          headers: { authorization: `Bearer ${await fixtures.token("ok", scopes)}` },
        })).status;
      assert.equal(await call("/t/accounts", "GET", ["read:statuses"]), 403);
      assert.equal(await call("/t/accounts", "GET", ["write:accounts"]), 403);
      assert.equal(await call("/t/accounts", "GET", ["write"]), 403);
      assert.equal(await call("/t/follow", "POST", ["read:follows"]), 403);
      assert.equal(await call("/t/follow", "POST", ["write:blocks"]), 403);
      assert.equal(await call("/t/admin", "GET", ["read"]), 403);
      assert.equal(await call("/t/push", "POST", ["read", "write", "follow"]), 403);
      assert.equal(lackingScope(["read"]), "write");
    });

    await t.step("app tokens cannot act as users even with every scope", async () => {
      const res = await send("/t/credentials", {
        method: "GET",
        headers: { authorization: `Bearer ${await fixtures.token("app", ["read", "profile"])}` },
      });
      assert.equal(res.status, 422);
    });

    await t.step("the scope check comes before the login state (Mastodon's order)", async () => {
      const res = await send("/t/credentials", {
        method: "GET",
        headers: { authorization: `Bearer ${await fixtures.token("disabled", ["write"])}` },
      });
      assert.equal(res.status, 403);
      assert.equal((await res.json()).error, "This action is outside the authorized scopes");
    });

    await t.step("a 5xx is no answer: the matrix fails a route that crashes", async () => {
      // Steps run inline, so the matrix's failure surfaces here instead of failing this test.
      const inline = {
        step: async (_name: string, fn: () => Promise<void>) => (await fn(), true),
      } as unknown as Deno.TestContext;
      await assert.rejects(
        assertScopeMatrix(inline, send, fixtures, [
          { method: "POST", path: "/t/crash", kind: "user", scopes: ["write:statuses"] },
        ]),
        /got 500/,
      );
    });
  } finally {
    await a.close({ destroy: true });
  }
});
