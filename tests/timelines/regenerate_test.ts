/**
 * Feeds filled from statuses that already exist (actors/timelines/regenerate.ts):
 * a home feed rebuilt on its first read and a list back-filled when an
 * account joins it show what the fan-out rules let through, boosts above
 * all (the boosted original is looked up row by row there): boosts of
 * followed and unfollowed authors, of the reader's own post, of muted and
 * blocked accounts' posts, replies to followed and unfollowed accounts,
 * muted authors and posts mentioning a blocked account.
 */
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { afterAll, startInstance, test } from "../harness.ts";
import { ok, postStatus } from "../fixtures/api.ts";
import { createUser, type TestUser } from "../fixtures/users.ts";
import { follow, ids } from "./helpers.ts";

const instance = await startInstance();
afterAll(() => instance.close({ destroy: true }));

const [reader, author, friend, stranger, muted, blocked] = await Promise.all(
  ["reader", "author", "friend", "stranger", "muted", "blocked"].map((n) =>
    createUser(instance, n)
  ),
);
for (const followed of [author, friend, muted]) await follow(instance, reader, followed);
await ok(instance, reader, "POST", `/api/v1/accounts/${muted.id}/mute`);

const post = async (who: TestUser, text: string, extra: Record<string, unknown> = {}) =>
  (await postStatus(instance, who, text, extra)).id as string;
/** `author` boosts a new post of `of`; the post's and the boost's ids. */
const boost = async (of: TestUser, text: string) => {
  const original = await post(of, text);
  const reblog = await ok(instance, author, "POST", `/api/v1/statuses/${original}/reblog`);
  return { original, boost: reblog.id as string };
};

const own = await post(reader, "my own words");
const friendPost = await post(friend, "hello");
const strangerPost = await post(stranger, "who are you");
const mutedPost = await post(muted, "muted words");
const boosts = {
  ofStranger: await boost(stranger, "worth a boost"),
  ofFriend: await boost(friend, "a friend's post, boosted"),
  ofReader: (await ok(instance, author, "POST", `/api/v1/statuses/${own}/reblog`)).id as string,
  ofMuted: await boost(muted, "boosted muted words"),
  ofBlocked: await boost(blocked, "boosted by the author, blocked by the reader"),
};
await ok(instance, reader, "POST", `/api/v1/accounts/${blocked.id}/block`);
const byAuthor = {
  pub: await post(author, "public"),
  unlisted: await post(author, "unlisted", { visibility: "unlisted" }),
  followers: await post(author, "followers only", { visibility: "private" }),
  direct: await post(author, `@${reader.username} psst`, { visibility: "direct" }),
  replyToFriend: await post(author, `@${friend.username} hi`, { in_reply_to_id: friendPost }),
  replyToStranger: await post(author, `@${stranger.username} no`, {
    in_reply_to_id: strangerPost,
  }),
  replyToReader: await post(author, `@${reader.username} yes`, { in_reply_to_id: own }),
  mentionsBlocked: await post(author, `hey @${blocked.username}`),
};
const selfReply = await post(author, "and more", { in_reply_to_id: byAuthor.pub });

const newestFirst = (list: string[]) => [...list].sort((x, y) => BigInt(y) > BigInt(x) ? 1 : -1);

test("a rebuilt home feed shows what fan-out rules let through, boosts included", async () => {
  const { database } = instance.rookery.ctx;
  await database.db.execute(sql`DELETE FROM home_feed WHERE account_id = ${reader.id}::bigint`);
  const rebuilt = await ids(instance, reader, "/api/v1/timelines/home?limit=40");
  const expected = [
    own,
    friendPost,
    boosts.ofFriend.original, // the post itself, not the author's later boost of it
    boosts.ofStranger.boost,
    byAuthor.pub,
    byAuthor.unlisted,
    byAuthor.followers,
    byAuthor.replyToFriend,
    byAuthor.replyToReader,
    selfReply,
  ];
  assert.deepEqual(rebuilt, newestFirst(expected));
  assert.ok(!rebuilt.includes(mutedPost) && !rebuilt.includes(byAuthor.direct));
});

test("a list back-filled with a member shows its posts and boosts by the list's rules", async () => {
  const list = await ok(instance, reader, "POST", "/api/v1/lists", { title: "author" });
  await ok(instance, reader, "POST", `/api/v1/lists/${list.id}/accounts`, {
    account_ids: [author.id],
  });
  const shown = await ids(instance, reader, `/api/v1/timelines/list/${list.id}?limit=40`);
  const expected = [
    boosts.ofStranger.boost,
    boosts.ofFriend.boost, // the friend is no member: the boost is the list's only copy
    byAuthor.pub,
    byAuthor.unlisted,
    byAuthor.followers,
    byAuthor.replyToReader, // replies_policy "list": replies to the owner and to members only
    selfReply,
  ];
  assert.deepEqual(shown, newestFirst(expected));
});
