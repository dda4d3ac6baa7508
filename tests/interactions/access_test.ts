/**
 * Every interaction route answers 404 "Record not found" for a status the
 * caller may not see, exactly as for a missing one or a malformed id, and
 * writes nothing.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { bookmarks, favourites, statuses, statusPins } from "../../db/schema/mod.ts";
import { block } from "../../actors/relationships/blocks.ts";
import { startInstance, test } from "../harness.ts";
import { call, callJson } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { act, counters, follows, post } from "./helpers.ts";

const ACTIONS = [
  "reblog",
  "unreblog",
  "favourite",
  "unfavourite",
  "bookmark",
  "unbookmark",
  "mute",
  "unmute",
  "pin",
  "unpin",
];

test("Hidden, missing and malformed statuses are 404 on every route", async (t) => {
  const a = await startInstance({ worker: false });
  try {
    const alice = await createUser(a, "alice");
    const bob = await createUser(a, "bob");
    const carol = await createUser(a, "carol");
    const { db } = a.rookery.ctx.database;
    const priv = await post(a, carol, "Followers only", { visibility: "private" });
    const dm = await post(a, carol, "@alice only you", { visibility: "direct" });
    const pub = await post(a, carol, "Public");

    const expect404 = async (
      who: typeof bob | null,
      method: string,
      path: string,
      label: string,
    ) => {
      const res = await callJson(a, who, method, path);
      assert.equal(res.status, 404, `${label}: ${JSON.stringify(res.body)}`);
      assert.deepEqual(res.body, { error: "Record not found" }, label);
    };
    const everyRoute = async (who: typeof bob, id: string, label: string) => {
      for (const action of ACTIONS) {
        await expect404(who, "POST", `/api/v1/statuses/${id}/${action}`, `${label} ${action}`);
      }
      for (const list of ["favourited_by", "reblogged_by", "quotes"]) {
        await expect404(who, "GET", `/api/v1/statuses/${id}/${list}`, `${label} ${list}`);
      }
      await expect404(
        who,
        "POST",
        `/api/v1/statuses/${id}/quotes/${pub}/revoke`,
        `${label} revoke`,
      );
    };

    await t.step("a private status of someone one does not follow", async () => {
      await everyRoute(bob, priv, "private");
      await expect404(null, "GET", `/api/v1/statuses/${priv}/favourited_by`, "anonymous");
      await expect404(null, "GET", `/api/v1/statuses/${pub}x/reblogged_by`, "anonymous bad id");
    });

    await t.step("a direct status one is not mentioned in", async () => {
      await everyRoute(bob, dm, "direct");
    });

    await t.step("missing, malformed and oversized ids", async () => {
      await everyRoute(bob, "1234567890123", "missing");
      await everyRoute(bob, "abc", "malformed");
      await everyRoute(bob, "-1", "negative");
      await everyRoute(bob, "9".repeat(400), "oversized");
      await expect404(bob, "POST", `/api/v1/statuses/${pub}/quotes/nope/revoke`, "bad quoting id");
    });

    await t.step("statuses of accounts blocking one (or blocked)", async () => {
      await block(a.rookery.ctx, carol.id, alice.id);
      await everyRoute(alice, pub, "blocked by author");
      await everyRoute(alice, dm, "blocked by author, mentioned");
    });

    await t.step("nothing was written", async () => {
      for (const id of [priv, dm, pub]) {
        assert.deepEqual(await counters(a, id), { reblogs: 0, favourites: 0, quotes: 0 });
      }
      assert.equal((await db.select().from(favourites)).length, 0);
      assert.equal((await db.select().from(bookmarks)).length, 0);
      assert.equal((await db.select().from(statusPins)).length, 0);
      const boosts = await db.select().from(statuses).where(eq(statuses.accountId, bob.id));
      assert.equal(boosts.length, 0);
    });

    await t.step("a follower may see, favourite and bookmark a private status", async () => {
      await follows(a, bob, carol);
      assert.equal((await act(a, bob, priv, "favourite")).favourited, true);
      assert.equal((await act(a, bob, priv, "bookmark")).bookmarked, true);
      const listed = await callJson(a, bob, "GET", `/api/v1/statuses/${priv}/favourited_by`);
      assert.equal(listed.status, 200);
      assert.deepEqual(listed.body.map((x: { id: string }) => x.id), [bob.id]);
      // …but not anonymously.
      const anon = await call(a, null, "GET", `/api/v1/statuses/${priv}/favourited_by`);
      assert.equal(anon.status, 404);
    });

    await t.step("what one holds can be taken back after the status became hidden", async () => {
      await block(a.rookery.ctx, carol.id, bob.id);
      const unfav = await callJson(a, bob, "POST", `/api/v1/statuses/${priv}/unfavourite`);
      // The favourite goes; the answer shows the status only to those who may see it.
      assert.equal((await counters(a, priv)).favourites, 0);
      assert.equal(unfav.status, 404);
      await call(a, bob, "POST", `/api/v1/statuses/${priv}/unbookmark`);
      assert.equal((await db.select().from(bookmarks)).length, 0);
      // Hidden statuses leave the lists.
      const favs = await callJson(a, bob, "GET", "/api/v1/bookmarks");
      assert.deepEqual(favs.body, []);
    });

    await t.step("one's unpin leaves someone else's pin alone", async () => {
      const own = await post(a, carol, "Carol's pin");
      await act(a, carol, own, "pin");
      const dave = await createUser(a, "dave");
      const seen = await act(a, dave, own, "unpin");
      assert.equal(seen.pinned, undefined);
      assert.equal((await db.select().from(statusPins)).length, 1);
      assert.equal((await act(a, carol, own, "pin")).pinned, true);
    });
  } finally {
    await a.close({ destroy: true });
  }
});
