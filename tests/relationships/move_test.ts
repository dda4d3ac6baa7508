/**
 * Accounts that move (actors/accounts/moves.ts, federation/inbox/move.ts):
 *
 * - a fake peer in Mastodon's JSON shape with only the plain ActivityStreams
 *   context: a Move whose target does not list the origin changes nothing;
 *   once the target lists it, the local follower follows the target (a
 *   request, with the follow's options), unfollows the origin, sees `moved`
 *   and a `move` notification; a repeated Move does nothing new; a Move of
 *   someone else is ignored;
 * - two Rookery instances: B's alice2 lists A's alice as an alias (admin
 *   command), alice moves to alice2 (admin command): her follower on B and
 *   her local follower on A end up following alice2, her actor document
 *   carries movedTo (alice2's alsoKnownAs), and she can no longer post.
 */
import assert from "node:assert/strict";
import { and, eq } from "drizzle-orm";
import { accounts, followRequests, follows, notifications } from "../../db/schema/mod.ts";
import { writeFollow } from "../../actors/relationships/follow_rows.ts";
import { redirectFollowerBatch } from "../../actors/accounts/moves.ts";
import { runAdminCommand } from "../../admin/commands.ts";
import { resolveRemoteAccount } from "../../federation/remote/accounts.ts";
import { startInstance, test, type TestInstance } from "../harness.ts";
import { callJson, relationship } from "../fixtures/api.ts";
import { startFakePeer, statusOf } from "../fixtures/fake_peer.ts";
import { closeAll, followRemote, remoteId, startPair } from "../fixtures/federation.ts";
import { createUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";

const AS = "https://www.w3.org/ns/activitystreams";

/** The id on `on` of the account with this actor IRI, once stored. */
async function storedId(on: TestInstance, uri: string): Promise<string> {
  return await eventually(`${uri} stored`, async () => {
    const [row] = await on.rookery.ctx.database.db.select({ id: accounts.id }).from(accounts)
      .where(eq(accounts.uri, uri));
    return row?.id;
  });
}

function adminEnv(on: TestInstance) {
  const ctx = on.rookery.ctx;
  return { db: ctx.database.db, config: ctx.config, media: ctx.media, app: ctx };
}

async function moveNotifications(on: TestInstance, accountId: string) {
  return await on.rookery.ctx.database.db.select().from(notifications)
    .where(and(eq(notifications.accountId, accountId), eq(notifications.type, "move")));
}

test("a Move from a plain-context peer: refused without the alias, then followers follow the target", async (t) => {
  const rookery = await startInstance();
  const peer = await startFakePeer();
  try {
    const send = (request: Request) => rookery.request(request.url, request);
    const inbox = `${rookery.origin}/inbox`;
    const db = rookery.rookery.ctx.database.db;
    const oldUri = peer.publishActor("old", { name: "Old" });
    const newUri = peer.publishActor("new", { name: "New" });
    const mallory = peer.publishActor("mallory");
    const carol = await createUser(rookery, "carol");
    let serial = 0;
    const deliver = async (actor: string, activity: Record<string, unknown>) => {
      const body = { "@context": AS, id: `${actor}#activities/${++serial}`, actor, ...activity };
      const res = await peer.deliver(inbox, body, { keyId: `${actor}#main-key`, send });
      assert.equal(await statusOf(res), 202);
    };

    // carol follows old (notify on), which the peer accepts.
    const resolved = await resolveRemoteAccount(rookery.rookery.ctx, oldUri);
    assert.ok(resolved);
    const oldId = resolved.id;
    const followed = await callJson(rookery, carol, "POST", `/api/v1/accounts/${oldId}/follow`, {
      notify: true,
      reblogs: false,
    });
    assert.equal(followed.body.requested, true);
    await deliver(oldUri, {
      type: "Accept",
      object: { type: "Follow", actor: `${rookery.origin}/users/carol`, object: oldUri },
    });
    await eventually(
      "carol follows old",
      async () => (await relationship(rookery, carol, oldId)).following,
    );

    await t.step("a Move whose target does not list the origin changes nothing", async () => {
      await deliver(oldUri, { type: "Move", object: oldUri, target: newUri });
      // The target was fetched (fresh) and found without the alias.
      await eventually("the target fetched", () => Promise.resolve(peer.hits("/users/new") > 0));
      // A later activity of the same actor is handled after the Move (same ordering).
      await deliver(oldUri, {
        type: "Update",
        object: {
          id: oldUri,
          type: "Person",
          preferredUsername: "old",
          name: "Old (still)",
          inbox: `${oldUri}/inbox`,
          publicKey: { id: `${oldUri}#main-key`, owner: oldUri, publicKeyPem: peer.publicKeyPem },
        },
      });
      await eventually("the Update after the Move", async () => {
        const [row] = await db.select().from(accounts).where(eq(accounts.uri, oldUri));
        return row.displayName === "Old (still)";
      });
      const old = await callJson(rookery, carol, "GET", `/api/v1/accounts/${oldId}`);
      assert.equal(old.body.moved ?? null, null);
      assert.equal((await relationship(rookery, carol, oldId)).following, true);
      assert.equal((await moveNotifications(rookery, carol.id)).length, 0);
    });

    await t.step("a Move by someone else of the origin is ignored", async () => {
      assert.ok(await resolveRemoteAccount(rookery.rookery.ctx, mallory));
      peer.publishActor("new", { name: "New", alsoKnownAs: [oldUri, mallory] });
      await deliver(mallory, { type: "Move", object: oldUri, target: newUri });
      await deliver(mallory, { type: "Move", object: mallory, target: newUri });
      // mallory's next activity is handled after its Moves (one actor, one queue order).
      await deliver(mallory, {
        type: "Update",
        object: {
          id: mallory,
          type: "Person",
          preferredUsername: "mallory",
          name: "Mallory (done)",
          inbox: `${mallory}/inbox`,
          publicKey: { id: `${mallory}#main-key`, owner: mallory, publicKeyPem: peer.publicKeyPem },
        },
      });
      await eventually("mallory's Update", async () => {
        const [row] = await db.select().from(accounts).where(eq(accounts.uri, mallory));
        return row?.displayName === "Mallory (done)";
      });
      const [row] = await db.select().from(accounts).where(eq(accounts.uri, oldUri));
      assert.equal(row.movedToAccountId, null);
      assert.equal((await relationship(rookery, carol, oldId)).following, true);
    });

    await t.step("once the target lists the origin, carol is redirected", async () => {
      // gil blocks old and hal mutes it (keeping its notifications): both carry over.
      const gil = await createUser(rookery, "gil");
      const hal = await createUser(rookery, "hal");
      assert.equal(
        (await callJson(rookery, gil, "POST", `/api/v1/accounts/${oldId}/block`)).status,
        200,
      );
      assert.equal(
        (await callJson(rookery, hal, "POST", `/api/v1/accounts/${oldId}/mute`, {
          notifications: false,
        })).status,
        200,
      );
      await deliver(oldUri, { type: "Move", object: oldUri, target: newUri });
      const newId = await storedId(rookery, newUri);
      // A remote target: a request (with carol's options), the Follow sent to its inbox.
      await eventually(
        "carol requested new",
        async () => (await relationship(rookery, carol, newId)).requested,
      );
      const [request] = await db.select().from(followRequests)
        .where(
          and(eq(followRequests.accountId, carol.id), eq(followRequests.targetAccountId, newId)),
        );
      assert.equal(request.notify, true);
      assert.equal(request.showReblogs, false);
      await eventually(
        "the Follow at the target",
        () => Promise.resolve(peer.hits("/users/new/inbox") > 0),
      );
      await eventually(
        "carol unfollowed old",
        async () => !(await relationship(rookery, carol, oldId)).following,
      );
      const old = await callJson(rookery, carol, "GET", `/api/v1/accounts/${oldId}`);
      assert.equal(old.body.moved?.id, newId);
      assert.equal(old.body.moved?.display_name, "New");
      const list = await callJson(rookery, carol, "GET", "/api/v1/notifications?types[]=move");
      assert.equal(list.status, 200);
      assert.equal(list.body.length, 1);
      assert.equal(list.body[0].type, "move");
      assert.equal(list.body[0].account.id, oldId);
      assert.equal(list.body[0].account.moved.id, newId);
      await eventually(
        "gil blocks new",
        async () => (await relationship(rookery, gil, newId)).blocking,
      );
      const halToNew = await relationship(rookery, hal, newId);
      assert.equal(halToNew.muting, true);
      assert.equal(halToNew.muting_notifications, false);
      // Neither followed old, so neither is told of the move.
      assert.equal((await moveNotifications(rookery, gil.id)).length, 0);
    });

    await t.step("a repeated Move does nothing new", async () => {
      await deliver(oldUri, { type: "Move", object: oldUri, target: newUri });
      await deliver(oldUri, {
        type: "Update",
        object: {
          id: oldUri,
          type: "Person",
          preferredUsername: "old",
          name: "Old (moved)",
          inbox: `${oldUri}/inbox`,
          publicKey: { id: `${oldUri}#main-key`, owner: oldUri, publicKeyPem: peer.publicKeyPem },
        },
      });
      await eventually("the Update after the repeated Move", async () => {
        const [row] = await db.select().from(accounts).where(eq(accounts.uri, oldUri));
        return row.displayName === "Old (moved)";
      });
      assert.equal((await moveNotifications(rookery, carol.id)).length, 1);
    });

    await t.step("followers are redirected a batch at a time", async () => {
      const ctx = rookery.rookery.ctx;
      const newId = await storedId(rookery, newUri);
      const other = await resolveRemoteAccount(ctx, peer.publishActor("other"));
      assert.ok(other);
      const erin = await createUser(rookery, "erin");
      const fay = await createUser(rookery, "fay");
      for (const who of [erin, fay]) {
        await db.transaction((tx) => writeFollow(tx, who.id, other.id, {}, null));
      }
      const requested = async () =>
        (await db.select().from(followRequests).where(eq(followRequests.targetAccountId, newId)))
          .filter((r) => r.accountId === erin.id || r.accountId === fay.id).length;
      const first = await redirectFollowerBatch(ctx, other.id, newId, null, 1);
      assert.ok(first);
      assert.equal(await requested(), 1);
      const second = await redirectFollowerBatch(ctx, other.id, newId, first, 1);
      assert.ok(second);
      assert.equal(await requested(), 2);
      assert.equal(await redirectFollowerBatch(ctx, other.id, newId, second, 1), null);
      const left = await db.select().from(follows).where(eq(follows.targetAccountId, other.id));
      assert.equal(left.length, 0);
    });
  } finally {
    await peer.close();
    await rookery.close({ destroy: true });
  }
});

test("a local account moves to an account on another Rookery that lists it", async (t) => {
  const { a, b } = await startPair();
  try {
    const alice = await createUser(a, "alice");
    const dave = await createUser(a, "dave");
    // alice2 is locked: her local follower-to-be on B skips the request (the move
    // was asked for), a remote one (dave on A) asks.
    const alice2 = await createUser(b, "alice2", {
      account: { displayName: "Alice, moved", locked: true },
    });
    const bob = await createUser(b, "bob");
    // Followers: bob on B, dave on A.
    const aliceOnB = await followRemote(b, bob, a, alice);
    const daveFollows = await callJson(a, dave, "POST", `/api/v1/accounts/${alice.id}/follow`);
    assert.equal(daveFollows.body.following, true);

    await t.step("without the alias the move is refused", async () => {
      const refused = await runAdminCommand(adminEnv(a), [
        "account",
        "move",
        "alice",
        `alice2@${b.domain}`,
      ]);
      assert.equal(refused.exitCode, 1);
      assert.match(refused.stderr, /alias/);
      const me = await callJson(a, alice, "GET", "/api/v1/accounts/verify_credentials");
      assert.equal(me.body.moved ?? null, null);
    });

    await t.step("B's alice2 lists A's alice; her actor document says so", async () => {
      const added = await runAdminCommand(adminEnv(b), [
        "account",
        "alias",
        "alice2",
        "add",
        `alice@${a.domain}`,
      ]);
      assert.equal(added.exitCode, 0, added.stderr);
      const res = await b.request("/users/alice2", {
        headers: { Accept: "application/activity+json" },
      });
      const doc = await res.json();
      const aliases = [doc.alsoKnownAs].flat();
      assert.ok(aliases.includes(`${a.origin}/users/alice`), JSON.stringify(doc.alsoKnownAs));
    });

    await t.step("alice moves: followers on B and A follow alice2", async () => {
      const moved = await runAdminCommand(adminEnv(a), [
        "account",
        "move",
        "alice",
        `alice2@${b.domain}`,
      ]);
      assert.equal(moved.exitCode, 0, moved.stderr);
      // B: bob, a local follower there, now follows alice2 (local, unlocked) and not alice.
      await eventually(
        "bob follows alice2",
        async () => (await relationship(b, bob, alice2.id)).following,
      );
      await eventually(
        "bob left alice",
        async () => !(await relationship(b, bob, aliceOnB)).following,
      );
      const onB = await callJson(b, bob, "GET", `/api/v1/accounts/${aliceOnB}`);
      assert.equal(onB.body.moved?.id, alice2.id);
      const notes = await callJson(b, bob, "GET", "/api/v1/notifications?types[]=move");
      assert.equal(notes.body.length, 1);
      assert.equal(notes.body[0].account.id, aliceOnB);

      // A: dave, alice's local follower, follows alice2 on B once B accepts.
      const alice2OnA = await remoteId(a, b, alice2);
      await eventually(
        "dave asked to follow alice2",
        async () => (await relationship(a, dave, alice2OnA)).requested,
      );
      const daveOnB = await storedId(b, `${a.origin}/users/dave`);
      await eventually("the request on B", async () => {
        const list = await callJson(b, alice2, "GET", "/api/v1/follow_requests");
        return list.body.some((x: any) => x.id === daveOnB);
      });
      const authorized = await callJson(
        b,
        alice2,
        "POST",
        `/api/v1/follow_requests/${daveOnB}/authorize`,
      );
      assert.equal(authorized.status, 200);
      await eventually(
        "dave follows alice2",
        async () => (await relationship(a, dave, alice2OnA)).following,
      );
      assert.equal((await relationship(a, dave, alice.id)).following, false);
      const me = await callJson(a, alice, "GET", "/api/v1/accounts/verify_credentials");
      assert.equal(me.body.moved?.id, alice2OnA);
      assert.equal(me.body.moved?.acct, `alice2@${b.domain}`);

      // Her actor document names the new account.
      const doc = await (await a.request("/users/alice", {
        headers: { Accept: "application/activity+json" },
      })).json();
      assert.equal(doc.movedTo, `${b.origin}/users/alice2`);
    });

    await t.step("a moved account posts no more; moving again does nothing new", async () => {
      const post = await callJson(a, alice, "POST", "/api/v1/statuses", { status: "still here?" });
      assert.equal(post.status, 403);
      assert.equal(post.body.error, "Your login is currently disabled");
      const again = await runAdminCommand(adminEnv(a), [
        "account",
        "move",
        "alice",
        `alice2@${b.domain}`,
      ]);
      assert.equal(again.exitCode, 0, again.stderr);
      assert.match(again.stdout, /already moved/);
      const removed = await runAdminCommand(adminEnv(b), [
        "account",
        "alias",
        "alice2",
        "remove",
        `alice@${a.domain}`,
      ]);
      assert.equal(removed.exitCode, 0, removed.stderr);
      assert.match(removed.stdout, /Removed/);
    });
  } finally {
    await closeAll(a, b);
  }
});
