/**
 * Background jobs are recorded in the transaction of the command that wants
 * them (actors/outbox/jobs.ts): a post's link-card job is in the durable
 * queue when the post is committed, through no second queue (the outbox
 * relay is stopped here, and nothing waits in it). Outbox intents of that
 * kind that an older version left become the jobs they asked for
 * (db/migrations/0044_jobs_wing.sql).
 */
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { startInstance, test } from "../harness.ts";
import { postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";

interface QueuedJob {
  message: Record<string, unknown>;
  ordering_key: string | null;
  ready: boolean;
}

test("a post's link-card job is queued with the post, not relayed", async () => {
  const a = await startInstance({ worker: false });
  try {
    await a.rookery.outboxRelay.stop();
    const alice = await createUser(a, "alice");
    const status = await postStatus(a, alice, "read https://example.com/article today");
    const { rows } = a.rookery.ctx.database;
    const jobs = await rows<QueuedJob>(sql`SELECT message, ordering_key, ready
      FROM federation_queue WHERE message->>'type' = 'rookery:job'`);
    assert.deepEqual(jobs, [{
      message: { type: "rookery:job", job: "link_card", statusId: status.id },
      ordering_key: `link_card:${status.id}`,
      ready: true,
    }]);
    const [intents] = await rows<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM outbox_intents WHERE method NOT IN ('statusCreated')`,
    );
    assert.equal(intents.n, 0);
  } finally {
    await a.close({ destroy: true });
  }
});

test("intents an older version recorded for background work become jobs", async () => {
  const a = await startInstance({ worker: false });
  try {
    await a.rookery.outboxRelay.stop();
    const { rows } = a.rookery.ctx.database;
    const legacy: [string, unknown[]][] = [
      ["linkCardRequested", ["11"]],
      ["statusLinksRequested", ["12", { parent: true, quoteUri: null, stampUri: null, depth: 1 }]],
      ["pushRequested", [["21", "22"]]],
      ["followersMoved", ["31", "32"]],
      ["accountUpdated", ["41", "42"]],
    ];
    let id = 1;
    for (const [method, args] of legacy) {
      await rows(sql`INSERT INTO outbox_intents (id, method, args)
        VALUES (${id++}, ${method}, ${JSON.stringify(args)}::jsonb)`);
    }
    const migration = await Deno.readTextFile(
      new URL("../../db/migrations/0044_jobs_wing.sql", import.meta.url),
    );
    for (const statement of migration.split("--> statement-breakpoint")) {
      await rows(sql.raw(statement));
    }
    const jobs = await rows<QueuedJob>(sql`SELECT message, ordering_key, ready
      FROM federation_queue ORDER BY id`);
    const job = (message: Record<string, unknown>, key: string | null) => ({
      message: { type: "rookery:job", ...message },
      ordering_key: key,
      ready: false,
    });
    assert.deepEqual(jobs, [
      job({ job: "link_card", statusId: "11" }, "link_card:11"),
      job({
        job: "status_links",
        statusId: "12",
        missing: { parent: true, quoteUri: null, stampUri: null, depth: 1 },
      }, "status_links:12"),
      job({ job: "web_push", notificationId: "21" }, null),
      job({ job: "web_push", notificationId: "22" }, null),
      job({ job: "move_followers", originId: "31", targetId: "32", afterId: null }, "move:31"),
    ]);
    const left = await rows<{ method: string }>(sql`SELECT method FROM outbox_intents`);
    assert.deepEqual(left, [{ method: "accountUpdated" }]);
  } finally {
    await a.close({ destroy: true });
  }
});
