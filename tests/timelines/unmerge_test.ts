/**
 * Unfollowing, muting or blocking takes the other account's posts (and
 * boosts) out of the home timeline, as Mastodon's unmerge does; so does
 * blocking a domain. The home timeline is read without the visibility
 * rules (db/queries/visibility.ts, feedEntryFilter), so these removals are
 * what keeps it right; suspension is checked when read.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { accounts } from "../../db/schema/mod.ts";
import { startInstance, test } from "../harness.ts";
import { callJson, postStatus } from "../fixtures/api.ts";
import { arrived, closeAll, followRemote, startPair } from "../fixtures/federation.ts";
import { createUser } from "../fixtures/users.ts";
import { follow, ids } from "./helpers.ts";

test("unfollow, mute and block take the author's posts out of home", async () => {
  const instance = await startInstance();
  try {
    const reader = await createUser(instance, "reader");
    const names = ["gone", "muted", "blocked"] as const;
    const authors = Object.fromEntries(
      await Promise.all(names.map(async (n) => [n, await createUser(instance, n)])),
    );
    const posted: Record<string, string> = {};
    for (const n of names) {
      await follow(instance, reader, authors[n]);
      posted[n] = (await postStatus(instance, authors[n], `hello from ${n}`)).id;
    }
    const home = () => ids(instance, reader, "/api/v1/timelines/home");
    assert.deepEqual(new Set(await home()), new Set(Object.values(posted)));

    await callJson(instance, reader, "POST", `/api/v1/accounts/${authors.gone.id}/unfollow`);
    await callJson(instance, reader, "POST", `/api/v1/accounts/${authors.muted.id}/mute`);
    await callJson(instance, authors.blocked, "POST", `/api/v1/accounts/${reader.id}/block`);
    assert.deepEqual(await home(), []);
  } finally {
    await instance.close({ destroy: true });
  }
});

test("block and mute take boosts (and, for blocks, mentions) out of home; suspended authors vanish", async () => {
  const instance = await startInstance();
  try {
    const reader = await createUser(instance, "reader");
    const friend = await createUser(instance, "friend");
    const muted = await createUser(instance, "muted");
    const blocked = await createUser(instance, "blocked");
    const suspended = await createUser(instance, "suspended");
    await follow(instance, reader, friend);
    await follow(instance, reader, suspended);
    const home = () => ids(instance, reader, "/api/v1/timelines/home");

    // The friend boosts the muted and the blocked account's posts, and mentions the blocked one.
    const boostOf = async (author: typeof reader, text: string) => {
      const original = await postStatus(instance, author, text);
      const boost = await callJson(
        instance,
        friend,
        "POST",
        `/api/v1/statuses/${original.id}/reblog`,
      );
      assert.equal(boost.status, 200);
      return boost.body.id as string;
    };
    const mutedBoost = await boostOf(muted, "muted post");
    const blockedBoost = await boostOf(blocked, "blocked post");
    const mention = (await postStatus(instance, friend, `hi @${blocked.username}`)).id;
    const plain = (await postStatus(instance, friend, "just me")).id;
    const gone = (await postStatus(instance, suspended, "soon hidden")).id;
    assert.deepEqual(
      new Set(await home()),
      new Set([mutedBoost, blockedBoost, mention, plain, gone]),
    );

    await callJson(instance, reader, "POST", `/api/v1/accounts/${muted.id}/mute`);
    assert.deepEqual(new Set(await home()), new Set([blockedBoost, mention, plain, gone]));
    await callJson(instance, reader, "POST", `/api/v1/accounts/${blocked.id}/block`);
    assert.deepEqual(new Set(await home()), new Set([plain, gone]));

    // Suspension can be lifted, so its entries stay but are not shown.
    const { db } = instance.rookery.ctx.database;
    await db.update(accounts).set({ suspendedAt: new Date() })
      .where(eq(accounts.id, suspended.id));
    assert.deepEqual(await home(), [plain]);
    await db.update(accounts).set({ suspendedAt: null }).where(eq(accounts.id, suspended.id));
    assert.deepEqual(await home(), [gone, plain]);
  } finally {
    await instance.close({ destroy: true });
  }
});

test("blocking a domain takes its accounts' posts, and boosts of them, out of home", async () => {
  const { a, b } = await startPair();
  try {
    const reader = await createUser(a, "reader");
    const friend = await createUser(a, "friend");
    const faraway = await createUser(b, "faraway");
    await follow(a, reader, friend);
    await followRemote(a, reader, b, faraway);
    await followRemote(a, friend, b, faraway);
    const posted = await postStatus(b, faraway, { status: "from afar", visibility: "public" });
    const onA = await arrived(a, posted.uri);
    const boost = await callJson(a, friend, "POST", `/api/v1/statuses/${onA.id}/reblog`);
    assert.equal(boost.status, 200);
    const own = (await postStatus(a, friend, "local words")).id;
    const home = () => ids(a, reader, "/api/v1/timelines/home");
    // The boost is not shown beside the original it boosts.
    assert.deepEqual(new Set(await home()), new Set([onA.id, own]));

    const blocked = await callJson(a, reader, "POST", "/api/v1/domain_blocks", {
      domain: b.domain,
    });
    assert.equal(blocked.status, 200);
    assert.deepEqual(await home(), [own]);
  } finally {
    await closeAll(a, b);
  }
});

test("a direct status edited to drop a mention leaves that follower's home", async () => {
  const instance = await startInstance();
  try {
    const reader = await createUser(instance, "reader");
    const author = await createUser(instance, "author");
    await follow(instance, reader, author);
    const dm = await postStatus(instance, author, {
      status: `@${reader.username} just us`,
      visibility: "direct",
    });
    const home = () => ids(instance, reader, "/api/v1/timelines/home");
    assert.deepEqual(await home(), [dm.id]);
    const edited = await callJson(instance, author, "PUT", `/api/v1/statuses/${dm.id}`, {
      status: "just me now",
    });
    assert.equal(edited.status, 200);
    assert.deepEqual(await home(), []);
    assert.equal(
      (await callJson(instance, reader, "GET", `/api/v1/statuses/${dm.id}`)).status,
      404,
    );
  } finally {
    await instance.close({ destroy: true });
  }
});
