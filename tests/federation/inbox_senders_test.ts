/**
 * The inbox's senders kept in the process (core.remoteSenders,
 * db/announced_cache.ts; federation/inbox/statuses.ts): a change of an
 * account's counters is announced apart from other changes (migration
 * 0058), so a busy sender stays cached; any other change, made by another
 * process or connection, drops the entry before the sender's next activity
 * is handled; the sender's own Update drops it in the process handling it.
 * The same for a personal inbox's owner (core.keyOwners, the inbox's fast path).
 */
import assert from "node:assert/strict";
import { eq, sql } from "drizzle-orm";
import postgres from "postgres";
import { startInstance, test } from "../harness.ts";
import { AS, PUBLIC, publicNoteCreate, startFakePeer, statusOf } from "../fixtures/fake_peer.ts";
import { arrived, storedStatus } from "../fixtures/federation.ts";
import { eventually } from "../fixtures/wait.ts";
import { createUser } from "../fixtures/users.ts";
import { accounts, federationQueue } from "../../db/schema/mod.ts";
import { ENTITY_CHANNEL } from "../../db/channel_listener.ts";

test("inbox senders: counters announced apart, other changes drop the cached row", async (t) => {
  const rookery = await startInstance({ listen: true });
  const peer = await startFakePeer();
  const actor = peer.publishActor("sam", { followers: `${peer.origin}/users/sam/followers` });
  const { core, database } = rookery.rookery.ctx;
  const db = database.db;
  // Another process's connection (PGlite has one connection: the instance's).
  const other = rookery.databaseUrl ? postgres(rookery.databaseUrl, { max: 1 }) : null;
  const elsewhere = async (statement: string, id: string) => {
    if (other) await other.unsafe(statement, [id]);
    else await database.rows(sql.raw(statement.replace("$1", `'${id}'::bigint`)));
  };
  const send = (request: Request) => rookery.request(request.url, request);
  const deliver = async (activity: Record<string, unknown>) => {
    const body = { "@context": AS, actor, ...activity };
    const inbox = `${rookery.origin}/inbox`;
    const res = await peer.deliver(inbox, body, { keyId: `${actor}#main-key`, send });
    assert.equal(await statusOf(res), 202);
  };
  const create = (name: string, extra: Record<string, unknown> = {}) =>
    deliver(
      publicNoteCreate(actor, `${actor}/notes/${name}`, { content: `<p>${name}</p>`, ...extra }),
    );
  /** Once the sender's queued activities are all handled. */
  const handled = () =>
    eventually("the sender's activities handled", async () => {
      const rows = await db.select({ id: federationQueue.id }).from(federationQueue)
        .where(eq(federationQueue.orderingKey, `inbox:${actor}`));
      return rows.length === 0;
    });
  const heard: string[] = [];
  const announced = (payload: string) => () => Promise.resolve(heard.includes(payload));
  const unlisten = await core.listener.listen(
    ENTITY_CHANNEL,
    (payload) => void heard.push(payload),
  );
  try {
    await create("one");
    const sam = (await arrived(rookery, `${actor}/notes/one`)).accountId;

    await t.step("a counter-only change is announced as n<id>, others as a<id>", async () => {
      heard.length = 0;
      await elsewhere("UPDATE accounts SET statuses_count = statuses_count + 1 WHERE id = $1", sam);
      await eventually(
        "the counter's announcement",
        announced(`n${sam}`),
      );
      await elsewhere("UPDATE accounts SET display_name = 'Sam' WHERE id = $1", sam);
      await eventually(
        "the change's announcement",
        announced(`a${sam}`),
      );
      assert.equal(heard.filter((p) => p === `a${sam}`).length, 1);
    });

    await t.step("suspended elsewhere: its next note is not stored", async () => {
      await create("two");
      await arrived(rookery, `${actor}/notes/two`);
      heard.length = 0;
      await elsewhere("UPDATE accounts SET suspended_at = now() WHERE id = $1", sam);
      // Heard here before the next delivery is handled (at once on PGlite).
      await eventually(
        "the suspension's announcement",
        announced(`a${sam}`),
      );
      await create("three");
      await handled();
      assert.equal(await storedStatus(rookery, `${actor}/notes/three`), undefined);
      await elsewhere("UPDATE accounts SET suspended_at = NULL WHERE id = $1", sam);
      await create("four");
      await arrived(rookery, `${actor}/notes/four`);
    });

    await t.step("its own Update: the next note reads the new followers collection", async () => {
      const followers = `${peer.origin}/users/sam/followers-v2`;
      peer.publishActor("sam", { followers });
      await deliver({
        id: `${actor}#update-1`,
        type: "Update",
        to: [PUBLIC],
        object: peer.documentOf(new URL(actor).pathname),
      });
      // Addressed to the new followers collection only: followers-only if that is known.
      await create("five", { to: [followers], cc: [] });
      const five = await arrived(rookery, `${actor}/notes/five`);
      assert.equal(five.visibility, "private");
      const [row] = await db.select({ followersUrl: accounts.followersUrl }).from(accounts)
        .where(eq(accounts.id, sam));
      assert.equal(row.followersUrl, followers);
    });

    await t.step("a personal inbox's owner deleted elsewhere is not found", async () => {
      const bea = await createUser(rookery, "bea");
      const personal = async (name: string) => {
        const body = publicNoteCreate(actor, `${actor}/notes/${name}`, {
          content: `<p>${name}</p>`,
        });
        const inbox = `${rookery.origin}/users/bea/inbox`;
        return await statusOf(
          await peer.deliver(inbox, body, { keyId: `${actor}#main-key`, send }),
        );
      };
      assert.equal(await personal("to-bea"), 202);
      heard.length = 0;
      await elsewhere("UPDATE accounts SET deleted_at = now() WHERE id = $1", bea.id);
      await eventually("the deletion's announcement", announced(`a${bea.id}`));
      assert.equal(await personal("to-bea-gone"), 404);
    });
  } finally {
    unlisten();
    await other?.end();
    await peer.close();
    await rookery.close();
  }
});
