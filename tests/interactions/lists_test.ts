/**
 * Lists about interactions: favourited_by and reblogged_by (accounts, paged
 * by the favourite or boost row), the user's favourites and bookmarks
 * (statuses, paged by the favourite or bookmark row), and quotes of a status
 * with their revocation.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { quotes } from "../../db/schema/mod.ts";
import { mute } from "../../actors/relationships/mutes.ts";
import { startInstance, test } from "../harness.ts";
import { call, callJson, links } from "../fixtures/api.ts";
import { createUser, type TestUser } from "../fixtures/users.ts";
import { act, counters, post } from "./helpers.ts";

const ids = (body: { id: string }[]) => body.map((x) => x.id);

test("favourited_by and reblogged_by: newest first, Link paging, viewer filters", async (t) => {
  const a = await startInstance({ worker: false });
  try {
    const alice = await createUser(a, "alice");
    const fans: TestUser[] = [];
    for (const name of ["ann", "ben", "cid", "dee"]) fans.push(await createUser(a, name));
    const s = await post(a, alice, "Popular");
    for (const fan of fans) {
      await act(a, fan, s, "favourite");
      await act(a, fan, s, "reblog");
    }
    const newestFirst = fans.map((f) => f.id).reverse();

    for (const list of ["favourited_by", "reblogged_by"]) {
      await t.step(`${list}: anonymous, pages of 2 with next and prev`, async () => {
        const all = await callJson(a, null, "GET", `/api/v1/statuses/${s}/${list}`);
        assert.equal(all.status, 200);
        assert.deepEqual(ids(all.body), newestFirst);
        assert.equal(links(all.headers.get("link")).next, undefined, "no next on a short page");

        const first = await callJson(a, null, "GET", `/api/v1/statuses/${s}/${list}?limit=2`);
        assert.deepEqual(ids(first.body), newestFirst.slice(0, 2));
        const l1 = links(first.headers.get("link"));
        assert.ok(l1.next.searchParams.get("max_id"));
        assert.ok(l1.prev.searchParams.get("since_id"));
        assert.equal(l1.next.searchParams.get("limit"), "2");
        assert.ok(
          !newestFirst.includes(l1.next.searchParams.get("max_id")!),
          "row ids, not accounts",
        );
        const second = await callJson(a, null, "GET", l1.next.pathname + l1.next.search);
        assert.deepEqual(ids(second.body), newestFirst.slice(2, 4));
        const l2 = links(second.headers.get("link"));
        const third = await callJson(a, null, "GET", l2.next.pathname + l2.next.search);
        assert.deepEqual(third.body, []);
        assert.equal(third.headers.get("link"), null);
        const back = await callJson(a, null, "GET", l2.prev.pathname + l2.prev.search);
        assert.deepEqual(ids(back.body), newestFirst.slice(0, 2));
        const minId = l2.prev.searchParams.get("since_id")!;
        const up = await callJson(
          a,
          null,
          "GET",
          `/api/v1/statuses/${s}/${list}?min_id=${minId}&limit=1`,
        );
        assert.deepEqual(ids(up.body), [newestFirst[1]]);
        const over = await callJson(a, null, "GET", `/api/v1/statuses/${s}/${list}?limit=500`);
        assert.equal(over.body.length, 4);
      });
    }

    await t.step("a viewer does not see accounts it blocks or mutes", async () => {
      await mute(a.rookery.ctx, alice.id, fans[0].id, {});
      const seen = await callJson(a, alice, "GET", `/api/v1/statuses/${s}/favourited_by`);
      assert.deepEqual(ids(seen.body), newestFirst.filter((id) => id !== fans[0].id));
    });

    await t.step("private boosts are not listed", async () => {
      const eve = await createUser(a, "eve");
      await act(a, eve, s, "reblog", { visibility: "private" });
      const seen = await callJson(a, null, "GET", `/api/v1/statuses/${s}/reblogged_by`);
      assert.ok(!ids(seen.body).includes(eve.id));
      assert.equal((await counters(a, s)).reblogs, 5);
    });

    await t.step("a token must carry read:accounts", async () => {
      const reader = await createUser(a, "reader", { scopes: ["read:statuses"] });
      const res = await call(a, reader, "GET", `/api/v1/statuses/${s}/favourited_by`);
      assert.equal(res.status, 403);
      const good = await createUser(a, "good", { scopes: ["read:accounts"] });
      assert.equal((await call(a, good, "GET", `/api/v1/statuses/${s}/reblogged_by`)).status, 200);
    });
  } finally {
    await a.close({ destroy: true });
  }
});

test("Favourites and bookmarks lists: newest first, Link with max_id and min_id", async (t) => {
  const a = await startInstance({ worker: false });
  try {
    const alice = await createUser(a, "alice");
    const bob = await createUser(a, "bob");
    const posts: string[] = [];
    for (let i = 0; i < 5; i++) posts.push(await post(a, alice, `Post ${i}`));
    // Saved in an order other than posting: the list follows the saving.
    const order = [posts[2], posts[0], posts[4], posts[1], posts[3]];

    for (const [list, action] of [["favourites", "favourite"], ["bookmarks", "bookmark"]]) {
      await t.step(list, async () => {
        for (const id of order) await act(a, bob, id, action);
        const expected = [...order].reverse();
        const all = await callJson(a, bob, "GET", `/api/v1/${list}`);
        assert.equal(all.status, 200);
        assert.deepEqual(ids(all.body), expected);
        assert.equal(all.body[0][action === "favourite" ? "favourited" : "bookmarked"], true);
        assert.equal(links(all.headers.get("link")).next, undefined);

        const first = await callJson(a, bob, "GET", `/api/v1/${list}?limit=2`);
        assert.deepEqual(ids(first.body), expected.slice(0, 2));
        const l1 = links(first.headers.get("link"));
        assert.ok(l1.prev.searchParams.get("min_id"));
        const second = await callJson(a, bob, "GET", l1.next.pathname + l1.next.search);
        assert.deepEqual(ids(second.body), expected.slice(2, 4));
        const l2 = links(second.headers.get("link"));
        const back = await callJson(a, bob, "GET", l2.prev.pathname + l2.prev.search);
        assert.deepEqual(ids(back.body), expected.slice(0, 2));
        const limited = await callJson(a, bob, "GET", `/api/v1/${list}?limit=100&max_id=zzz`);
        assert.equal(limited.body.length, 5);

        // Only one's own list.
        const other = await callJson(a, alice, "GET", `/api/v1/${list}`);
        assert.deepEqual(other.body, []);
        // Undo takes the status off the list.
        await act(a, bob, order[4], `un${action}`);
        const after = await callJson(a, bob, "GET", `/api/v1/${list}`);
        assert.deepEqual(ids(after.body), expected.slice(1));
      });
    }
  } finally {
    await a.close({ destroy: true });
  }
});

test("Quotes of a status: accepted ones listed, the quoted author revokes", async (t) => {
  const a = await startInstance({ worker: false });
  try {
    const alice = await createUser(a, "alice");
    const bob = await createUser(a, "bob");
    const carol = await createUser(a, "carol");
    const { db } = a.rookery.ctx.database;
    const s = await post(a, alice, "Quote me");
    const q1 = await post(a, bob, "Quoting", { quotedStatusId: s });
    const q2 = await post(a, carol, "Me too", { quotedStatusId: s });
    const q3 = await post(a, carol, "Only followers", {
      quotedStatusId: s,
      visibility: "private",
    });

    await t.step("the list shows accepted quotes the viewer may see, newest first", async () => {
      assert.equal((await counters(a, s)).quotes, 3);
      const mine = await callJson(a, alice, "GET", `/api/v1/statuses/${s}/quotes`);
      assert.equal(mine.status, 200);
      assert.deepEqual(ids(mine.body), [q2, q1]);
      assert.equal(mine.body[0].quote.state, "accepted");
      const paged = await callJson(a, alice, "GET", `/api/v1/statuses/${s}/quotes?limit=1`);
      assert.deepEqual(ids(paged.body), [q2]);
      const l = links(paged.headers.get("link"));
      const next = await callJson(a, alice, "GET", l.next.pathname + l.next.search);
      assert.deepEqual(ids(next.body), [q1]);
      assert.ok(l.prev.searchParams.get("since_id"));
      // The quoting author sees their own private quote.
      const carols = await callJson(a, carol, "GET", `/api/v1/statuses/${s}/quotes`);
      assert.deepEqual(ids(carols.body), [q3, q2, q1]);
    });

    await t.step("only the quoted author may revoke", async () => {
      const refused = await callJson(a, bob, "POST", `/api/v1/statuses/${s}/quotes/${q1}/revoke`);
      assert.equal(refused.status, 403);
      assert.equal(refused.body.error, "This action is not allowed");
      const missing = await callJson(
        a,
        alice,
        "POST",
        `/api/v1/statuses/${s}/quotes/${s}/revoke`,
      );
      assert.equal(missing.status, 404);
    });

    await t.step("revoking answers the quoting status and drops it from the list", async () => {
      const revoked = await act(a, alice, `${s}/quotes/${q1}`, "revoke");
      assert.equal(revoked.id, q1);
      assert.equal(revoked.quote.state, "revoked");
      const [row] = await db.select().from(quotes).where(eq(quotes.statusId, q1));
      assert.equal(row.state, "revoked");
      assert.equal((await counters(a, s)).quotes, 2);
      const again = await act(a, alice, `${s}/quotes/${q1}`, "revoke");
      assert.equal(again.quote.state, "revoked");
      assert.equal((await counters(a, s)).quotes, 2);
      const list = await callJson(a, alice, "GET", `/api/v1/statuses/${s}/quotes`);
      assert.deepEqual(ids(list.body), [q2]);
    });

    await t.step("a pending quote becomes rejected", async () => {
      await db.update(quotes).set({ state: "pending" }).where(eq(quotes.statusId, q2));
      const res = await act(a, alice, `${s}/quotes/${q2}`, "revoke");
      assert.equal(res.quote.state, "rejected");
      assert.equal((await counters(a, s)).quotes, 2);
    });
  } finally {
    await a.close({ destroy: true });
  }
});
