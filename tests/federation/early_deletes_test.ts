/**
 * The memory of removals that arrived first (federation/inbox/early_deletes.ts) is
 * the sender's alone, bounded, and forgotten after a day:
 * - a Delete that names another server's post, or a post of the same
 *   server attributed to someone else, does not stop that post;
 * - once the memory has expired, the post's Create is stored again, and the
 *   worker's purge forgets the row;
 * - an account keeps its newest 1,000 removals, no more.
 */
import assert from "node:assert/strict";
import { eq, sql } from "drizzle-orm";
import { earlyDeletes } from "../../db/schema/mod.ts";
import {
  MAX_EARLY_DELETES_PER_ACCOUNT,
  purgeEarlyDeletes,
  rememberEarlyDelete,
} from "../../federation/inbox/early_deletes.ts";
import { startInstance, test } from "../harness.ts";
import { type FakePeer, startFakePeer, statusOf } from "../fixtures/fake_peer.ts";
import { ok } from "../fixtures/api.ts";
import { storedStatus } from "../fixtures/federation.ts";
import { createUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";

const AS = "https://www.w3.org/ns/activitystreams";
const PUBLIC = `${AS}#Public`;

test("removals that arrived first: the sender's own, bounded, forgotten after a day", async (t) => {
  const rookery = await startInstance();
  const home = await startFakePeer();
  const other = await startFakePeer();
  const db = rookery.rookery.ctx.database.db;
  const send = (request: Request) => rookery.request(request.url, request);
  const poster = home.publishActor("poster");
  const neighbour = home.publishActor("neighbour");
  const stranger = other.publishActor("stranger");
  const deliver = async (peer: FakePeer, actor: string, activity: Record<string, unknown>) => {
    const body = { "@context": AS, actor, ...activity };
    const res = await peer.deliver(`${rookery.origin}/inbox`, body, {
      keyId: `${actor}#main-key`,
      send,
    });
    assert.equal(await statusOf(res), 202);
  };
  const create = (peer: FakePeer, actor: string, id: string) =>
    deliver(peer, actor, {
      id: `${id}/activity`,
      type: "Create",
      to: [PUBLIC],
      object: { id, type: "Note", attributedTo: actor, to: [PUBLIC], content: `<p>${id}</p>` },
    });
  const remove = (peer: FakePeer, actor: string, id: string) =>
    deliver(peer, actor, {
      // On the sender's server, as every activity id must be.
      id: `${actor}#deletes/${encodeURIComponent(id)}`,
      type: "Delete",
      to: [PUBLIC],
      object: { id, type: "Tombstone" },
    });
  const alice = await createUser(rookery, "alice");
  /** The post as a user sees it, once stored. */
  const seen = async (uri: string) => {
    const row = await eventually(uri, () => storedStatus(rookery, uri));
    return await ok(rookery, alice, "GET", `/api/v1/statuses/${row.id}`);
  };
  try {
    await t.step("no one stops another's post", async () => {
      const theirs = `${other.origin}/users/stranger/notes/1`;
      const neighbours = `${neighbour}/notes/1`;
      // Another server's post, and a post of the same server by someone else.
      await remove(home, poster, theirs);
      await remove(home, poster, neighbours);
      // The poster's activities are applied in order: once this is stored, so are the Deletes.
      await create(home, poster, `${poster}/notes/after-the-deletes`);
      await seen(`${poster}/notes/after-the-deletes`);
      await create(other, stranger, theirs);
      await create(home, neighbour, neighbours);
      assert.equal((await seen(theirs)).uri, theirs);
      assert.equal((await seen(neighbours)).uri, neighbours);
    });

    await t.step("after a day the Create is taken again, and the row is purged", async () => {
      const late = `${poster}/notes/late`;
      await remove(home, poster, late);
      const remembered = await eventually(
        "the removal",
        async () => (await db.select().from(earlyDeletes).where(eq(earlyDeletes.uri, late)))[0],
      );
      // A day goes by.
      await db.update(earlyDeletes).set({ expiresAt: sql`now() - interval '1 second'` })
        .where(eq(earlyDeletes.uri, remembered.uri));
      await create(home, poster, late);
      assert.equal((await seen(late)).uri, late);
      await purgeEarlyDeletes(db);
      assert.deepEqual(await db.select().from(earlyDeletes).where(eq(earlyDeletes.uri, late)), []);
    });

    await t.step("an account keeps its newest removals only", async () => {
      const uri = (n: number) => `${poster}/notes/gone-${n}`;
      const { accountId } = (await storedStatus(rookery, `${poster}/notes/late`))!;
      const removal = { accountId, actorUri: poster };
      for (let n = 0; n <= MAX_EARLY_DELETES_PER_ACCOUNT; n++) {
        await rememberEarlyDelete(rookery.rookery.ctx, { ...removal, uri: uri(n) });
      }
      const kept = await db.select({ uri: earlyDeletes.uri }).from(earlyDeletes)
        .where(eq(earlyDeletes.accountId, accountId));
      assert.equal(kept.length, MAX_EARLY_DELETES_PER_ACCOUNT);
      // (Which of the oldest goes is not asserted: PGlite's clock can give several the same time.)
      assert.ok(kept.some((k) => k.uri === uri(MAX_EARLY_DELETES_PER_ACCOUNT)), "the newest stays");
    });
  } finally {
    await home.close();
    await other.close();
    await rookery.close({ destroy: true });
  }
});
