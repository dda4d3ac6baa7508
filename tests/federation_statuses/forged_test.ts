/**
 * Hostile deliveries about statuses: another actor's Update or Delete of a
 * status, a Create of an object attributed to someone else and an Undo of
 * someone else's boost are all ignored, even though their HTTP signatures
 * verify (they are signed by the real sender, Mallory).
 */
import assert from "node:assert/strict";
import { test } from "../harness.ts";
import { callJson, postStatus } from "../fixtures/api.ts";
import {
  arrived,
  closeAll,
  followRemote,
  postSigned,
  startPair,
  storedStatus,
} from "../fixtures/federation.ts";
import { createUser } from "../fixtures/users.ts";

test("forged Update, Delete, Create and Undo about someone else's statuses are ignored", async () => {
  const { a, b } = await startPair();
  try {
    const alice = await createUser(a, "alice");
    const bob = await createUser(b, "bob");
    const mallory = await createUser(b, "mallory");
    await followRemote(a, alice, b, bob);
    await followRemote(a, alice, b, mallory);
    const original = await postStatus(b, bob, { status: "bob's words", visibility: "public" });
    const onA = await arrived(a, original.uri);
    const boost = await callJson(b, bob, "POST", `/api/v1/statuses/${original.id}/reblog`);
    const boostOnA = await arrived(a, boost.body.uri, "bob's boost");

    const bobUri = `${b.origin}/users/bob`;
    const malloryUri = `${b.origin}/users/mallory`;
    const inbox = `${a.origin}/inbox`;
    const PUBLIC = "https://www.w3.org/ns/activitystreams#Public";
    const forgedNote = {
      id: original.uri,
      type: "Note",
      attributedTo: bobUri,
      content: "<p>forged words</p>",
      to: [PUBLIC],
      updated: new Date(Date.now() + 1000).toISOString(),
    };
    const statuses = [
      await postSigned(b, mallory, inbox, {
        id: `${malloryUri}#forged-update`,
        type: "Update",
        actor: malloryUri,
        object: forgedNote,
      }),
      await postSigned(b, mallory, inbox, {
        id: `${malloryUri}#forged-delete`,
        type: "Delete",
        actor: malloryUri,
        object: { id: original.uri, type: "Tombstone" },
      }),
      await postSigned(b, mallory, inbox, {
        id: `${malloryUri}#forged-create`,
        type: "Create",
        actor: malloryUri,
        object: { ...forgedNote, id: `${bobUri}/statuses/999999` },
      }),
      await postSigned(b, mallory, inbox, {
        id: `${malloryUri}#forged-undo`,
        type: "Undo",
        actor: malloryUri,
        object: { id: boost.body.uri, type: "Announce", actor: bobUri, object: original.uri },
      }),
    ];
    assert.deepEqual(statuses, [202, 202, 202, 202]);
    // A real post by Mallory, sent after the forgeries: once it is in, they were handled.
    const marker = await postStatus(b, mallory, { status: "just me", visibility: "public" });
    await arrived(a, marker.uri, "mallory's post");
    const after = await storedStatus(a, original.uri);
    assert.equal(after?.deletedAt, null);
    assert.doesNotMatch(after!.content, /forged/);
    assert.equal(after!.editedAt, null);
    assert.equal(await storedStatus(a, `${bobUri}/statuses/999999`), undefined);
    assert.equal((await storedStatus(a, boost.body.uri))?.id, boostOnA.id);
    const shown = await callJson(a, alice, "GET", `/api/v1/statuses/${onA.id}`);
    assert.equal(shown.status, 200);
    assert.equal(shown.body.reblogs_count, 1);
  } finally {
    await closeAll(a, b);
  }
});
