/**
 * Following brings the followed account's recent posts into the home
 * timeline (and into the follower's lists that hold the account), as
 * Mastodon's MergeWorker does, whether the follow starts at once, when a
 * locked account accepts the request, or when a remote account sends its
 * Accept; unfollowing takes them out of both (UnmergeWorker). Each test
 * sends what a client sends: the follow, then a plain read of the home
 * timeline. A new account's first read already shows them (200, never
 * Mastodon's 206 with an empty page, which clients show as an empty feed).
 */
import assert from "node:assert/strict";
import { afterAll, test } from "../harness.ts";
import { callJson, ok, postStatus } from "../fixtures/api.ts";
import { arrived, followRemote, startPair } from "../fixtures/federation.ts";
import { createUser, type TestUser } from "../fixtures/users.ts";
import { follow, ids } from "./helpers.ts";
import { MERGE_PER_ACCOUNT } from "../../actors/timelines/regenerate.ts";

const { a, b } = await startPair();
afterAll(async () => {
  await a.close({ destroy: true });
  await b.close({ destroy: true });
});

const home = (who: TestUser) => ids(a, who, "/api/v1/timelines/home?limit=40");

test("a new account's first home read shows the posts of the account it just followed", async () => {
  const author = await createUser(a, "author1");
  const posted: string[] = [];
  for (const text of ["one", "two", "three"]) posted.push((await postStatus(a, author, text)).id);
  const newbie = await createUser(a, "newbie");
  await ok(a, newbie, "POST", `/api/v1/accounts/${author.id}/follow`);
  const first = await callJson<{ id: string }[]>(a, newbie, "GET", "/api/v1/timelines/home");
  assert.equal(first.status, 200);
  assert.deepEqual(first.body.map((s) => s.id), posted.toReversed());
});

test("a follow merges what the home timeline would show, and nothing else", async () => {
  const [reader, author, friend, muted, blocked, stranger] = await Promise.all(
    ["reader2", "author2", "friend2", "muted2", "blocked2", "stranger2"].map((n) =>
      createUser(a, n)
    ),
  );
  await follow(a, reader, friend);
  const own = (await postStatus(a, reader, "my own words")).id;
  await ok(a, reader, "POST", `/api/v1/accounts/${muted.id}/mute`);
  await ok(a, reader, "POST", `/api/v1/accounts/${blocked.id}/block`);

  const post = async (text: string, extra: Record<string, unknown> = {}) =>
    (await postStatus(a, author, text, extra)).id;
  const boost = async (of: TestUser, text: string) => {
    const original = await postStatus(a, of, text);
    return (await ok(a, author, "POST", `/api/v1/statuses/${original.id}/reblog`)).id as string;
  };
  const strangerPost = await postStatus(a, stranger, "who are you");
  const friendPost = await postStatus(a, friend, "hello");
  const shown = {
    pub: await post("public"),
    unlisted: await post("unlisted", { visibility: "unlisted" }),
    followers: await post("followers only", { visibility: "private" }),
    // A reply to someone the reader follows is shown.
    replyToFriend: await post(`@${friend.username} hi`, { in_reply_to_id: friendPost.id }),
    boost: await boost(stranger, "worth a boost"),
  };
  const selfReply = await post("and more", { in_reply_to_id: shown.pub });
  const hidden = {
    direct: await post(`@${reader.username} psst`, { visibility: "direct" }),
    replyToStranger: await post(`@${stranger.username} no`, { in_reply_to_id: strangerPost.id }),
    boostOfMuted: await boost(muted, "muted words"),
    mentionsBlocked: await post(`hey @${blocked.username}`),
  };

  await ok(a, reader, "POST", `/api/v1/accounts/${author.id}/follow`);
  const timeline = await home(reader);
  const expected = [...Object.values(shown), selfReply, own, friendPost.id];
  assert.deepEqual(new Set(timeline), new Set(expected));
  for (const [what, id] of Object.entries(hidden)) {
    assert.ok(!timeline.includes(id), `${what} was merged`);
  }
  // Newest first, as the feed is read.
  assert.deepEqual(timeline, [...timeline].sort((x, y) => BigInt(y) > BigInt(x) ? 1 : -1));

  // A follow without boosts merges none.
  const quiet = await createUser(a, "quiet2");
  await follow(a, quiet, author, { reblogs: false });
  const quietHome = await home(quiet);
  assert.ok(!quietHome.includes(shown.boost), "a boost came with reblogs=false");
  assert.ok(quietHome.includes(shown.pub));

  // A post already shown as someone's boost is not merged a second time.
  const booster = await createUser(a, "booster2");
  const watcher = await createUser(a, "watcher2");
  await follow(a, watcher, booster);
  const boosted = await ok(a, booster, "POST", `/api/v1/statuses/${shown.unlisted}/reblog`);
  assert.deepEqual(await home(watcher), [boosted.id]);
  await follow(a, watcher, author);
  const watcherHome = await home(watcher);
  assert.ok(!watcherHome.includes(shown.unlisted), "the boosted post shows twice");
  assert.ok(watcherHome.includes(boosted.id) && watcherHome.includes(shown.pub));
});

test(`a prolific account brings its newest ${MERGE_PER_ACCOUNT} posts, no more`, async () => {
  const reader = await createUser(a, "reader3");
  const own = (await postStatus(a, reader, "hello")).id; // the feed exists before the follow
  const author = await createUser(a, "prolific");
  const posted: string[] = [];
  for (let i = 0; i < MERGE_PER_ACCOUNT + 5; i++) {
    posted.push((await postStatus(a, author, `post ${i}`)).id);
  }
  await follow(a, reader, author);
  const newest = posted.slice(-MERGE_PER_ACCOUNT).toReversed();
  assert.deepEqual(await home(reader), newest);
  const older = await ids(a, reader, `/api/v1/timelines/home?max_id=${newest.at(-1)}`);
  assert.deepEqual(older, [own]);
});

test("an accepted request merges into home and lists; unfollowing takes the posts out", async () => {
  const reader = await createUser(a, "reader4");
  const locked = await createUser(a, "locked4");
  await ok(a, locked, "PATCH", "/api/v1/accounts/update_credentials", { locked: true });
  const pub = (await postStatus(a, locked, "for everyone")).id;
  const mine = (await postStatus(a, locked, "for followers", { visibility: "private" })).id;
  const own = (await postStatus(a, reader, "mine")).id;

  const requested = await ok(a, reader, "POST", `/api/v1/accounts/${locked.id}/follow`);
  assert.equal(requested.requested, true);
  // A pending request may already be in a list; the list waits for the answer.
  const list = await ok(a, reader, "POST", "/api/v1/lists", { title: "Close" });
  await ok(a, reader, "POST", `/api/v1/lists/${list.id}/accounts`, { account_ids: [locked.id] });
  const listIds = () => ids(a, reader, `/api/v1/timelines/list/${list.id}`);
  assert.deepEqual(await home(reader), [own]);
  assert.deepEqual(await listIds(), []);

  await ok(a, locked, "POST", `/api/v1/follow_requests/${reader.id}/authorize`);
  assert.deepEqual(await home(reader), [own, mine, pub]);
  assert.deepEqual(await listIds(), [mine, pub]);

  await ok(a, reader, "POST", `/api/v1/accounts/${locked.id}/unfollow`);
  assert.deepEqual(await home(reader), [own]);
  assert.deepEqual(await listIds(), []);
});

test("following a remote account merges its posts known here when its Accept arrives", async () => {
  const scout = await createUser(a, "scout5");
  const reader = await createUser(a, "reader5");
  const faraway = await createUser(b, "faraway5");
  await followRemote(a, scout, b, faraway);
  const posted = await postStatus(b, faraway, "from afar");
  const onA = await arrived(a, posted.uri);
  const own = (await postStatus(a, reader, "here")).id;
  assert.deepEqual(await home(reader), [own]);

  await followRemote(a, reader, b, faraway);
  assert.deepEqual(await home(reader), [own, onA.id]);
});
