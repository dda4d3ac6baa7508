/**
 * Deleting an account from the command line without a running server still
 * federates: the Delete(Person) for its remote followers waits in the
 * database queue, for the next worker to deliver.
 */
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { openDatabase } from "../../db/connection.ts";
import { newId } from "../../db/ids.ts";
import { accounts, follows } from "../../db/schema/mod.ts";
import { createLocalAccount } from "../../actors/accounts/accounts.ts";
import { createTestDatabase, DB_KIND, test } from "../harness.ts";
import { cli, expectCode } from "./cli.ts";

test("admin CLI account delete (no server) queues Delete(Person) for remote followers", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "rookery-admin-del-" });
  const pg = DB_KIND === "postgres" ? await createTestDatabase() : null;
  const open = () =>
    openDatabase({ databaseUrl: pg?.url ?? null, pgliteDir: `${dataDir}/db`, poolSize: 2 });
  try {
    let database = await open();
    const { account } = await createLocalAccount(database.db, "http://localhost:8080", {
      username: "leaving",
      email: "leaving@example.com",
      password: "a long enough password",
      confirmed: true,
    });
    const remoteId = newId();
    await database.db.insert(accounts).values({
      id: remoteId,
      username: "fan",
      domain: "remote.example",
      uri: "https://remote.example/users/fan",
      inboxUrl: "https://remote.example/users/fan/inbox",
      sharedInboxUrl: "https://remote.example/inbox",
    });
    await database.db.insert(follows).values({
      id: newId(),
      accountId: remoteId,
      targetAccountId: account.id,
    });
    await database.close();

    const run = await cli(
      { dataDir, databaseUrl: pg?.url ?? null },
      "account",
      "delete",
      "leaving",
    );
    expectCode(run, 0);

    // The deletion's intent is relayed to the queue by the command's own
    // process when its commit notification arrives before it exits, and
    // otherwise waits in outbox_intents for the next worker's sweep: either
    // way the Delete(Person) is in the database, addressed to the follower.
    database = await open();
    const queued = await database.rows<{ message: unknown }>(
      sql`SELECT message FROM federation_queue`,
    );
    const intents = await database.rows<{ args: unknown }>(
      sql`SELECT args FROM outbox_intents WHERE method = 'accountDeleted'`,
    );
    await database.close();
    assert.equal(queued.length + intents.length >= 1, true, "a delivery is queued or recorded");
    if (queued.length) {
      const text = JSON.stringify(queued.map((q) => q.message));
      assert.match(text, /Delete/);
      assert.match(text, /remote\.example\/inbox/);
    } else {
      assert.match(JSON.stringify(intents[0].args), /remote\.example\/(users\/fan|inbox)/);
    }
  } finally {
    await pg?.drop();
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
});
