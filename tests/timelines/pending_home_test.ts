/**
 * A large fan-out publishes its `update` before writing the home rows
 * (actors/timelines/pending_home.ts): a follower who reads home on the frame
 * finds the post while the rows are still pending, the rows are written by
 * the relay once the second transaction can run (here: after it failed, as
 * after a crash), and followers the rules leave out get neither frame nor row.
 *
 * The second transaction is held back deterministically by a row trigger on
 * home_feed that refuses the rows of the large fan-outs' authors (their
 * posting transactions insert no home row, so they are not affected);
 * dropping it and running the relay finishes what was promised. Within the
 * window, followers block, mute and unfollow, a feed is regenerated and a
 * post is boosted twice: the pending read and the rows follow the fan-out's
 * rules as they are when read and written. A second test kills the process
 * between the publish and the rows, and the restarted one writes them.
 */
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { startInstance, test } from "../harness.ts";
import { restartableChild } from "../fixtures/crash_children.ts";
import { ok, postStatus } from "../fixtures/api.ts";
import { createUser, type TestUser } from "../fixtures/users.ts";
import { WsClient } from "../streaming/helpers.ts";
import { PENDING_FAN_OUT } from "../../actors/timelines/pending_home.ts";
import { addLocalFollowers } from "../fixtures/many_followers.ts";
import { rebuildHomeFeedIfEmpty } from "../../actors/timelines/regenerate.ts";

const DROP_HOLD = sql.raw(`DROP TRIGGER test_hold_home ON home_feed`);

test("a large fan-out: the frame before the rows, home on the frame, the relay finishes", async (t) => {
  const instance = await startInstance({ listen: true });
  const open: WsClient[] = [];
  const { database } = instance.rookery.ctx;
  const count = async (query: ReturnType<typeof sql>) =>
    Number((await database.rows<{ n: string | number }>(query))[0].n);
  const holdHomeRows = () =>
    database.db.execute(sql.raw(`CREATE TRIGGER test_hold_home BEFORE INSERT ON home_feed
      FOR EACH ROW EXECUTE FUNCTION test_hold_home()`));
  // The hold lifted and the relay's intent made due at once: the relay writes the rows.
  const relayHeldRows = async () => {
    await database.db.execute(DROP_HOLD);
    await database.db.execute(sql`UPDATE outbox_intents SET next_attempt_at = now(),
      locked_until = NULL WHERE method = 'finishHomeFanOut'`);
    await instance.rookery.ctx.core.outboxRelay.relay();
  };
  try {
    const author = await createUser(instance, "author");
    const erin = await createUser(instance, "erin");
    const names = ["reader", "muting", "blocking"];
    const users = await Promise.all(names.map((name) => createUser(instance, name)));
    const [reader, muting, blocking] = users;
    for (const u of users) {
      await ok(instance, u, "POST", `/api/v1/accounts/${author.id}/follow`);
      open.push(
        await WsClient.open(instance, `/api/v1/streaming?stream=user&access_token=${u.token}`),
      );
    }
    const [readerWs, mutingWs, blockingWs] = open;
    await ok(instance, muting, "POST", `/api/v1/accounts/${author.id}/mute`);
    await ok(instance, muting, "POST", `/api/v1/accounts/${erin.id}/follow`);
    await ok(instance, blocking, "POST", `/api/v1/accounts/${erin.id}/block`);
    // An earlier post, so that no page below is empty (an empty home is regenerated).
    const earlier = await postStatus(instance, author, "Earlier");
    for (const ws of [readerWs, blockingWs]) await ws.next("update", "user");
    // Followers who change their mind while the rows are pending, one whose
    // feed is regenerated meanwhile, and two boosters the reader follows.
    const lateNames = ["late_block", "late_mute", "late_unfollow", "fresh", "booster1", "booster2"];
    const late = await Promise.all(lateNames.map((name) => createUser(instance, name)));
    const [lateBlock, lateMute, lateUnfollow, fresh, booster1, booster2] = late;
    for (const u of [lateBlock, lateMute, lateUnfollow, fresh]) {
      await ok(instance, u, "POST", `/api/v1/accounts/${author.id}/follow`);
    }
    for (const b of [booster1, booster2]) {
      await ok(instance, reader, "POST", `/api/v1/accounts/${b.id}/follow`);
    }
    // Enough more local followers to take the pending path (of the author and the boosters).
    const targets = [author.id, booster1.id, booster2.id];
    await addLocalFollowers(database, instance.origin, targets, PENDING_FAN_OUT);
    // Holds the second transaction back: every home_feed row of a status by
    // the author or the first booster fails, but in a transaction that says
    // otherwise (a regeneration below).
    await database.db.execute(sql.raw(`CREATE FUNCTION test_hold_home() RETURNS trigger
      LANGUAGE plpgsql AS $$ BEGIN
        IF current_setting('rookery_test.let_home_in', true) = 'on'
          OR NOT EXISTS (SELECT 1 FROM statuses WHERE id = NEW.status_id
            AND account_id IN (${author.id}, ${booster1.id}))
        THEN RETURN NEW; END IF;
        RAISE EXCEPTION 'home rows held back';
      END $$`));
    await holdHomeRows();

    const post = await postStatus(instance, author, "Hello @erin, and everyone");
    // The many, the reader, the author and the four late followers.
    const receivers = PENDING_FAN_OUT + 6;
    const homeIds = async (u: typeof reader, query = "limit=40") =>
      (await ok(instance, u, "GET", `/api/v1/timelines/home?${query}`)).map(
        (s: { id: string }) => s.id,
      );

    await t.step("the follower reads home on the frame and finds the post", async () => {
      const frame = await readerWs.next("update", "user");
      assert.equal(JSON.parse(frame.payload!).id, post.id);
      const home = await ok(instance, reader, "GET", "/api/v1/timelines/home?limit=5");
      assert.equal(home[0]?.id, post.id, "home holds the post on the frame");
      assert.equal(home.filter((s: { id: string }) => s.id === post.id).length, 1);
      const byMaxId = await ok(instance, reader, "GET", `/api/v1/timelines/home?max_id=${post.id}`);
      assert.deepEqual(byMaxId.map((s: { id: string }) => s.id), [earlier.id], "paged as a row");
      const byMinId = await ok(instance, reader, "GET", "/api/v1/timelines/home?min_id=0");
      assert.deepEqual(byMinId.map((s: { id: string }) => s.id), [post.id, earlier.id]);
      const sinceEarlier = `/api/v1/timelines/home?min_id=${earlier.id}`;
      assert.deepEqual(
        (await ok(instance, reader, "GET", sinceEarlier)).map((s: { id: string }) => s.id),
        [post.id],
      );
      // Still promised, not written: the window was the pending row's.
      assert.equal(
        await count(sql`SELECT count(*) AS n FROM home_feed WHERE status_id = ${post.id}::bigint`),
        0,
      );
      assert.equal(
        await count(sql`SELECT cardinality(receivers) AS n FROM pending_home
          WHERE status_id = ${post.id}::bigint`),
        receivers,
      );
    });

    await t.step("a block, mute or unfollow in the window hides the pending post", async () => {
      for (const u of [lateBlock, lateMute, lateUnfollow]) {
        assert.ok((await homeIds(u)).includes(post.id), `${u.username} before`);
      }
      await ok(instance, lateBlock, "POST", `/api/v1/accounts/${author.id}/block`);
      await ok(instance, lateMute, "POST", `/api/v1/accounts/${author.id}/mute`);
      await ok(instance, lateUnfollow, "POST", `/api/v1/accounts/${author.id}/unfollow`);
      for (const u of [lateBlock, lateMute, lateUnfollow]) {
        assert.ok(!(await homeIds(u)).includes(post.id), `${u.username} after`);
      }
    });

    await t.step("a feed regenerated in the window shows the post once", async () => {
      // The trigger lets this transaction's rows through: a regeneration
      // writes the feed while the fan-out's rows are still held back.
      await database.db.execute(sql`DELETE FROM home_feed WHERE account_id = ${fresh.id}::bigint`);
      await database.db.transaction(async (tx) => {
        await tx.execute(sql.raw(`SET LOCAL rookery_test.let_home_in = 'on'`));
        assert.ok(await rebuildHomeFeedIfEmpty(tx, fresh.id) > 0);
      });
      assert.deepEqual(await homeIds(fresh), [post.id, earlier.id]);
      assert.deepEqual(await homeIds(fresh, "limit=1"), [post.id]);
      assert.deepEqual(await homeIds(fresh, `max_id=${post.id}&limit=1`), [earlier.id]);
      assert.deepEqual(await homeIds(fresh, "min_id=0&limit=1"), [earlier.id]);
      assert.deepEqual(await homeIds(fresh, `since_id=${earlier.id}`), [post.id]);
    });

    await t.step("an edit while the rows are pending reaches the follower", async () => {
      await ok(instance, author, "PUT", `/api/v1/statuses/${post.id}`, {
        status: "Hello @erin, and everyone (edited)",
      });
      const frame = await readerWs.next("status.update", "user");
      assert.equal(JSON.parse(frame.payload!).id, post.id);
    });

    await t.step("after the failure (as after a crash), the relay writes the rows", async () => {
      await relayHeldRows();
      assert.equal(await count(sql`SELECT count(*) AS n FROM pending_home`), 0);
      assert.equal(
        await count(sql`SELECT count(*) AS n FROM home_feed WHERE status_id = ${post.id}::bigint`),
        receivers - 3,
      );
      const held = await count(sql`SELECT count(*) AS n FROM home_feed
        WHERE status_id = ${post.id}::bigint
          AND account_id IN (${muting.id}::bigint, ${blocking.id}::bigint)`);
      assert.equal(held, 0, "the rules' choice, not the followers");
      const changed = [lateBlock, lateMute, lateUnfollow].map((u) => sql`${u.id}::bigint`);
      const late = await count(sql`SELECT count(*) AS n FROM home_feed
        WHERE status_id = ${post.id}::bigint AND account_id IN (${sql.join(changed, sql`, `)})`);
      assert.equal(late, 0, "the rules at the time the rows are written");
      assert.deepEqual(await homeIds(fresh), [post.id, earlier.id]);
      const home = await ok(instance, reader, "GET", "/api/v1/timelines/home?limit=5");
      assert.equal(home.filter((s: { id: string }) => s.id === post.id).length, 1);
    });

    await t.step("muting and blocking followers get neither frame nor row", async () => {
      const after = await postStatus(instance, author, "No mention here");
      await blockingWs.nothingBefore("update", { event: "update", id: after.id, stream: "user" });
      const fromErin = await postStatus(instance, erin, "From erin");
      await mutingWs.nothingBefore("update", { event: "update", id: fromErin.id, stream: "user" });
      for (const u of [muting, blocking]) {
        const home = await ok(instance, u, "GET", "/api/v1/timelines/home");
        assert.ok(!home.some((s: { id: string }) => s.id === post.id), u.username);
      }
    });

    await t.step("a deleted status's pending rows go with it", async () => {
      await holdHomeRows();
      const gone = await postStatus(instance, author, "Soon gone");
      await readerWs.inbox.take(
        (f) => f.event === "update" && JSON.parse(f.payload!).id === gone.id,
        10_000,
        "the update",
      );
      await ok(instance, author, "DELETE", `/api/v1/statuses/${gone.id}`);
      const frame = await readerWs.inbox.take(
        (f) => f.event === "delete" && f.payload === gone.id,
        10_000,
        "the delete",
      );
      assert.equal(frame.stream?.[0], "user");
      assert.equal(await count(sql`SELECT count(*) AS n FROM pending_home`), 0);
      await database.db.execute(DROP_HOLD);
    });

    await t.step("two boosts of one post in one window: the reader gets one", async () => {
      const original = await postStatus(instance, erin, "Boost me");
      await holdHomeRows();
      const boosted = (s: { reblog?: { id: string } | null }) => s.reblog?.id === original.id;
      for (const booster of [booster1, booster2]) {
        await ok(instance, booster, "POST", `/api/v1/statuses/${original.id}/reblog`);
      }
      const home = await ok(instance, reader, "GET", "/api/v1/timelines/home?limit=40");
      assert.equal(home.filter(boosted).length, 1, "one boost on the frame");
      await relayHeldRows();
      assert.equal(await count(sql`SELECT count(*) AS n FROM pending_home`), 0);
      assert.equal(
        await count(sql`SELECT count(*) AS n FROM home_feed
          WHERE account_id = ${reader.id}::bigint AND reblog_of_id = ${original.id}::bigint`),
        1,
      );
      const after = await ok(instance, reader, "GET", "/api/v1/timelines/home?limit=40");
      assert.equal(after.filter(boosted).length, 1, "one boost in the rows");
    });
  } finally {
    for (const ws of open) await ws.close();
    await instance.close({ destroy: true });
  }
});

const CHILD = new URL("../fixtures/pending_home_child.ts", import.meta.url).pathname;

test("a process killed between the publish and the rows: the restarted one writes them", async () => {
  const child = await restartableChild(CHILD);
  try {
    const first = child.spawn({
      USERS: "author,reader",
      FOLLOWERS: String(PENDING_FAN_OUT),
      CRASH_ON_PENDING: "1",
    });
    const [author, reader] = JSON.parse((await first.waitFor("users ")).slice(6)) as TestUser[];
    await first.waitFor("ready");
    const call = (user: TestUser, method: string, path: string, body?: unknown) =>
      fetch(new URL(path, child.origin), {
        method,
        headers: { Authorization: `Bearer ${user.token}`, "Content-Type": "application/json" },
        body: body ? JSON.stringify(body) : undefined,
      });
    const follow = await call(reader, "POST", `/api/v1/accounts/${author.id}/follow`);
    assert.equal(follow.status, 200, await follow.text());

    // The post commits (its update published, its rows promised); the
    // process dies as its relay is woken to write them.
    await call(author, "POST", "/api/v1/statuses", { status: "Survives a crash" })
      .then((res) => res.body?.cancel(), () => {/* the process died first */});
    const statusId = (await first.waitFor("crashing ")).slice(9);
    assert.equal((await first.status).code, 137, "died before the rows");

    const second = child.spawn({ FINISHED: statusId });
    const finished = JSON.parse((await second.waitFor("finished ")).slice(9));
    // The many, the reader and the author.
    assert.deepEqual(finished, { rows: PENDING_FAN_OUT + 2 });
    const home = await (await call(reader, "GET", "/api/v1/timelines/home")).json();
    assert.deepEqual(home.map((s: { id: string }) => s.id), [statusId]);
  } finally {
    await child.close();
  }
});
