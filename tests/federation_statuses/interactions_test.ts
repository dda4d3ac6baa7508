/**
 * Interactions and changes across two instances: a remote favourite and
 * boost count on the origin and notify its author, and their undoing counts
 * back; an edit reaches the follower's server with its history; a delete
 * removes the copy (404) and the object URL answers 410.
 */
import assert from "node:assert/strict";
import { test } from "../harness.ts";
import { callJson, postStatus } from "../fixtures/api.ts";
import {
  arrived,
  closeAll,
  followRemote,
  startPair,
  storedStatus,
} from "../fixtures/federation.ts";
import { createUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";

test("favourite, boost, their undo, edit and delete across servers", async () => {
  const { a, b } = await startPair();
  try {
    const alice = await createUser(a, "alice");
    const bob = await createUser(b, "bob");
    await followRemote(b, bob, a, alice);
    const original = await postStatus(a, alice, { status: "first version", visibility: "public" });
    const onB = await arrived(b, original.uri);

    // Bob favourites and boosts it from B.
    assert.equal(
      (await callJson(b, bob, "POST", `/api/v1/statuses/${onB.id}/favourite`)).status,
      200,
    );
    assert.equal((await callJson(b, bob, "POST", `/api/v1/statuses/${onB.id}/reblog`)).status, 200);
    await eventually("counts on A", async () => {
      const s = await callJson(a, alice, "GET", `/api/v1/statuses/${original.id}`);
      return s.body.favourites_count === 1 && s.body.reblogs_count === 1;
    });
    await eventually("favourite and reblog notifications on A", async () => {
      const n = await callJson(a, alice, "GET", "/api/v1/notifications");
      const types = new Set(n.body.map((x: any) => x.type));
      return types.has("favourite") && types.has("reblog");
    });
    const favBy = await callJson(a, alice, "GET", `/api/v1/statuses/${original.id}/favourited_by`);
    assert.equal(favBy.body[0].acct, `bob@${b.domain}`);

    // And takes both back.
    await callJson(b, bob, "POST", `/api/v1/statuses/${onB.id}/unfavourite`);
    await callJson(b, bob, "POST", `/api/v1/statuses/${onB.id}/unreblog`);
    await eventually("counts back on A", async () => {
      const s = await callJson(a, alice, "GET", `/api/v1/statuses/${original.id}`);
      return s.body.favourites_count === 0 && s.body.reblogs_count === 0;
    });

    // Alice edits: B shows the new text, edited_at and the history.
    const edited = await callJson(a, alice, "PUT", `/api/v1/statuses/${original.id}`, {
      status: "second version",
    });
    assert.equal(edited.status, 200);
    await eventually("the edit on B", async () => {
      const s = await callJson(b, bob, "GET", `/api/v1/statuses/${onB.id}`);
      return /second version/.test(s.body.content) && s.body.edited_at != null;
    });
    const history = await callJson(b, bob, "GET", `/api/v1/statuses/${onB.id}/history`);
    assert.equal(history.status, 200);
    assert.equal(history.body.length, 2);
    assert.match(history.body[0].content, /first version/);
    assert.match(history.body[1].content, /second version/);

    // Alice deletes: gone on B (404), the object answers 410.
    assert.equal(
      (await callJson(a, alice, "DELETE", `/api/v1/statuses/${original.id}`)).status,
      200,
    );
    await eventually("the delete on B", async () => {
      const s = await callJson(b, bob, "GET", `/api/v1/statuses/${onB.id}`);
      return s.status === 404;
    });
    assert.ok((await storedStatus(b, original.uri))?.deletedAt);
    const gone = await fetch(original.uri, { headers: { Accept: "application/activity+json" } });
    await gone.body?.cancel();
    assert.equal(gone.status, 410);

    // A boost by B's account of a status A fetches on demand: Bob boosts his own post.
    const own = await postStatus(b, bob, { status: "bob's own", visibility: "public" });
    // Alice follows Bob so the boost reaches A; the boosted status is already there.
    await followRemote(a, alice, b, bob);
    const boosted = await callJson(b, bob, "POST", `/api/v1/statuses/${own.id}/reblog`);
    assert.equal(boosted.status, 200);
    const boostOnA = await arrived(a, boosted.body.uri, "the boost");
    const ownOnA = await storedStatus(a, own.uri);
    assert.ok(ownOnA, "the boosted status was fetched");
    assert.equal(boostOnA.reblogOfId, ownOnA.id);
  } finally {
    await closeAll(a, b);
  }
});
