/**
 * Instance domain blocks between real instances over signed https:
 * - silence: the blocked server's posts reach a follower's home (and the
 *   follower's public timeline) but not a non-follower's or an anonymous
 *   visitor's public timeline;
 * - suspend: follows both ways end, the server's statuses disappear, its
 *   deliveries are refused and stored nowhere, and nothing is delivered to
 *   it (checked on the wire); unblocking brings the statuses back;
 * - FEDERATION_MODE=allowlist: a server not on the allow-list is neither
 *   looked up nor heard; allowed through the admin API, it federates.
 */
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { users } from "../../db/schema/mod.ts";
import { eq } from "drizzle-orm";
import { startInstance, test, type TestInstance } from "../harness.ts";
import { callJson, postStatus, relationship } from "../fixtures/api.ts";
import { createUser, type TestUser } from "../fixtures/users.ts";
import { arrived, closeAll, followRemote, remoteId, storedStatus } from "../fixtures/federation.ts";
import { eventually } from "../fixtures/wait.ts";

const ADMIN_SCOPES = ["read", "write", "follow", "admin:read", "admin:write"];

async function makeAdmin(instance: TestInstance, name: string): Promise<TestUser> {
  const user = await createUser(instance, name, { scopes: ADMIN_SCOPES });
  await instance.rookery.ctx.database.db.update(users).set({ role: "admin" })
    .where(eq(users.id, user.userId));
  return user;
}

async function timelineIds(instance: TestInstance, who: TestUser | null, path: string) {
  const res = await callJson(instance, who, "GET", path);
  assert.equal(res.status, 200);
  return (res.body as { id: string }[]).map((s) => s.id);
}

/** Waits until `instance` has no delivery left to relay or send. */
async function drained(instance: TestInstance): Promise<void> {
  const { database } = instance.rookery.ctx;
  await eventually("outbox and queue drained", async () => {
    const [row] = await database.rows<{ n: string | number }>(sql`SELECT
      (SELECT count(*) FROM outbox_intents) + (SELECT count(*) FROM federation_queue) AS n`);
    return Number(row.n) === 0;
  });
}

test("domain blocks across instances: silence, suspend, unblock", async (t) => {
  /** Inbox POSTs each instance received, in order. */
  const inboxPosts = { a: [] as string[], b: [] as string[] };
  const isInbox = (r: Request) =>
    r.method === "POST" && /\/inbox\/?$/.test(new URL(r.url).pathname);
  const a = await startInstance({
    tls: true,
    onRequest: (r) => isInbox(r) && inboxPosts.a.push(new URL(r.url).pathname),
  });
  const b = await startInstance({
    tls: true,
    onRequest: (r) => isInbox(r) && inboxPosts.b.push(new URL(r.url).pathname),
  });
  try {
    const admin = await makeAdmin(a, "boss");
    const alice = await createUser(a, "alice");
    const carol = await createUser(a, "carol");
    const bob = await createUser(b, "bob");
    const bobId = await followRemote(a, alice, b, bob);
    await followRemote(b, bob, a, alice);
    const before = await postStatus(b, bob, "before any block");
    const beforeRow = await arrived(a, before.uri);
    assert.ok((await timelineIds(a, carol, "/api/v1/timelines/public")).includes(beforeRow.id));
    let blockId = "";

    await t.step("silence: a follower sees the posts, others do not", async () => {
      const res = await callJson(a, admin, "POST", "/api/v1/admin/domain_blocks", {
        domain: b.domain,
        severity: "silence",
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      blockId = res.body.id;
      const quiet = await postStatus(b, bob, "while silenced");
      const row = await arrived(a, quiet.uri);
      await eventually(
        "the post in alice's home",
        async () => (await timelineIds(a, alice, "/api/v1/timelines/home")).includes(row.id),
      );
      assert.ok((await timelineIds(a, alice, "/api/v1/timelines/public")).includes(row.id));
      for (const who of [carol, null]) {
        const seen = await timelineIds(a, who, "/api/v1/timelines/public");
        assert.ok(!seen.includes(row.id) && !seen.includes(beforeRow.id), "limited");
      }
      // A mention of a non-follower is held by the default for_limited_accounts policy.
      const mention = await postStatus(b, bob, `@carol@${a.domain} hello from a silenced server`);
      const mentionRow = await arrived(a, mention.uri);
      const held = await eventually("the filtered mention", async () => {
        const res = await callJson(
          a,
          carol,
          "GET",
          "/api/v1/notifications?types[]=mention&include_filtered=true",
        );
        return (res.body as { status?: { id: string } }[])
          .find((n) => n.status?.id === mentionRow.id);
      });
      assert.ok(held);
      const shown = await callJson(a, carol, "GET", "/api/v1/notifications?types[]=mention");
      assert.ok(
        !(shown.body as { status?: { id: string } }[]).some((n) => n.status?.id === mentionRow.id),
        "not in the default list",
      );
    });

    await t.step("suspend: follows end, statuses hidden, nothing in or out", async () => {
      await drained(a);
      const res = await callJson(a, admin, "PUT", `/api/v1/admin/domain_blocks/${blockId}`, {
        severity: "suspend",
      });
      assert.equal(res.status, 200);
      const sentToB = inboxPosts.b.length;
      const receivedByA = inboxPosts.a.length;
      const rels = await callJson(
        a,
        alice,
        "GET",
        `/api/v1/accounts/relationships?id[]=${bobId}&with_suspended=true`,
      );
      assert.equal(rels.body.length, 1);
      assert.equal(rels.body[0].following, false);
      assert.equal(rels.body[0].followed_by, false);
      assert.equal(
        (await callJson(a, alice, "GET", `/api/v1/statuses/${beforeRow.id}`)).status,
        404,
      );

      // Out: carol blocks bob, which would send a Block to b.
      const blocked = await callJson(a, carol, "POST", `/api/v1/accounts/${bobId}/block`);
      assert.equal(blocked.status, 200, JSON.stringify(blocked.body));
      await drained(a);
      assert.equal(inboxPosts.b.length, sentToB, "no delivery to a suspended domain");
      await callJson(a, carol, "POST", `/api/v1/accounts/${bobId}/unblock`);
      await drained(a);
      assert.equal(inboxPosts.b.length, sentToB);

      // In: b still thinks alice follows bob and delivers bob's post; a refuses it.
      const refused = await postStatus(b, bob, "after the suspension");
      await eventually(
        "b's delivery attempt",
        () => Promise.resolve(inboxPosts.a.length > receivedByA),
      );
      assert.equal(await storedStatus(a, refused.uri), undefined);
    });

    await t.step("unblock: the statuses are back, the follows are not", async () => {
      const res = await callJson(a, admin, "DELETE", `/api/v1/admin/domain_blocks/${blockId}`);
      assert.equal(res.status, 200);
      assert.equal(
        (await callJson(a, alice, "GET", `/api/v1/statuses/${beforeRow.id}`)).status,
        200,
      );
      assert.ok((await timelineIds(a, carol, "/api/v1/timelines/public")).includes(beforeRow.id));
      assert.equal((await relationship(a, alice, bobId)).following, false);
      const home = await timelineIds(a, alice, "/api/v1/timelines/home");
      assert.ok(
        !home.includes(beforeRow.id),
        "the suspension took bob's posts out of alice's home",
      );
    });
  } finally {
    await closeAll(a, b);
  }
});

test("FEDERATION_MODE=allowlist: only allowed domains federate", async () => {
  const webfingers: string[] = [];
  const b = await startInstance({
    tls: true,
    onRequest: (r) =>
      new URL(r.url).pathname === "/.well-known/webfinger" && webfingers.push(r.url),
  });
  const cInbox: string[] = [];
  const c = await startInstance({
    tls: true,
    env: { FEDERATION_MODE: "allowlist" },
    onRequest: (r) => r.method === "POST" && /inbox/.test(r.url) && cInbox.push(r.url),
  });
  try {
    const bob = await createUser(b, "bob");
    const dave = await createUser(c, "dave");
    const admin = await makeAdmin(c, "boss");
    const instance = await callJson(c, null, "GET", "/api/v2/instance");
    assert.equal(instance.body.configuration.limited_federation, true);

    // Out: c does not look b up.
    const search = await callJson(
      c,
      dave,
      "GET",
      `/api/v2/search?q=${encodeURIComponent(`@bob@${b.domain}`)}&resolve=true&type=accounts`,
    );
    assert.equal(search.status, 200);
    assert.deepEqual(search.body.accounts, []);
    assert.equal(webfingers.length, 0, "no WebFinger request to a domain not allowed");

    // In: b's Follow reaches c's inbox and is refused.
    const daveOnB = await remoteId(b, c, dave);
    const follow = await callJson(b, bob, "POST", `/api/v1/accounts/${daveOnB}/follow`);
    assert.equal(follow.status, 200);
    await eventually("b's Follow at c's inbox", () => Promise.resolve(cInbox.length > 0));
    const [pending] = await c.rookery.ctx.database.rows<{ n: string | number }>(
      sql`SELECT count(*) AS n FROM follows`,
    );
    assert.equal(Number(pending.n), 0, "nothing stored from a domain not allowed");

    // Allowed, b federates: dave follows bob and b's Accept is heard.
    const allowed = await callJson(c, admin, "POST", "/api/v1/admin/domain_allows", {
      domain: b.domain,
    });
    assert.equal(allowed.status, 200, JSON.stringify(allowed.body));
    await followRemote(c, dave, b, bob);
  } finally {
    await closeAll(b, c);
  }
});
