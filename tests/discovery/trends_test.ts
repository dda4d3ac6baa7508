/**
 * Trends over HTTP: scores decay with time, the eligibility rules, the
 * viewer's blocks, mutes and domain blocks on trending statuses, offset
 * paging, links with their history, and moderators' review through the
 * admin command line (TRENDS_REVIEW) with the worker's periodic refresh.
 *
 * The first instance runs no worker, so only the refreshes the test makes
 * (at chosen times) write scores.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { POSTGRES_ONLY, startInstance, test, type TestInstance } from "../harness.ts";
import { call, callJson, ok } from "../fixtures/api.ts";
import { createAccount, createUser, type TestAccount } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";
import { cli, expectCode } from "../admin/cli.ts";
import { links, pathOf } from "../timelines/helpers.ts";
import { refreshTrends, TRENDS_LOCK_KEY } from "../../jobs/trends.ts";
import { reviewTrend } from "../../actors/discovery/trend_review.ts";
import { accounts } from "../../db/schema/mod.ts";
import { hoursAgo, insertCard, insertPost, insertRemoteAccount } from "./helpers.ts";

const HOUR = 3_600_000;

async function names(instance: TestInstance, path = "/api/v1/trends/tags") {
  const body = await ok<{ name: string }[]>(instance, null, "GET", path);
  return body.map((t) => t.name);
}

async function refresh(instance: TestInstance, now?: Date) {
  return await refreshTrends(instance.rookery.ctx.database, { now, wait: true });
}

test("trends: decay, eligibility, viewer filters, paging, links, review", async (t) => {
  const server = await startInstance({ worker: false });
  try {
    const users: TestAccount[] = [];
    for (let i = 0; i < 10; i++) users.push(await createAccount(server, `user${i}`));
    const hidden = await createAccount(server, "hidden", { account: { discoverable: false } });
    const u = (i: number) => users[i].id;
    const viewer = await createUser(server, "viewer");

    await t.step("tags: recent distinct accounts outweigh older crowds", async () => {
      for (let i = 0; i < 5; i++) {
        await insertPost(server, u(i), { tags: ["Fresh5"], createdAt: hoursAgo(0.1) });
      }
      // Three accounts within the last hour: the guarantee.
      for (let i = 5; i < 8; i++) {
        await insertPost(server, u(i), { tags: ["fresh3"], createdAt: hoursAgo(0.9) });
      }
      for (let i = 0; i < 6; i++) {
        await insertPost(server, u(i), { tags: ["old6"], createdAt: hoursAgo(2) });
      }
      // The biggest crowd, but eight hours ago.
      for (let i = 0; i < 8; i++) {
        await insertPost(server, u(i), { tags: ["stale8"], createdAt: hoursAgo(8) });
      }
      // Not enough distinct accounts, however many posts.
      for (const i of [8, 9]) await insertPost(server, u(i), { tags: ["pair"] });
      for (let n = 0; n < 6; n++) await insertPost(server, u(0), { tags: ["solo"] });
      // Only public posts of discoverable accounts count.
      for (let i = 0; i < 3; i++) {
        await insertPost(server, u(i), { tags: ["quiet"], visibility: "unlisted" });
      }
      await insertPost(server, hidden.id, { tags: ["optout"] });
      for (const i of [8, 9]) await insertPost(server, u(i), { tags: ["optout"] });

      assert.deepEqual(await names(server), [], "nothing before the first refresh");
      const counts = await refresh(server);
      assert.equal(counts?.tag, 3);
      assert.deepEqual(await names(server), ["Fresh5", "old6", "fresh3"]);
      assert.deepEqual(await names(server, "/api/v1/trends"), ["Fresh5", "old6", "fresh3"]);

      const [tag] = await ok<any[]>(server, viewer, "GET", "/api/v1/trends/tags?limit=1");
      assert.equal(tag.name, "Fresh5");
      assert.equal(tag.url, `${server.origin}/tags/Fresh5`);
      assert.equal(tag.following, undefined, "trending tags carry no viewer flags");
      assert.equal(tag.history.length, 7);
      for (const day of tag.history) {
        for (const key of ["day", "uses", "accounts"]) assert.equal(typeof day[key], "string");
      }
      const recent = tag.history.slice(0, 2).reduce((n: number, d: any) => n + Number(d.uses), 0);
      assert.equal(recent, 5);

      // Ninety minutes later the three accounts have faded out and old6
      // keeps its place behind Fresh5; eight hours on, nothing trends.
      await refresh(server, new Date(Date.now() + 1.5 * HOUR));
      assert.deepEqual(await names(server), ["Fresh5", "old6"]);
      await refresh(server, new Date(Date.now() + 8 * HOUR));
      assert.deepEqual(await names(server), []);
      await refresh(server);
      assert.deepEqual(await names(server), ["Fresh5", "old6", "fresh3"]);
    });

    await t.step("tags: offset paging with Link headers; limits clamp", async () => {
      const first = await callJson<any[]>(server, null, "GET", "/api/v1/trends/tags?limit=2");
      assert.deepEqual(first.body.map((x) => x.name), ["Fresh5", "old6"]);
      const l1 = links(first.headers);
      assert.equal(l1.prev, undefined);
      assert.ok(l1.next?.includes("offset=2"), String(l1.next));
      const second = await callJson<any[]>(server, null, "GET", pathOf(l1.next!));
      assert.deepEqual(second.body.map((x) => x.name), ["fresh3"]);
      const l2 = links(second.headers);
      assert.equal(l2.next, undefined, "a short page is the last");
      assert.ok(l2.prev?.includes("offset=0"), String(l2.prev));
      // Junk offset and limit are read as Mastodon reads them, never a 500.
      const junk = await callJson<any[]>(
        server,
        null,
        "GET",
        "/api/v1/trends/tags?offset=abc&limit=-1",
      );
      assert.equal(junk.status, 200);
      assert.deepEqual(junk.body.map((x) => x.name), ["Fresh5"]);
      const far = await callJson<any[]>(server, null, "GET", "/api/v1/trends/tags?offset=99999");
      assert.deepEqual(far.body, []);
      assert.equal((await call(server, null, "GET", "/api/v1/trends/tags/")).status, 200);
    });

    const remote = await insertRemoteAccount(server, "far", "bad.example");
    let statusIds: Record<string, string> = {};
    await t.step("statuses: interactions decayed by age, eligibility", async () => {
      statusIds = {
        hot: await insertPost(server, u(0), { favourites: 8, reblogs: 2, createdAt: hoursAgo(1) }),
        warm: await insertPost(server, u(1), { favourites: 3 }),
        remote: await insertPost(server, remote, { favourites: 2, reblogs: 2 }),
        // Twenty interactions, but a day old.
        old: await insertPost(server, u(2), { favourites: 20, createdAt: hoursAgo(20) }),
        sensitive: await insertPost(server, u(3), { favourites: 9, sensitive: true }),
        cw: await insertPost(server, u(3), { favourites: 9, spoilerText: "spoilers" }),
        unlisted: await insertPost(server, u(3), { favourites: 9, visibility: "unlisted" }),
        optout: await insertPost(server, hidden.id, { favourites: 9 }),
        lonely: await insertPost(server, u(4), { favourites: 1 }),
      };
      statusIds.reply = await insertPost(server, u(5), {
        favourites: 9,
        inReplyToId: statusIds.warm,
      });
      await refresh(server);
      const anonymous = await ok<any[]>(server, null, "GET", "/api/v1/trends/statuses");
      assert.deepEqual(anonymous.map((s) => s.id), [
        statusIds.hot,
        statusIds.remote,
        statusIds.warm,
      ]);
      assert.equal(anonymous[0].account.id, u(0));
      assert.equal(anonymous[0].favourites_count, 8);
      const paged = await callJson<any[]>(
        server,
        null,
        "GET",
        "/api/v1/trends/statuses?limit=1&offset=1",
      );
      assert.deepEqual(paged.body.map((s) => s.id), [statusIds.remote]);
      assert.ok(links(paged.headers).next?.includes("offset=2"));
    });

    await t.step("statuses: the viewer's blocks, mutes and domain blocks apply", async () => {
      await ok(server, viewer, "POST", `/api/v1/accounts/${u(0)}/mute`);
      await ok(server, viewer, "POST", `/api/v1/accounts/${u(1)}/block`);
      await ok(server, viewer, "POST", "/api/v1/domain_blocks", { domain: "bad.example" });
      assert.deepEqual(await ok<any[]>(server, viewer, "GET", "/api/v1/trends/statuses"), []);
      // Someone else still sees them all.
      const other = await createUser(server, "other");
      const seen = await ok<any[]>(server, other, "GET", "/api/v1/trends/statuses");
      assert.equal(seen.length, 3);
      // A status whose author is suspended after the refresh is gone at once.
      await server.rookery.ctx.database.db.update(accounts).set({ suspendedAt: new Date() })
        .where(eq(accounts.id, remote));
      const after = await ok<any[]>(server, other, "GET", "/api/v1/trends/statuses");
      assert.deepEqual(after.map((s) => s.id), [statusIds.hot, statusIds.warm]);
    });

    await t.step("links: distinct accounts sharing a card, with history", async () => {
      const popular = await insertCard(server, "https://news.example/popular", "Popular");
      const faded = await insertCard(server, "https://news.example/faded", "Faded");
      const few = await insertCard(server, "https://news.example/few", "Few");
      for (let i = 0; i < 3; i++) await insertPost(server, u(i), { cardId: popular });
      await insertPost(server, u(0), { cardId: popular });
      for (let i = 0; i < 5; i++) {
        await insertPost(server, u(i), { cardId: faded, createdAt: hoursAgo(10) });
      }
      for (let i = 0; i < 2; i++) await insertPost(server, u(i), { cardId: few });
      await insertPost(server, u(2), { cardId: few, sensitive: true });
      await refresh(server);
      const body = await ok<any[]>(server, null, "GET", "/api/v1/trends/links");
      assert.deepEqual(body.map((l) => l.url), ["https://news.example/popular"]);
      assert.equal(body[0].title, "Popular");
      assert.equal(body[0].type, "link");
      assert.equal(body[0].history.length, 7);
      assert.equal(body[0].history[0].uses, "4");
      assert.equal(body[0].history[0].accounts, "3");
    });

    // PGlite has one process and one connection.
    await t.step({
      name: "one process computes at a time",
      ...POSTGRES_ONLY,
      fn: async () => {
        const pg = server.rookery.ctx.database.pg!;
        // Another process's refresh, as PostgreSQL sees it: the lock held in an open transaction.
        const other = await pg.reserve();
        try {
          await other`BEGIN`;
          await other`SELECT pg_advisory_xact_lock(${TRENDS_LOCK_KEY})`;
          assert.equal(
            await refreshTrends(server.rookery.ctx.database),
            null,
            "a periodic run skips",
          );
          let waited = false;
          const waiting = refresh(server).then((r) => (waited = true, r));
          // Its session is seen waiting for the lock: it has not run, and cannot yet.
          await eventually("the refresh to wait for the trends lock", async () => {
            const [{ n }] = await pg`SELECT count(*)::int AS n FROM pg_stat_activity
              WHERE datname = current_database() AND wait_event_type = 'Lock'
                AND wait_event = 'advisory' AND query LIKE '%pg_advisory_xact_lock%'`;
            return n > 0;
          });
          assert.equal(waited, false, "a waiting run waits");
          await other`COMMIT`;
          assert.equal((await waiting)?.tag, 3);
        } finally {
          other.release();
        }
        assert.deepEqual(await names(server), ["Fresh5", "old6", "fresh3"]);
      },
    });

    await t.step("a rejected item is never listed, even without review", async () => {
      await reviewTrend(server.rookery.ctx.database.db, "tag", "OLD6", "rejected");
      assert.deepEqual(await names(server), ["Fresh5", "fresh3"]);
    });
  } finally {
    await server.close({ destroy: true });
  }
});

test("trends: TRENDS_REVIEW lists only allowed items; the worker refreshes", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "rookery-trends-" });
  const server = await startInstance({
    dataDir,
    memory: false,
    adminSocket: true,
    env: { TRENDS_REVIEW: "true", TRENDS_INTERVAL: "1" },
  });
  const target = { dataDir, databaseUrl: server.databaseUrl };
  try {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await createAccount(server, `rev${i}`)).id);
    const card = await insertCard(server, "https://news.example/reviewed", "Reviewed");
    let statusId = "";
    for (const id of ids) {
      statusId = await insertPost(server, id, { tags: ["reviewme"], cardId: card, favourites: 5 });
    }
    // The worker's job scores them within a second or two...
    const pending = await eventually("the trends job", async () => {
      const run = await cli(target, "trends", "pending", "--json");
      const rows = JSON.parse(run.stdout || "[]") as any[];
      return rows.length === 5 ? rows : null;
    });
    assert.ok(pending.some((p) => p.target === "https://news.example/reviewed"));
    assert.ok(pending.some((p) => p.target === "#reviewme"));
    assert.deepEqual(pending.map((p) => p.kind).sort(), [
      "link",
      "status",
      "status",
      "status",
      "tag",
    ]);
    // ...but nothing is listed before a moderator allows it.
    assert.deepEqual(await names(server), []);
    assert.deepEqual(await ok(server, null, "GET", "/api/v1/trends/statuses"), []);
    assert.deepEqual(await ok(server, null, "GET", "/api/v1/trends/links"), []);

    expectCode(await cli(target, "trends", "allow", "tag", "#ReviewMe"), 0);
    expectCode(await cli(target, "trends", "allow", "status", statusId), 0);
    expectCode(await cli(target, "trends", "allow", "link", "https://news.example/reviewed"), 0);
    assert.deepEqual(await names(server), ["reviewme"]);
    const statuses = await ok<any[]>(server, null, "GET", "/api/v1/trends/statuses");
    assert.deepEqual(statuses.map((s) => s.id), [statusId]);
    const linked = await ok<any[]>(server, null, "GET", "/api/v1/trends/links");
    assert.deepEqual(linked.map((l) => l.url), ["https://news.example/reviewed"]);

    const left = await cli(target, "trends", "pending", "--json");
    assert.equal(JSON.parse(left.stdout).length, 2, "two statuses still wait");
    expectCode(await cli(target, "trends", "reject", "tag", "reviewme"), 0);
    assert.deepEqual(await names(server), []);

    const unknown = await cli(target, "trends", "allow", "tag", "nosuchtag");
    expectCode(unknown, 1);
    assert.match(unknown.stderr, /No tag #nosuchtag/);
    expectCode(await cli(target, "trends", "allow", "planet", "x"), 1);
    expectCode(await cli(target, "trends", "allow", "status", "not-an-id"), 1);

    // Staff featuring accounts in follow suggestions, by the same command line.
    const featured = await cli(target, "suggestions", "feature", "@REV0");
    expectCode(featured, 0);
    assert.match(featured.stdout, /Featured @rev0 in follow suggestions/);
    assert.match((await cli(target, "suggestions", "feature", "rev0")).stdout, /already/);
    assert.match((await cli(target, "suggestions", "list")).stdout, /@rev0\s+yes/);
    const viewer = await createUser(server, "viewer");
    const suggested = await ok<any[]>(server, viewer, "GET", "/api/v2/suggestions");
    assert.deepEqual(suggested.map((s) => [s.account.username, s.source]), [["rev0", "staff"]]);
    expectCode(await cli(target, "suggestions", "unfeature", "rev0"), 0);
    assert.deepEqual(await ok(server, viewer, "GET", "/api/v2/suggestions"), []);
    const nobody = await cli(target, "suggestions", "feature", "nobody@nowhere.example");
    expectCode(nobody, 1);
    assert.match(nobody.stderr, /No account @nobody@nowhere.example/);
  } finally {
    await server.close({ destroy: true });
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
});
