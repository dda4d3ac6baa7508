/**
 * Hostile deliveries and user domain blocks across two instances: an Undo of
 * someone else's Follow is ignored, an activity whose actor is not the
 * signer is refused, and blocking a domain severs follows both ways on both
 * sides.
 */
import assert from "node:assert/strict";
import { resolveRemoteAccount } from "../../federation/remote/accounts.ts";
import { test } from "../harness.ts";
import { callJson, relationship } from "../fixtures/api.ts";
import { closeAll, postSigned, startPair } from "../fixtures/federation.ts";
import { createUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";
import { accountRow } from "./helpers.ts";

test("forged Undo and actor≠signer are ignored; a user domain block severs both ways", async () => {
  const { a, b } = await startPair();
  try {
    const alice = await createUser(a, "alice");
    const bob = await createUser(b, "bob");
    const mallory = await createUser(b, "mallory");
    const aliceOnB = (await resolveRemoteAccount(b.rookery.ctx, `alice@${a.domain}`))!.id;
    const bobOnA = (await resolveRemoteAccount(a.rookery.ctx, `bob@${b.domain}`))!.id;
    await callJson(b, bob, "POST", `/api/v1/accounts/${aliceOnB}/follow`);
    await callJson(a, alice, "POST", `/api/v1/accounts/${bobOnA}/follow`);
    await eventually(
      "bob follows alice",
      async () => (await relationship(b, bob, aliceOnB)).following,
    );
    await eventually(
      "alice follows bob",
      async () => (await relationship(a, alice, bobOnA)).following,
    );
    assert.equal((await accountRow(a, alice.id)).followersCount, 1);

    const aliceUri = `${a.origin}/users/alice`;
    const bobUri = `${b.origin}/users/bob`;
    const malloryUri = `${b.origin}/users/mallory`;
    // Mallory undoes Bob's Follow: signed by Mallory, so it verifies, but it is not hers.
    const forged = await postSigned(b, mallory, `${aliceUri}/inbox`, {
      id: `${malloryUri}#forged-undo`,
      type: "Undo",
      actor: malloryUri,
      object: { id: `${bobUri}#follows/1`, type: "Follow", actor: bobUri, object: aliceUri },
    });
    assert.equal(forged, 202);
    // An activity claiming Bob as actor, signed by Mallory: refused outright.
    const impostor = await postSigned(b, mallory, `${aliceUri}/inbox`, {
      id: `${bobUri}#impostor`,
      type: "Undo",
      actor: bobUri,
      object: { id: `${bobUri}#follows/1`, type: "Follow", actor: bobUri, object: aliceUri },
    });
    assert.equal(impostor, 401);
    // A real follow by Mallory queued after the forgery: once it is in, the forgery was handled.
    const malloryOnB = aliceOnB;
    await callJson(b, mallory, "POST", `/api/v1/accounts/${malloryOnB}/follow`);
    await eventually(
      "mallory's follow",
      async () => (await accountRow(a, alice.id)).followersCount === 2,
    );
    assert.equal((await relationship(a, alice, bobOnA)).followed_by, true, "bob still follows");

    // Alice blocks B's domain: every follow between her and B ends, on both sides.
    const blocked = await callJson(a, alice, "POST", "/api/v1/domain_blocks", { domain: b.domain });
    assert.equal(blocked.status, 200);
    const rel = await relationship(a, alice, bobOnA);
    assert.equal(rel.domain_blocking, true);
    assert.equal(rel.following, false);
    assert.equal(rel.followed_by, false);
    assert.equal((await accountRow(a, alice.id)).followersCount, 0);
    assert.equal((await accountRow(a, alice.id)).followingCount, 0);
    await eventually("B hears of it", async () => {
      const r = await relationship(b, bob, aliceOnB);
      return !r.following && !r.followed_by;
    });
    assert.equal((await accountRow(b, bob.id)).followingCount, 0);
    assert.equal((await accountRow(b, bob.id)).followersCount, 0);
    // And B's accounts cannot follow her while the block stands.
    await callJson(b, bob, "POST", `/api/v1/accounts/${aliceOnB}/follow`);
    await eventually(
      "the Reject on B",
      async () => !(await relationship(b, bob, aliceOnB)).requested,
    );
    assert.equal((await accountRow(a, alice.id)).followersCount, 0);
  } finally {
    await closeAll(a, b);
  }
});
