/**
 * A remote actor's Delete of itself, from a hand-written peer that signs as
 * Mastodon does (tests/fixtures/fake_peer.ts), as Mastodon takes it
 * (DeleteAccountService, reserve_username false):
 *
 * - once its server answers 410 for the actor, everything it had here goes:
 *   its statuses and boosts, the media rows and their stored files, its
 *   favourites and the counters its interactions raised on a local status,
 *   its follows both ways (with the counters), the follow request and mute
 *   that concern it, and its profile; the row stays a tombstone;
 * - a signed Delete of an actor its server still serves (forged, or replayed
 *   out of context) purges nothing: the actor is asked, and stays.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { and, eq } from "drizzle-orm";
import { accounts, followRequests, mediaAttachments, mutes } from "../../db/schema/mod.ts";
import { startInstance, test } from "../harness.ts";
import { startFakePeer, statusOf } from "../fixtures/fake_peer.ts";
import { callJson, ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";
import { storedStatus } from "../fixtures/federation.ts";
import { resolveRemoteAccount } from "../../federation/remote/accounts.ts";
import { newAttachmentKey } from "../../actors/media/store/keys.ts";
import { storedFile } from "../fixtures/media.ts";
import { image } from "../media/helpers.ts";

const AS = "https://www.w3.org/ns/activitystreams";
const PUBLIC = `${AS}#Public`;

type Json = Record<string, unknown>;

test("a remote actor's Delete of itself", async (t) => {
  const rookery = await startInstance();
  const peer = await startFakePeer();
  const { ctx } = rookery.rookery;
  const db = ctx.database.db;
  const send = (request: Request) => rookery.request(request.url, request);
  let serial = 0;
  const deliver = async (actor: string, activity: Json) => {
    const res = await peer.deliver(
      `${rookery.origin}/inbox`,
      { "@context": AS, id: `${actor}/activities/${++serial}`, actor, ...activity },
      { keyId: `${actor}#main-key`, send },
    );
    assert.equal(await statusOf(res), 202);
  };
  const note = (actor: string, extra: Json = {}) => {
    const id = `${actor}/notes/${++serial}`;
    return {
      type: "Create",
      to: [PUBLIC],
      object: {
        id,
        type: "Note",
        attributedTo: actor,
        to: [PUBLIC],
        content: `note ${serial}`,
        published: new Date().toISOString(),
        ...extra,
      },
    };
  };
  const accountRow = async (uri: string) =>
    (await db.select().from(accounts).where(eq(accounts.uri, uri)))[0];
  const alice = await createUser(rookery, "alice");
  const post = await postStatus(rookery, alice, "something to react to");
  const aliceUri = `${rookery.origin}/users/alice`;
  const followersOfAlice = async () =>
    (await ok(rookery, alice, "GET", "/api/v1/accounts/verify_credentials")).followers_count;
  try {
    await t.step("once the actor answers 410, what it had here goes", async () => {
      const leaver = peer.publishActor("leaver", { name: "Leaver", summary: "<p>A bio</p>" });
      await deliver(leaver, { type: "Follow", object: aliceUri });
      await eventually("followed", async () => await followersOfAlice() === 1);
      const pictured = note(leaver, {
        attachment: [{ type: "Document", mediaType: "image/png", url: `${peer.origin}/1.png` }],
      });
      await deliver(leaver, pictured);
      await deliver(leaver, note(leaver, { inReplyTo: post.uri }));
      await deliver(leaver, { type: "Like", object: post.uri });
      await deliver(leaver, {
        type: "Announce",
        object: post.uri,
        to: [PUBLIC],
        published: new Date().toISOString(),
      });
      const counts = () => ok(rookery, alice, "GET", `/api/v1/statuses/${post.id}`);
      await eventually("replied to, liked and boosted", async () => {
        const s = await counts();
        return s.replies_count === 1 && s.favourites_count === 1 && s.reblogs_count === 1;
      });
      const noteId = (pictured.object as Json).id as string;
      const stored = await eventually("the note", () => storedStatus(rookery, noteId));
      // A stored copy of its picture, as the media cache keeps one.
      const [media] = await db.select().from(mediaAttachments)
        .where(eq(mediaAttachments.statusId, stored.id));
      const copy = newAttachmentKey(media.id, "original", "png");
      await ctx.media.put(copy, await image("png", 10, 10), { contentType: "image/png" });
      await db.update(mediaAttachments).set({ filePath: copy })
        .where(eq(mediaAttachments.id, media.id));
      const onDisk = () => existsSync(storedFile(rookery.dataDir, copy));
      assert.ok(onDisk());
      // Alice asks to follow it (the peer never answers) and mutes it.
      const account = (await resolveRemoteAccount(ctx, leaver))!;
      await ok(rookery, alice, "POST", `/api/v1/accounts/${account.id}/follow`);
      await ok(rookery, alice, "POST", `/api/v1/accounts/${account.id}/mute`);

      // Deleted on its server: the actor is gone, then the Delete is sent.
      peer.route(new URL(leaver).pathname, () => new Response(null, { status: 410 }));
      const asked = peer.hits(new URL(leaver).pathname);
      await deliver(leaver, { type: "Delete", to: [PUBLIC], object: leaver });
      const gone = await eventually("the account deleted", async () => {
        const row = await accountRow(leaver);
        return row.deletedAt ? row : null;
      });
      assert.deepEqual(
        {
          displayName: gone.displayName,
          note: gone.note,
          avatarRemoteUrl: gone.avatarRemoteUrl,
          followersCount: gone.followersCount,
          followingCount: gone.followingCount,
          statusesCount: gone.statusesCount,
        },
        {
          displayName: "",
          note: "",
          avatarRemoteUrl: null,
          followersCount: 0,
          followingCount: 0,
          statusesCount: 0,
        },
      );
      const shown = await callJson(rookery, alice, "GET", `/api/v1/statuses/${stored.id}`);
      assert.equal(shown.status, 404);
      await eventually("the stored copy removed", () => Promise.resolve(!onDisk()));
      assert.deepEqual(
        await db.select().from(mediaAttachments).where(eq(mediaAttachments.id, media.id)),
        [],
      );
      const after = await counts();
      assert.deepEqual(
        [after.replies_count, after.favourites_count, after.reblogs_count],
        [0, 0, 0],
      );
      assert.equal(await followersOfAlice(), 0);
      assert.deepEqual(
        await db.select().from(followRequests).where(
          eq(followRequests.targetAccountId, account.id),
        ),
        [],
      );
      assert.deepEqual(
        await db.select().from(mutes).where(
          and(eq(mutes.accountId, alice.id), eq(mutes.targetAccountId, account.id)),
        ),
        [],
      );
      assert.ok(peer.hits(new URL(leaver).pathname) > asked, "the actor was asked");
    });

    await t.step("a Delete of an actor its server still serves purges nothing", async () => {
      const keeper = peer.publishActor("keeper", { name: "Keeper" });
      await deliver(keeper, { type: "Follow", object: aliceUri });
      await eventually("followed", async () => await followersOfAlice() === 1);
      const kept = note(keeper);
      await deliver(keeper, kept);
      const keptId = (kept.object as Json).id as string;
      const stored = await eventually("the note", () => storedStatus(rookery, keptId));
      const asked = peer.hits(new URL(keeper).pathname);
      // Signed by the actor's own key, but the actor is alive.
      await deliver(keeper, { type: "Delete", to: [PUBLIC], object: keeper });
      // The actor's activities are handled in order: once this later one is
      // in, the Delete has been handled.
      const marker = note(keeper);
      await deliver(keeper, marker);
      await eventually(
        "the marker",
        () => storedStatus(rookery, (marker.object as Json).id as string),
      );
      assert.ok(peer.hits(new URL(keeper).pathname) > asked, "the actor was asked");
      const row = await accountRow(keeper);
      assert.equal(row.deletedAt, null);
      assert.equal(row.displayName, "Keeper");
      assert.equal((await storedStatus(rookery, keptId))?.id, stored.id);
      const shown = await callJson(rookery, alice, "GET", `/api/v1/statuses/${stored.id}`);
      assert.equal(shown.status, 200);
      assert.equal(await followersOfAlice(), 1);
    });
  } finally {
    await peer.close();
    await rookery.close({ destroy: true });
  }
});
