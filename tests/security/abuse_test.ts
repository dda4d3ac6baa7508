/**
 * Abuse of identities and budgets, on one instance with rate limits on and
 * a trusted proxy configured (the harder case for spoofed headers):
 * - per-IP limits count an IPv6 client with its whole /64, an IPv4-mapped
 *   IPv6 address as its IPv4 address, and ignore X-Forwarded-For from a peer
 *   that is not one of our proxies (per-token and proxied cases are in
 *   tests/api/rate_limit_test.ts);
 * - a deleted local account's username cannot be registered again, its
 *   actor answers 410 and its old token nothing;
 * - a suspended account's token is refused as Mastodon refuses a disabled
 *   login (403 "Your login is currently disabled"), and writes nothing.
 */
import assert from "node:assert/strict";
import { deleteLocalAccount } from "../../actors/moderation/local_users.ts";
import { accounts } from "../../db/schema/mod.ts";
import { eq } from "drizzle-orm";
import { json, startInstance, test, type TestInstance } from "../harness.ts";
import { callJson } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { appToken, signUp, signUpForm } from "../accounts/helpers.ts";

/** Mid-window, so no step straddles a 5-minute boundary. */
const PINNED = new Date("2030-01-07T10:02:30.000Z");
const CHEAP = "/api/v1/instance/translation_languages";

/** A request as if from the TCP peer `ip`. */
function from(a: TestInstance, ip: string, init?: RequestInit): Promise<Response> {
  const info = {
    remoteAddr: { transport: "tcp", hostname: ip, port: 40000 },
    completed: Promise.resolve(),
  } as Deno.ServeHandlerInfo;
  return a.rookery.fetch(new Request(new URL(CHEAP, a.origin), init), info);
}

async function remaining(a: TestInstance, ip: string, init?: RequestInit): Promise<string | null> {
  const res = await from(a, ip, init);
  await res.body?.cancel();
  assert.equal(res.status, 200);
  return res.headers.get("x-ratelimit-remaining");
}

test("abuse: rate-limit buckets, deleted and suspended accounts", async (t) => {
  const a = await startInstance({
    env: { RATE_LIMITS: "on", TRUST_PROXY: "true" },
    worker: false,
  });
  // Windows are computed from this instance's clock: pinned mid-window.
  a.rookery.ctx.core.rateLimits.clock = () => new Date(PINNED);
  try {
    await t.step("two addresses of one IPv6 /64 share a bucket", async () => {
      assert.equal(await remaining(a, "2001:db8:1:2::1"), "299");
      assert.equal(await remaining(a, "2001:db8:1:2:ffff:ffff:ffff:fffe"), "298");
      assert.equal(await remaining(a, "2001:0db8:0001:0002:0:0:0:7"), "297");
      // The next /64 is someone else.
      assert.equal(await remaining(a, "2001:db8:1:3::1"), "299");
    });

    await t.step("an IPv4-mapped address counts as its IPv4 address", async () => {
      assert.equal(await remaining(a, "198.51.100.20"), "299");
      assert.equal(await remaining(a, "::ffff:198.51.100.20"), "298");
    });

    await t.step("X-Forwarded-For from a public peer is not believed", async () => {
      const spoof = (v: string): RequestInit => ({ headers: { "x-forwarded-for": v } });
      assert.equal(await remaining(a, "203.0.113.50", spoof("192.0.2.1")), "299");
      assert.equal(await remaining(a, "203.0.113.50", spoof("192.0.2.2")), "298");
      assert.equal(await remaining(a, "2001:db8:9:9::1", spoof("192.0.2.3")), "299");
      assert.equal(await remaining(a, "2001:db8:9:9::2", spoof("2001:db8:7::1")), "298");
    });

    await t.step("a deleted username stays taken; its actor is gone", async () => {
      const dora = await createUser(a, "dora");
      await deleteLocalAccount(a.rookery.ctx.database.db, "dora");
      const { token } = await appToken(a);
      for (const username of ["dora", "DORA", "Dora"]) {
        const res = await signUp(
          a,
          token,
          signUpForm(username, { email: `${username}2@example.com` }),
        );
        const body = await json(res);
        assert.equal(res.status, 422, username);
        assert.deepEqual(body.details.username.map((d: any) => d.error), ["ERR_TAKEN"], username);
      }
      const actor = await a.request("/users/dora", {
        headers: { Accept: "application/activity+json" },
      });
      assert.equal(actor.status, 410);
      assert.equal((await json(actor)).type, "Tombstone");
      const old = await callJson(a, dora, "GET", "/api/v1/accounts/verify_credentials");
      assert.equal(old.status, 401);
    });

    await t.step("a suspended account's token: 403, login disabled, nothing written", async () => {
      const sam = await createUser(a, "sam");
      await a.rookery.ctx.database.db.update(accounts).set({ suspendedAt: new Date() })
        .where(eq(accounts.id, sam.id));
      for (
        const [method, path, body] of [
          ["GET", "/api/v1/accounts/verify_credentials"],
          ["GET", "/api/v1/timelines/home"],
          ["POST", "/api/v1/statuses", { status: "still here" }],
        ] as const
      ) {
        const res = await callJson(a, sam, method, path, body);
        assert.equal(res.status, 403, `${method} ${path}`);
        assert.deepEqual(res.body, { error: "Your login is currently disabled" });
      }
      const [row] = await a.rookery.ctx.database.db.select().from(accounts)
        .where(eq(accounts.id, sam.id));
      assert.equal(row.statusesCount, 0);
    });
  } finally {
    await a.close({ destroy: true });
  }
});
