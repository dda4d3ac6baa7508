/**
 * Remote pins across two instances: Add and Remove to an actor's featured
 * collection pin and unpin on the receiving server; an actor resolved for
 * the first time brings its pinned posts along (read from its featured
 * collection in the background), and an Update of the actor re-reads them;
 * forged Adds (someone else's collection, someone else's post, not a post)
 * are ignored even though their signatures verify.
 */
import assert from "node:assert/strict";
import { and, eq } from "drizzle-orm";
import { statusPins } from "../../db/schema/mod.ts";
import { test, type TestInstance } from "../harness.ts";
import { callJson, postStatus } from "../fixtures/api.ts";
import { closeAll, followRemote, postSigned, startPair } from "../fixtures/federation.ts";
import { createUser, type TestUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";

/** The uris of the pinned statuses of account `id` as `viewer` on `on` sees them. */
async function pinnedUris(on: TestInstance, viewer: TestUser, id: string): Promise<string[]> {
  const res = await callJson(on, viewer, "GET", `/api/v1/accounts/${id}/statuses?pinned=true`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.map((s: { uri: string }) => s.uri).sort();
}

/** Waits until the pinned statuses of `id` on `on` are exactly `expected`. */
async function pinsBecome(
  on: TestInstance,
  viewer: TestUser,
  id: string,
  expected: string[],
  what: string,
) {
  let last: string[] = [];
  try {
    await eventually(what, async () => {
      last = await pinnedUris(on, viewer, id);
      return JSON.stringify(last) === JSON.stringify([...expected].sort());
    });
  } catch (error) {
    throw new Error(`${(error as Error).message}; last seen ${JSON.stringify(last)}`);
  }
}

test("remote pins: Add/Remove, first resolve, Update(Person), forged Adds ignored", async (t) => {
  const { a, b } = await startPair();
  try {
    const alice = await createUser(a, "alice");
    const carol = await createUser(a, "carol");
    const mallory = await createUser(a, "mallory");
    const bob = await createUser(b, "bob");
    const pinOn = (user: TestUser, id: string, action: "pin" | "unpin") =>
      callJson(a, user, "POST", `/api/v1/statuses/${id}/${action}`);

    await t.step("Add and Remove from a followed account pin and unpin on B", async () => {
      const aliceOnB = await followRemote(b, bob, a, alice);
      const first = await postStatus(a, alice, { status: "pin me", visibility: "public" });
      assert.equal((await pinOn(alice, first.id, "pin")).status, 200);
      await pinsBecome(b, bob, aliceOnB, [first.uri], "alice's pin on B");
      const shown = await callJson(
        b,
        bob,
        "GET",
        `/api/v1/accounts/${aliceOnB}/statuses?pinned=true`,
      );
      assert.match(shown.body[0].content, /pin me/);
      assert.equal(shown.body[0].account.id, aliceOnB);

      assert.equal((await pinOn(alice, first.id, "unpin")).status, 200);
      await pinsBecome(b, bob, aliceOnB, [], "alice's unpin on B");
      // The status itself stays; only the pin went.
      const all = await callJson(b, bob, "GET", `/api/v1/accounts/${aliceOnB}/statuses`);
      assert.ok(all.body.some((s: { uri: string }) => s.uri === first.uri));
    });

    await t.step("an account resolved for the first time brings its pins", async () => {
      const older = await postStatus(a, carol, { status: "carol's first", visibility: "public" });
      const quiet = await postStatus(a, carol, {
        status: "carol, unlisted",
        visibility: "unlisted",
      });
      const secret = await postStatus(a, carol, {
        status: "carol, private",
        visibility: "private",
      });
      await postStatus(a, carol, { status: "not pinned", visibility: "public" });
      for (const s of [older, quiet, secret]) {
        assert.equal((await pinOn(carol, s.id, "pin")).status, 200);
      }

      // No follow: B has never heard of carol until bob searches for her.
      const found = await callJson(
        b,
        bob,
        "GET",
        `/api/v1/accounts/search?q=${encodeURIComponent(`carol@${a.domain}`)}&resolve=true`,
      );
      assert.equal(found.status, 200);
      assert.equal(found.body.length, 1);
      const carolOnB = found.body[0].id;
      // The featured collection lists public and unlisted pins only.
      await pinsBecome(b, bob, carolOnB, [older.uri, quiet.uri], "carol's pins on B");

      // An Update of carol's actor re-reads the collection: a pin gone on A
      // without a Remove (straight from the database) goes on B too.
      await followRemote(b, bob, a, carol);
      await a.rookery.ctx.database.db.delete(statusPins).where(and(
        eq(statusPins.accountId, carol.id),
        eq(statusPins.statusId, older.id),
      ));
      const updated = await callJson(a, carol, "PATCH", "/api/v1/accounts/update_credentials", {
        display_name: "Carol",
      });
      assert.equal(updated.status, 200);
      await pinsBecome(b, bob, carolOnB, [quiet.uri], "carol's pins after Update(Person)");
    });

    await t.step("forged Add and Remove are ignored", async () => {
      const malloryOnB = await followRemote(b, bob, a, mallory);
      const aliceOnB = await followRemote(b, bob, a, alice);
      const victim = await postStatus(a, alice, {
        status: "alice, never pinned",
        visibility: "public",
      });
      const own = await postStatus(a, mallory, { status: "mallory's own", visibility: "public" });
      const inbox = `${b.origin}/inbox`;
      const malloryUri = `${a.origin}/users/mallory`;
      const aliceFeatured = `${a.origin}/users/alice/collections/featured`;
      const malloryFeatured = `${malloryUri}/collections/featured`;
      const forged = (n: number, object: string, target: string, type = "Add") =>
        postSigned(a, mallory, inbox, {
          id: `${malloryUri}#forged-${n}`,
          type,
          actor: malloryUri,
          object,
          target,
        });
      const codes = [
        // Mallory adds alice's post to alice's collection.
        await forged(1, victim.uri, aliceFeatured),
        // Mallory adds alice's post to her own collection.
        await forged(2, victim.uri, malloryFeatured),
        // Mallory adds something that is not a post (her own actor).
        await forged(3, malloryUri, malloryFeatured),
      ];
      assert.deepEqual(codes, [202, 202, 202]);
      // Mallory's real pin, sent by A after the forgeries: once it is in, they were handled.
      assert.equal((await pinOn(mallory, own.id, "pin")).status, 200);
      await pinsBecome(b, bob, malloryOnB, [own.uri], "mallory's real pin on B");
      assert.deepEqual(await pinnedUris(b, bob, aliceOnB), []);

      // A forged Remove of alice's real pin, then mallory's real unpin.
      assert.equal((await pinOn(alice, victim.id, "pin")).status, 200);
      await pinsBecome(b, bob, aliceOnB, [victim.uri], "alice's pin on B");
      assert.equal(await forged(4, victim.uri, aliceFeatured, "Remove"), 202);
      assert.equal(await forged(5, victim.uri, malloryFeatured, "Remove"), 202);
      assert.equal((await pinOn(mallory, own.id, "unpin")).status, 200);
      await pinsBecome(b, bob, malloryOnB, [], "mallory's real unpin on B");
      assert.deepEqual(await pinnedUris(b, bob, aliceOnB), [victim.uri]);
    });
  } finally {
    await closeAll(a, b);
  }
});
