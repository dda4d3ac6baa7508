/**
 * The sampled trim that runs inside every fan-out (actors/timelines/fanout.ts
 * trimInserted): it cuts a feed back to its newest entries, and it skips rows
 * another transaction is trimming instead of waiting for them (two posts
 * fanning out to the same followers deadlocked on the old form).
 */
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { POSTGRES_ONLY, startInstance, test } from "../harness.ts";
import { HOME_FEED_LIMIT, trimInserted } from "../../actors/timelines/fanout.ts";
import { createUser } from "../fixtures/users.ts";

test("fan-out trim: keeps the newest entries and skips rows another transaction holds", async (t) => {
  const instance = await startInstance();
  try {
    const bob = await createUser(instance, "bob");
    const { database } = instance.rookery.ctx;
    // home_feed has no foreign keys, so plain ids stand in for statuses.
    await database.db.execute(sql`INSERT INTO home_feed (account_id, status_id)
      SELECT ${bob.id}::bigint, g FROM generate_series(1, ${HOME_FEED_LIMIT + 50}) g`);
    const count = async () =>
      Number(
        (await database.rows<{ n: string | number }>(
          sql`SELECT count(*) AS n FROM home_feed WHERE account_id = ${bob.id}::bigint`,
        ))[0].n,
      );
    // `inserted` stands for the rows a fan-out just wrote: 3,000 of them make
    // the per-row sampling (TRIM_PROBABILITY) pick bob with certainty for any practical purpose.
    const trim = sql`WITH inserted AS (
        SELECT ${bob.id}::bigint AS account_id FROM generate_series(1, 3000))
      ${trimInserted("home_feed", "account_id")}`;

    // Another transaction holds the 10 oldest rows: the trim must neither
    // wait for them (lock_timeout turns a wait into an error) nor delete them.
    await t.step({
      name: "rows another transaction holds are skipped",
      ...POSTGRES_ONLY,
      fn: async () => {
        const other = postgres(instance.rookery.ctx.config.databaseUrl!, {
          max: 1,
          onnotice: () => {},
        });
        try {
          const holding = other.begin(async (tx) => {
            await tx`SELECT 1 FROM home_feed WHERE account_id = ${bob.id} AND status_id <= 10
              FOR UPDATE`;
            await database.db.transaction(async (trimming) => {
              await trimming.execute(sql`SET LOCAL lock_timeout = '2s'`);
              await trimming.execute(trim);
            });
          });
          await holding;
        } finally {
          await other.end();
        }
        assert.equal(await count(), HOME_FEED_LIMIT + 10, "the 10 held rows are left for later");
      },
    });
    await database.db.execute(trim);
    assert.equal(await count(), HOME_FEED_LIMIT);
    const [{ oldest }] = await database.rows<{ oldest: string }>(
      sql`SELECT min(status_id)::text AS oldest FROM home_feed WHERE account_id = ${bob.id}::bigint`,
    );
    assert.equal(oldest, "51", "the newest entries are the ones kept");
  } finally {
    await instance.close({ destroy: true });
  }
});
