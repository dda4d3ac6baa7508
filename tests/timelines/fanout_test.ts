/**
 * Fan-out on write: who gets a status in their home (and list) feed, read
 * back over GET /api/v1/timelines/home and /api/v1/timelines/list/:id.
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { follow, ids } from "./helpers.ts";

const HOME = "/api/v1/timelines/home?limit=40";

test("fan-out: followers, visibility, mutes, blocks, replies, languages", async () => {
  const instance = await startInstance();
  try {
    const [alice, bob, carol, dave, erin, frank, hank] = await Promise.all(
      ["alice", "bob", "carol", "dave", "erin", "frank", "hank"].map((n) =>
        createUser(instance, n)
      ),
    );
    await follow(instance, bob, alice);
    await follow(instance, dave, alice);
    await follow(instance, erin, alice);
    await follow(instance, hank, alice, { languages: ["fr"] });
    await ok(instance, dave, "POST", `/api/v1/accounts/${alice.id}/mute`);

    const hello = await postStatus(instance, alice, "hello world", { language: "en" });
    const secret = await postStatus(instance, alice, "followers only", { visibility: "private" });
    const dmBob = await postStatus(instance, alice, "@bob psst", { visibility: "direct" });
    const dmCarol = await postStatus(instance, alice, "@carol psst", { visibility: "direct" });
    const french = await postStatus(instance, alice, "bonjour", { language: "fr" });

    const aliceHome = await ids(instance, alice, HOME);
    for (const s of [hello, secret, dmBob, dmCarol, french]) {
      assert.ok(aliceHome.includes(s.id), "the author sees everything they post");
    }
    const bobHome = await ids(instance, bob, HOME);
    assert.ok(bobHome.includes(hello.id) && bobHome.includes(secret.id));
    assert.ok(bobHome.includes(dmBob.id), "a mentioned follower gets the direct status");
    assert.ok(!bobHome.includes(dmCarol.id), "a follower not mentioned does not");
    assert.deepEqual(await ids(instance, carol, HOME), [], "non-followers get nothing");
    assert.deepEqual(await ids(instance, dave, HOME), [], "a muted author is left out");
    const hankHome = await ids(instance, hank, HOME);
    assert.ok(hankHome.includes(french.id) && !hankHome.includes(hello.id), "languages[]");

    // Blocking after the fact hides what is already in the feed, and nothing new arrives.
    assert.ok((await ids(instance, erin, HOME)).includes(hello.id));
    await ok(instance, erin, "POST", `/api/v1/accounts/${alice.id}/block`);
    await postStatus(instance, alice, "after the block");
    assert.deepEqual(await ids(instance, erin, HOME), []);

    // Replies: shown to a follower only when the follower also follows the one replied to.
    const frankPost = await postStatus(instance, frank, "frank here");
    const toFrank = await postStatus(instance, alice, "@frank hi", {
      in_reply_to_id: frankPost.id,
    });
    const thread = await postStatus(instance, alice, "more", { in_reply_to_id: hello.id });
    let home = await ids(instance, bob, HOME);
    assert.ok(!home.includes(toFrank.id), "reply to someone bob does not follow");
    assert.ok(home.includes(thread.id), "a self-reply (thread) is shown");
    await follow(instance, bob, frank);
    const toFrank2 = await postStatus(instance, alice, "@frank again", {
      in_reply_to_id: frankPost.id,
    });
    home = await ids(instance, bob, HOME);
    assert.ok(home.includes(toFrank2.id), "reply to someone bob follows");
    const bobPost = await postStatus(instance, bob, "bob asks");
    const aliceToBob = await postStatus(instance, alice, "@bob re", { in_reply_to_id: bobPost.id });
    assert.ok((await ids(instance, bob, HOME)).includes(aliceToBob.id), "a reply to bob himself");
  } finally {
    await instance.close({ destroy: true });
  }
});

test("fan-out: boosts, show_reblogs, followed hashtags, exclusive lists", async () => {
  const instance = await startInstance();
  try {
    const [alice, bob, carol, gina, ivan] = await Promise.all(
      ["alice", "bob", "carol", "gina", "ivan"].map((n) => createUser(instance, n)),
    );
    await follow(instance, bob, alice);
    await follow(instance, bob, carol);
    await follow(instance, gina, carol, { reblogs: false });
    await follow(instance, alice, carol);

    const original = await postStatus(instance, alice, "boost me");
    const boost = await ok(instance, carol, "POST", `/api/v1/statuses/${original.id}/reblog`);
    let home = await ids(instance, bob, HOME);
    assert.ok(home.includes(original.id), "bob has the original");
    assert.ok(!home.includes(boost.id), "a boost of a status already in the feed is skipped");
    assert.ok(!(await ids(instance, alice, HOME)).includes(boost.id), "your own status boosted");
    assert.ok(!(await ids(instance, gina, HOME)).includes(boost.id), "show_reblogs false");

    const ivanPost = await postStatus(instance, ivan, "from ivan");
    const boost2 = await ok(instance, carol, "POST", `/api/v1/statuses/${ivanPost.id}/reblog`);
    const boost3 = await ok(instance, alice, "POST", `/api/v1/statuses/${ivanPost.id}/reblog`);
    home = await ids(instance, bob, HOME);
    assert.ok(home.includes(boost2.id), "a boost of something new is shown");
    assert.ok(!home.includes(boost3.id), "a second boost of the same status is not");
    const [shown] = (await ok<any[]>(instance, bob, "GET", HOME))
      .filter((s) => s.id === boost2.id);
    assert.equal(shown.reblog.id, ivanPost.id);
    assert.ok(!(await ids(instance, gina, HOME)).includes(boost2.id));

    // Followed hashtags bring public statuses of strangers home; not unlisted ones.
    await ok(instance, gina, "POST", "/api/v1/tags/rookery/follow");
    const tagged = await postStatus(instance, ivan, "hello #Rookery");
    const quiet = await postStatus(instance, ivan, "quiet #rookery", { visibility: "unlisted" });
    home = await ids(instance, gina, HOME);
    assert.ok(home.includes(tagged.id) && !home.includes(quiet.id));

    // Exclusive lists keep their members out of home; the list timeline has them.
    const list = await ok(instance, bob, "POST", "/api/v1/lists", {
      title: "Close friends",
      exclusive: true,
    });
    await ok(instance, bob, "POST", `/api/v1/lists/${list.id}/accounts`, {
      account_ids: [alice.id],
    });
    const listed = await postStatus(instance, alice, "for the list");
    home = await ids(instance, bob, HOME);
    assert.ok(!home.includes(listed.id), "an exclusive list member's post stays out of home");
    const listIds = await ids(instance, bob, `/api/v1/timelines/list/${list.id}`);
    assert.ok(listIds.includes(listed.id), "… and is in the list");
    assert.ok(listIds.includes(original.id), "joining a list back-fills recent posts");
    const normal = await ok(instance, bob, "POST", "/api/v1/lists", { title: "Everyone" });
    await ok(instance, bob, "POST", `/api/v1/lists/${normal.id}/accounts`, {
      account_ids: [carol.id],
    });
    const carolPost = await postStatus(instance, carol, "carol in a normal list");
    assert.ok((await ids(instance, bob, HOME)).includes(carolPost.id));
    assert.ok(
      (await ids(instance, bob, `/api/v1/timelines/list/${normal.id}`)).includes(carolPost.id),
    );

    // Replies policy of lists: none keeps replies to others out, followed lets them in.
    await ok(instance, bob, "PUT", `/api/v1/lists/${normal.id}`, { replies_policy: "none" });
    const reply = await postStatus(instance, carol, "@alice yes", { in_reply_to_id: original.id });
    assert.ok(
      !(await ids(instance, bob, `/api/v1/timelines/list/${normal.id}`)).includes(reply.id),
    );
    await ok(instance, bob, "PUT", `/api/v1/lists/${normal.id}`, { replies_policy: "followed" });
    const reply2 = await postStatus(instance, carol, "@alice sure", {
      in_reply_to_id: original.id,
    });
    assert.ok(
      (await ids(instance, bob, `/api/v1/timelines/list/${normal.id}`)).includes(reply2.id),
    );

    // Deleting a status takes it and its boosts out of every feed.
    await ok(instance, ivan, "DELETE", `/api/v1/statuses/${ivanPost.id}`);
    home = await ids(instance, bob, HOME);
    assert.ok(!home.includes(ivanPost.id) && !home.includes(boost2.id));
    const { rows } = await countFeedRows(instance, [ivanPost.id, boost2.id, boost3.id]);
    assert.equal(rows, 0, "no feed row is left behind");
  } finally {
    await instance.close({ destroy: true });
  }
});

test("fan-out: blocks and mutes on either side, each refusal and an expired mute", async () => {
  // Fan-out reads once the accounts blocks and mutes may refuse a status to
  // (feed_filters.ts, AT_ODDS) and asks the exact rules only of those.
  const instance = await startInstance();
  try {
    const [alice, bob, carol, dave, erin, gina] = await Promise.all(
      ["alice", "bob", "carol", "dave", "erin", "gina"].map((n) => createUser(instance, n)),
    );
    for (const u of [bob, dave, erin]) await follow(instance, u, alice);
    await follow(instance, bob, carol);
    await follow(instance, dave, carol);
    // gina follows a tag only; the author blocks her.
    await ok(instance, gina, "POST", "/api/v1/tags/odds/follow");
    await ok(instance, alice, "POST", `/api/v1/accounts/${gina.id}/block`);
    // dave mutes carol (a boost of hers is refused), bob blocks carol (a
    // mention of her is refused), erin's mute of alice has expired.
    await ok(instance, dave, "POST", `/api/v1/accounts/${carol.id}/mute`);
    await ok(instance, bob, "POST", `/api/v1/accounts/${carol.id}/block`);
    await ok(instance, erin, "POST", `/api/v1/accounts/${alice.id}/mute`, { duration: 3600 });
    const { sql } = await import("drizzle-orm");
    await instance.rookery.ctx.database.rows(sql`UPDATE mutes
      SET expires_at = now() - interval '1 minute' WHERE account_id = ${erin.id}::bigint`);

    const tagged = await postStatus(instance, alice, "hello #odds");
    const carolPost = await postStatus(instance, carol, "carol speaks");
    const boost = await ok(instance, alice, "POST", `/api/v1/statuses/${carolPost.id}/reblog`);
    const mention = await postStatus(instance, alice, "@carol hi there");

    assert.ok(!(await ids(instance, gina, HOME)).includes(tagged.id), "the author blocks her");
    const daveHome = await ids(instance, dave, HOME);
    assert.ok(daveHome.includes(tagged.id), "dave gets alice's own posts");
    assert.ok(!daveHome.includes(boost.id) && !daveHome.includes(carolPost.id), "muted carol");
    const bobHome = await ids(instance, bob, HOME);
    assert.ok(bobHome.includes(tagged.id) && !bobHome.includes(mention.id), "blocked mention");
    const erinHome = await ids(instance, erin, HOME);
    assert.ok(erinHome.includes(tagged.id) && erinHome.includes(mention.id), "expired mute");
  } finally {
    await instance.close({ destroy: true });
  }
});

async function countFeedRows(
  instance: Awaited<ReturnType<typeof startInstance>>,
  statusIds: string[],
) {
  const { sql } = await import("drizzle-orm");
  const database = instance.rookery.ctx.database;
  const list = sql.join(statusIds.map((id) => sql`${id}::bigint`), sql`, `);
  const [row] = await database.rows<{ n: string | number }>(sql`SELECT
    (SELECT count(*) FROM home_feed WHERE status_id IN (${list}))
    + (SELECT count(*) FROM list_feed WHERE status_id IN (${list})) AS n`);
  return { rows: Number(row.n) };
}
