/**
 * A large fan-out publishes its `update` before writing the home rows
 * (actors/timelines/pending_home.ts): a follower who reads home on the frame
 * finds the post while the rows are still pending, the rows are written by
 * the relay once the second transaction can run (here: after it failed, as
 * after a crash), and followers the rules leave out get neither frame nor row.
 *
 * The second transaction is held back deterministically by a row trigger on
 * home_feed that refuses every insert (the posting transaction of a large
 * fan-out inserts no home row, so it is not affected); dropping it and
 * running the relay finishes what was promised.
 */
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { startInstance, test } from "../harness.ts";
import { ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { WsClient } from "../streaming/helpers.ts";
import { PENDING_FAN_OUT } from "../../actors/timelines/pending_home.ts";
import { insertLocalAccounts } from "../../bench/seed.ts";

test("a large fan-out: the frame before the rows, home on the frame, the relay finishes", async (t) => {
  const instance = await startInstance({ listen: true });
  const open: WsClient[] = [];
  const { database } = instance.rookery.ctx;
  const count = async (query: ReturnType<typeof sql>) =>
    Number((await database.rows<{ n: string | number }>(query))[0].n);
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
    // Enough more local followers to take the pending path.
    const base = BigInt(Date.now() - 40 * 86_400_000) << 16n;
    await insertLocalAccounts(database, {
      origin: instance.origin,
      base,
      prefix: "many",
      count: PENDING_FAN_OUT,
      statusesCount: 0,
      passwordHash: "unused",
    });
    await database.db.execute(sql`INSERT INTO follows (id, account_id, target_account_id)
      SELECT ${base}::bigint + (i << 16) + 2, ${base}::bigint + (i << 16), ${author.id}::bigint
      FROM generate_series(0, ${PENDING_FAN_OUT - 1}::int) AS i`);
    // Holds the second transaction back: every home_feed insert fails.
    await database.db.execute(sql.raw(`CREATE FUNCTION test_hold_home() RETURNS trigger
      LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'home rows held back'; END $$`));
    await database.db.execute(sql.raw(`CREATE TRIGGER test_hold_home BEFORE INSERT ON home_feed
      FOR EACH ROW EXECUTE FUNCTION test_hold_home()`));

    const post = await postStatus(instance, author, "Hello @erin, and everyone");
    const receivers = PENDING_FAN_OUT + 2; // the many, the reader and the author

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

    await t.step("an edit while the rows are pending reaches the follower", async () => {
      await ok(instance, author, "PUT", `/api/v1/statuses/${post.id}`, {
        status: "Hello @erin, and everyone (edited)",
      });
      const frame = await readerWs.next("status.update", "user");
      assert.equal(JSON.parse(frame.payload!).id, post.id);
    });

    await t.step("after the failure (as after a crash), the relay writes the rows", async () => {
      await database.db.execute(sql.raw(`DROP TRIGGER test_hold_home ON home_feed`));
      await database.db.execute(sql`UPDATE outbox_intents SET next_attempt_at = now(),
        locked_until = NULL WHERE method = 'finishHomeFanOut'`);
      await instance.rookery.ctx.core.outboxRelay.relay();
      assert.equal(await count(sql`SELECT count(*) AS n FROM pending_home`), 0);
      assert.equal(
        await count(sql`SELECT count(*) AS n FROM home_feed WHERE status_id = ${post.id}::bigint`),
        receivers,
      );
      const held = await count(sql`SELECT count(*) AS n FROM home_feed
        WHERE status_id = ${post.id}::bigint
          AND account_id IN (${muting.id}::bigint, ${blocking.id}::bigint)`);
      assert.equal(held, 0, "the rules' choice, not the followers");
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
      await database.db.execute(sql.raw(`CREATE TRIGGER test_hold_home BEFORE INSERT ON home_feed
        FOR EACH ROW EXECUTE FUNCTION test_hold_home()`));
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
      await database.db.execute(sql.raw(`DROP TRIGGER test_hold_home ON home_feed`));
    });
  } finally {
    for (const ws of open) await ws.close();
    await instance.close({ destroy: true });
  }
});
