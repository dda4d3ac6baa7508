import assert from "node:assert/strict";
import { createLocalAccount } from "../../actors/accounts/accounts.ts";
import { createAccessToken, createApplication } from "../../actors/oauth/tokens.ts";
import { json, POSTGRES_ONLY, startInstance, test, type TestInstance } from "../harness.ts";

/** A fixed instant in the middle of a 5- and a 30-minute window, so no test straddles one. */
const PINNED = new Date("2030-01-07T10:02:30.000Z");
const FIVE_MINUTE_RESET = "2030-01-07T10:05:00.000Z";
const THIRTY_MINUTE_RESET = "2030-01-07T10:30:00.000Z";

/** Sends a request as if from `ip` (the harness's request() uses one fixed address). */
function from(a: TestInstance, ip: string, path: string, init?: RequestInit): Promise<Response> {
  const info = {
    remoteAddr: { transport: "tcp", hostname: ip, port: 40000 },
    completed: Promise.resolve(),
  } as Deno.ServeHandlerInfo;
  return a.rookery.fetch(new Request(new URL(path, a.origin), init), info);
}

async function userToken(a: TestInstance, username: string): Promise<string> {
  const db = a.rookery.ctx.database.db;
  const { user } = await createLocalAccount(db, a.origin, {
    username,
    email: `${username}@example.com`,
    password: "correct horse battery",
  });
  const { application } = await createApplication(db, {
    name: "test",
    redirectUris: ["urn:ietf:wg:oauth:2.0:oob"],
    scopes: ["read", "write"],
  });
  const { token } = await createAccessToken(db, {
    applicationId: application.id,
    userId: user.id,
    scopes: ["read", "write"],
  });
  return token;
}

function bearer(token: string): RequestInit {
  return { headers: { authorization: `Bearer ${token}` } };
}

function limits(res: Response) {
  return {
    limit: res.headers.get("x-ratelimit-limit"),
    remaining: res.headers.get("x-ratelimit-remaining"),
    reset: res.headers.get("x-ratelimit-reset"),
  };
}

/** Pins the instance's rate limit clock, so that a run never straddles a window boundary. */
function pinned(instance: TestInstance, at = PINNED): TestInstance {
  instance.rookery.ctx.core.rateLimits.clock = () => new Date(at);
  return instance;
}

async function withLimits(
  fn: (a: TestInstance) => Promise<void>,
  options: { databaseUrl?: string } = {},
) {
  const a = pinned(
    await startInstance({ env: { RATE_LIMITS: "on" }, worker: false, ...options }),
  );
  try {
    await fn(a);
  } finally {
    await a.close({ destroy: true });
  }
}

/** A cheap API endpoint: the rate limiter is its only database work. */
const CHEAP = "/api/v1/instance/translation_languages";

test("rate limits: headers on API calls, none on other paths or when turned off", async () => {
  await withLimits(async (a) => {
    const res = await from(a, "203.0.113.1", CHEAP);
    assert.equal(res.status, 200);
    assert.deepEqual(limits(res), { limit: "300", remaining: "299", reset: FIVE_MINUTE_RESET });
    const again = await from(a, "203.0.113.1", "/api/v1/nothing-here");
    assert.equal(again.status, 404);
    assert.equal(limits(again).remaining, "298");
    // /oauth/ counts too, whether a route answers or not.
    assert.equal(limits(await from(a, "203.0.113.1", "/oauth/token")).remaining, "297");
    for (const path of ["/health", "/.well-known/nodeinfo", "/avatars/original/missing.png"]) {
      const other = await from(a, "203.0.113.1", path);
      await other.body?.cancel();
      assert.equal(other.headers.get("x-ratelimit-limit"), null, path);
    }
  });
  const off = await startInstance({ worker: false });
  try {
    const res = await off.request(CHEAP);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("x-ratelimit-limit"), null);
  } finally {
    await off.close({ destroy: true });
  }
});

test("rate limits: 300 requests per IP per 5 minutes, then 429; other IPs unaffected", async () => {
  await withLimits(async (a) => {
    for (let i = 1; i <= 300; i++) {
      const res = await from(a, "198.51.100.7", CHEAP);
      assert.equal(res.status, 200, `request ${i}`);
      assert.equal(limits(res).remaining, String(300 - i));
      await res.body?.cancel();
    }
    const over = await from(a, "198.51.100.7", CHEAP);
    assert.equal(over.status, 429);
    assert.deepEqual(await json(over), { error: "Too many requests" });
    assert.deepEqual(limits(over), { limit: "300", remaining: "0", reset: FIVE_MINUTE_RESET });
    // CORS wraps the 429 too, so browser clients can read it.
    assert.equal(over.headers.get("access-control-allow-origin"), "*");

    const other = await from(a, "198.51.100.8", CHEAP);
    assert.equal(other.status, 200);
    assert.equal(limits(other).remaining, "299");

    // The next window starts afresh.
    pinned(a, new Date(PINNED.getTime() + 5 * 60 * 1000));
    const later = await from(a, "198.51.100.7", CHEAP);
    assert.equal(later.status, 200);
    assert.equal(limits(later).remaining, "299");
    assert.equal(limits(later).reset, "2030-01-07T10:10:00.000Z");
  });
});

test("rate limits: a user token is counted per account, across IPs; bad tokens per IP", async () => {
  await withLimits(async (a) => {
    const token = await userToken(a, "alice");
    const r1 = await from(a, "192.0.2.1", CHEAP, bearer(token));
    assert.equal(limits(r1).remaining, "299");
    const r2 = await from(a, "192.0.2.2", CHEAP, bearer(token));
    assert.equal(limits(r2).remaining, "298");
    const r3 = await from(a, "192.0.2.1", CHEAP, bearer(token));
    assert.equal(limits(r3).remaining, "297");
    // The IPs' own buckets were not touched by the account's requests.
    const anon = await from(a, "192.0.2.1", CHEAP);
    assert.equal(limits(anon).remaining, "299");
    // An unknown token is anonymous: it counts against its IP.
    const bad = await from(a, "192.0.2.1", CHEAP, bearer("not-a-token"));
    assert.equal(limits(bad).remaining, "298");
    // Another user has a bucket of their own.
    const other = await userToken(a, "bob");
    assert.equal(limits(await from(a, "192.0.2.1", CHEAP, bearer(other))).remaining, "299");
  });
});

test("rate limits: POST /api/v1/accounts allows 5 per IP per 30 minutes", async () => {
  await withLimits(async (a) => {
    for (let i = 1; i <= 5; i++) {
      const res = await from(a, "203.0.113.50", "/api/v1/accounts", { method: "POST" });
      assert.notEqual(res.status, 429, `sign-up ${i}`);
      // The tightest bucket is the sign-up one.
      assert.deepEqual(limits(res), {
        limit: "5",
        remaining: String(5 - i),
        reset: THIRTY_MINUTE_RESET,
      });
      await res.body?.cancel();
    }
    const over = await from(a, "203.0.113.50", "/api/v1/accounts", { method: "POST" });
    assert.equal(over.status, 429);
    assert.deepEqual(await json(over), { error: "Too many requests" });
    assert.equal(limits(over).limit, "5");
    // Reading is still allowed from that IP; signing up from another IP too.
    assert.equal((await from(a, "203.0.113.50", CHEAP)).status, 200);
    const elsewhere = await from(a, "203.0.113.51", "/api/v1/accounts", { method: "POST" });
    assert.notEqual(elsewhere.status, 429);
  });
});

test("rate limits: POST /api/v1/emails/confirmations allows 5 per user per 30 minutes", async () => {
  await withLimits(async (a) => {
    const token = await userToken(a, "resender");
    const resend = (ip: string, who = token) =>
      from(a, ip, "/api/v1/emails/confirmations", { method: "POST", ...bearer(who) });
    // Counted per user, whichever address the requests come from.
    for (let i = 1; i <= 5; i++) {
      const res = await resend(`192.0.2.${60 + i}`);
      assert.notEqual(res.status, 429, `resend ${i}`);
      assert.deepEqual(limits(res), {
        limit: "5",
        remaining: String(5 - i),
        reset: THIRTY_MINUTE_RESET,
      });
      await res.body?.cancel();
    }
    const over = await resend("192.0.2.70");
    assert.equal(over.status, 429);
    assert.deepEqual(await json(over), { error: "Too many requests" });
    assert.deepEqual(limits(over), { limit: "5", remaining: "0", reset: THIRTY_MINUTE_RESET });
    assert.equal(over.headers.get("retry-after"), String(27.5 * 60));
    // The user's other requests, and another user's resends, go on.
    assert.equal((await from(a, "192.0.2.70", CHEAP, bearer(token))).status, 200);
    const other = await resend("192.0.2.70", await userToken(a, "patient"));
    assert.notEqual(other.status, 429);
    assert.equal(limits(other).remaining, "4");
    await other.body?.cancel();
  });
});

test("rate limits: media uploads and status deletions have 30/30 min account buckets", async () => {
  await withLimits(async (a) => {
    const token = await userToken(a, "carol");
    for (let i = 1; i <= 30; i++) {
      const path = i % 2 ? "/api/v1/media" : "/api/v2/media";
      const res = await from(a, "192.0.2.9", path, { method: "POST", ...bearer(token) });
      assert.notEqual(res.status, 429);
      assert.deepEqual(limits(res), {
        limit: "30",
        remaining: String(30 - i),
        reset: THIRTY_MINUTE_RESET,
      });
      await res.body?.cancel();
    }
    const over = await from(a, "192.0.2.9", "/api/v2/media", { method: "POST", ...bearer(token) });
    assert.equal(over.status, 429);
    await over.body?.cancel();

    // Deleting and unreblogging share one bucket, separate from media.
    for (let i = 1; i <= 30; i++) {
      const res = i % 2
        ? await from(a, "192.0.2.9", `/api/v1/statuses/${i}`, {
          method: "DELETE",
          ...bearer(token),
        })
        : await from(a, "192.0.2.9", `/api/v1/statuses/${i}/unreblog`, {
          method: "POST",
          ...bearer(token),
        });
      assert.notEqual(res.status, 429, `deletion ${i}`);
      assert.equal(limits(res).remaining, String(30 - i));
      await res.body?.cancel();
    }
    const tooMany = await from(a, "192.0.2.9", "/api/v1/statuses/99", {
      method: "DELETE",
      ...bearer(token),
    });
    assert.equal(tooMany.status, 429);
    await tooMany.body?.cancel();
    // Reading a status is not a deletion.
    const read = await from(a, "192.0.2.9", "/api/v1/statuses/99", bearer(token));
    assert.notEqual(read.status, 429);
    await read.body?.cancel();
  });
});

test(
  "rate limits: two processes on one PostgreSQL database share the buckets",
  POSTGRES_ONLY,
  async () => {
    await withLimits(async (a) => {
      const b = pinned(
        await startInstance({
          env: { RATE_LIMITS: "on" },
          worker: false,
          databaseUrl: a.databaseUrl!,
        }),
      );
      try {
        const token = await userToken(a, "dave");
        assert.equal(limits(await from(a, "192.0.2.20", CHEAP)).remaining, "299");
        assert.equal(limits(await from(b, "192.0.2.20", CHEAP)).remaining, "298");
        assert.equal(limits(await from(a, "192.0.2.20", CHEAP)).remaining, "297");
        assert.equal(limits(await from(b, "192.0.2.21", CHEAP, bearer(token))).remaining, "299");
        assert.equal(limits(await from(a, "192.0.2.22", CHEAP, bearer(token))).remaining, "298");
        for (let i = 0; i < 5; i++) {
          const target = i % 2 ? a : b;
          const res = await from(target, "192.0.2.30", "/api/v1/accounts", { method: "POST" });
          await res.body?.cancel();
        }
        const over = await from(a, "192.0.2.30", "/api/v1/accounts", { method: "POST" });
        assert.equal(over.status, 429);
        await over.body?.cancel();
      } finally {
        await b.close();
      }
    });
  },
);

test("rate limits: X-Forwarded-For is used only with TRUST_PROXY, right-most public address", async () => {
  const trusted = pinned(
    await startInstance({
      env: { RATE_LIMITS: "on", TRUST_PROXY: "true" },
      worker: false,
    }),
  );
  const untrusted = pinned(await startInstance({ env: { RATE_LIMITS: "on" }, worker: false }));
  try {
    const xff = (value: string): RequestInit => ({ headers: { "x-forwarded-for": value } });
    // Behind a proxy on loopback: the client is the right-most public address.
    const r1 = await from(trusted, "127.0.0.1", CHEAP, xff("1.1.1.1, 203.0.113.9, 10.0.0.2"));
    assert.equal(limits(r1).remaining, "299");
    const r2 = await from(trusted, "127.0.0.1", CHEAP, xff("9.9.9.9, 203.0.113.9"));
    assert.equal(limits(r2).remaining, "298", "a spoofed left-most entry changes nothing");
    const r3 = await from(trusted, "127.0.0.1", CHEAP, xff("203.0.113.10"));
    assert.equal(limits(r3).remaining, "299");
    // Without TRUST_PROXY the header is ignored: every request is the peer's.
    const u1 = await from(untrusted, "127.0.0.1", CHEAP, xff("203.0.113.9"));
    const u2 = await from(untrusted, "127.0.0.1", CHEAP, xff("203.0.113.10"));
    assert.equal(limits(u1).remaining, "299");
    assert.equal(limits(u2).remaining, "298");
  } finally {
    await trusted.close({ destroy: true });
    await untrusted.close({ destroy: true });
  }
});
