/**
 * The accounts row's entity triggers (migrations 0058, 0062): an UPDATE
 * setting only the counters is announced as n<id> by the counters' own
 * trigger; the row's trigger, which announces every other change (a<id>),
 * fires by the columns an UPDATE sets, so every column of accounts must be
 * in one of the two lists: a column added without being listed would change
 * with no cache hearing of it.
 */
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { startInstance, test } from "../harness.ts";
import { createUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";
import { ENTITY_CHANNEL } from "../../db/channel_listener.ts";

const COUNTERS = ["statuses_count", "followers_count", "following_count", "last_status_at"];

test("accounts: every column is watched by the entity triggers", async () => {
  const rookery = await startInstance({ listen: false, worker: false });
  try {
    const { database } = rookery.rookery.ctx;
    const watched = async (trigger: string) =>
      (await database.rows<{ name: string }>(sql`
        SELECT a.attname AS name FROM pg_trigger t
          JOIN pg_attribute a ON a.attrelid = t.tgrelid AND a.attnum = ANY (t.tgattr::int2[])
        WHERE t.tgrelid = 'accounts'::regclass AND t.tgname = ${trigger}`)).map((r) => r.name);
    const columns = (await database.rows<{ name: string }>(sql`
      SELECT attname AS name FROM pg_attribute
      WHERE attrelid = 'accounts'::regclass AND attnum > 0 AND NOT attisdropped`))
      .map((r) => r.name);
    const row = await watched("accounts_entity_cache");
    const counters = await watched("accounts_counters_entity_cache");
    assert.deepEqual(counters.toSorted(), COUNTERS.toSorted());
    assert.deepEqual(
      row.toSorted(),
      columns.filter((c) => !COUNTERS.includes(c)).toSorted(),
      "a column of accounts is missing from accounts_entity_cache's UPDATE OF list",
    );
  } finally {
    await rookery.close();
  }
});

test("accounts: counters announced as n<id>, other changes and deletes as a<id>", async () => {
  const rookery = await startInstance({ listen: true, worker: false });
  const { core, database } = rookery.rookery.ctx;
  const heard: string[] = [];
  const unlisten = await core.listener.listen(ENTITY_CHANNEL, (p) => void heard.push(p));
  try {
    const { id } = await createUser(rookery, "carla");
    const run = (statement: string) =>
      database.rows(sql.raw(statement.replaceAll("$1", `'${id}'::bigint`)));
    const heardOnly = async (statement: string, ...payloads: string[]) => {
      heard.length = 0;
      await run(statement);
      await run(`SELECT pg_notify('${ENTITY_CHANNEL}', 'end')`);
      await eventually("the marker", () => Promise.resolve(heard.includes("end")));
      assert.deepEqual(
        new Set(heard.filter((p) => p !== "end" && p.endsWith(id))),
        new Set(payloads),
      );
    };
    await heardOnly(
      "UPDATE accounts SET statuses_count = statuses_count + 1 WHERE id = $1",
      `n${id}`,
    );
    await heardOnly("UPDATE accounts SET last_status_at = now() WHERE id = $1", `n${id}`);
    await heardOnly("UPDATE accounts SET display_name = 'Carla' WHERE id = $1", `a${id}`);
    // Counters and another column set together: both triggers; the other column's change counts.
    await heardOnly(
      "UPDATE accounts SET followers_count = followers_count + 1, note = 'hi' WHERE id = $1",
      `a${id}`,
      `n${id}`,
    );
    // Another column set to its own value: only the counters changed, as before.
    await heardOnly(
      "UPDATE accounts SET following_count = following_count + 1, note = note WHERE id = $1",
      `n${id}`,
    );
    await heardOnly("UPDATE accounts SET header_key = 'h.png' WHERE id = $1", `a${id}`);
    await heardOnly("DELETE FROM accounts WHERE id = $1", `a${id}`);
  } finally {
    await unlisten();
    await rookery.close();
  }
});
