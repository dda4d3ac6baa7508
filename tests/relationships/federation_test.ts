/**
 * Relationships across two instances over https: follows of locked and
 * unlocked remote accounts, Accept through the other side's API, Undo,
 * Block, Update(Person) and account deletion, all through real signed
 * deliveries and the queue. Deliveries are awaited by polling the other
 * side (bounded), never by sleeping a fixed time.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { accounts } from "../../db/schema/mod.ts";
import { deleteLocalAccount } from "../../actors/moderation/local_users.ts";
import { recordDelivery } from "../../actors/outbox/deliveries.ts";
import { newId } from "../../db/ids.ts";
import { test, type TestInstance } from "../harness.ts";
import { callJson, relationship } from "../fixtures/api.ts";
import { closeAll, remoteId, startPair } from "../fixtures/federation.ts";
import { createUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";
import { accountRow } from "./helpers.ts";

/** The id on `on` of the account with this actor IRI, once it is stored there. */
async function storedId(on: TestInstance, uri: string): Promise<string> {
  return await eventually(`${uri} stored`, async () => {
    const [row] = await on.rookery.ctx.database.db.select().from(accounts)
      .where(eq(accounts.uri, uri));
    return row?.id;
  });
}

test("follow a locked remote account: pending, authorized over there, Accept arrives; Undo", async () => {
  const { a, b } = await startPair();
  try {
    const alice = await createUser(a, "alice");
    const bob = await createUser(b, "bob", { account: { locked: true, displayName: "Bob" } });
    const bobOnA = await remoteId(a, b, bob);
    const bobRow = await accountRow(a, bobOnA);
    assert.equal(bobRow.displayName, "Bob");
    assert.equal(bobRow.locked, true);
    assert.equal(bobRow.inboxUrl, `${b.origin}/users/bob/inbox`);

    const requested = await callJson(a, alice, "POST", `/api/v1/accounts/${bobOnA}/follow`);
    assert.equal(requested.status, 200);
    assert.equal(requested.body.requested, true);
    assert.equal(requested.body.following, false);

    // B: the request is listed for bob.
    const aliceOnB = await storedId(b, `${a.origin}/users/alice`);
    await eventually("the request on B", async () => {
      const list = await callJson(b, bob, "GET", "/api/v1/follow_requests");
      return list.body.some((x: any) => x.id === aliceOnB);
    });
    const authorized = await callJson(
      b,
      bob,
      "POST",
      `/api/v1/follow_requests/${aliceOnB}/authorize`,
    );
    assert.equal(authorized.status, 200);
    assert.equal(authorized.body.followed_by, true);

    // A: the Accept turns the request into a follow.
    await eventually(
      "following on A",
      async () => (await relationship(a, alice, bobOnA)).following,
    );
    const rel = await relationship(a, alice, bobOnA);
    assert.equal(rel.requested, false);
    assert.equal((await accountRow(a, alice.id)).followingCount, 1);
    assert.equal((await accountRow(a, bobOnA)).followersCount, 1);
    assert.equal((await accountRow(b, bob.id)).followersCount, 1);
    assert.equal((await accountRow(b, aliceOnB)).followingCount, 1);

    // Unfollow reaches B as Undo(Follow).
    const un = await callJson(a, alice, "POST", `/api/v1/accounts/${bobOnA}/unfollow`);
    assert.equal(un.body.following, false);
    await eventually(
      "Undo on B",
      async () => !(await relationship(b, bob, aliceOnB)).followed_by,
    );
    assert.equal((await accountRow(b, bob.id)).followersCount, 0);
    assert.equal((await accountRow(a, alice.id)).followingCount, 0);
  } finally {
    await closeAll(a, b);
  }
});

test("an unlocked remote account accepts at once; a block over there severs the follow", async () => {
  const { a, b } = await startPair();
  try {
    const alice = await createUser(a, "alice");
    const carol = await createUser(b, "carol");
    const carolOnA = await remoteId(a, b, carol);
    await callJson(a, alice, "POST", `/api/v1/accounts/${carolOnA}/follow`);
    await eventually("accepted", async () => (await relationship(a, alice, carolOnA)).following);
    assert.equal((await accountRow(b, carol.id)).followersCount, 1);

    const aliceOnB = await storedId(b, `${a.origin}/users/alice`);
    const blocked = await callJson(b, carol, "POST", `/api/v1/accounts/${aliceOnB}/block`);
    assert.equal(blocked.body.blocking, true);
    assert.equal(blocked.body.followed_by, false);
    assert.equal((await accountRow(b, carol.id)).followersCount, 0);

    await eventually("the block on A", async () => {
      const rel = await relationship(a, alice, carolOnA);
      return rel.blocked_by && !rel.following;
    });
    assert.equal((await accountRow(a, alice.id)).followingCount, 0);
    assert.equal((await accountRow(a, carolOnA)).followersCount, 0);
    // Alice cannot follow back while blocked.
    assert.equal(
      (await callJson(a, alice, "POST", `/api/v1/accounts/${carolOnA}/follow`)).status,
      403,
    );

    await callJson(b, carol, "POST", `/api/v1/accounts/${aliceOnB}/unblock`);
    await eventually(
      "Undo(Block) on A",
      async () => !(await relationship(a, alice, carolOnA)).blocked_by,
    );
  } finally {
    await closeAll(a, b);
  }
});

test("Update(Person) refreshes the stored account; a deletion reaches followers and answers 410", async () => {
  const { a, b } = await startPair();
  try {
    const alice = await createUser(a, "alice");
    const dave = await createUser(b, "dave", { account: { displayName: "Dave" } });
    const daveOnA = await remoteId(a, b, dave);
    await callJson(a, alice, "POST", `/api/v1/accounts/${daveOnA}/follow`);
    await eventually("accepted", async () => (await relationship(a, alice, daveOnA)).following);

    const { db } = b.rookery.ctx.database;
    await db.update(accounts).set({
      displayName: "Dave Renamed",
      note: "<p>new bio</p>",
      updatedAt: new Date(),
    }).where(eq(accounts.id, dave.id));
    await recordDelivery(db, "accountUpdated", dave.id, newId());
    await eventually(
      "the Update on A",
      async () => (await accountRow(a, daveOnA)).displayName === "Dave Renamed",
    );
    assert.equal((await accountRow(a, daveOnA)).note, "<p>new bio</p>");

    // Dave is deleted by B's operator: A hears of it and forgets the follow.
    const deletion = await deleteLocalAccount(db, "dave");
    assert.equal(deletion.recipients.length, 1);
    await eventually("the Delete on A", async () => (await accountRow(a, daveOnA)).deletedAt);
    // A deleted account has no relationship to show any more.
    const rels = await callJson(a, alice, "GET", `/api/v1/accounts/relationships?id[]=${daveOnA}`);
    assert.deepEqual(rels.body, []);
    assert.equal((await accountRow(a, alice.id)).followingCount, 0);
    const gone = await fetch(`${b.origin}/users/dave`, {
      headers: { Accept: "application/activity+json" },
    });
    await gone.body?.cancel();
    assert.equal(gone.status, 410);
  } finally {
    await closeAll(a, b);
  }
});
