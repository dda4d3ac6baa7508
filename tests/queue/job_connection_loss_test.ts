/**
 * A job whose database connection was lost under it (a PostgreSQL restart
 * or failover: tests/db/terminated_backends_test.ts) is queued again, to run
 * once the pool has reconnected, counting the losses; one that lost it
 * MAX_CONNECTION_LOSSES times is dropped, as a job failing otherwise is
 * (jobs/queue.ts).
 */
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import type { MessageQueue } from "@fedify/fedify";
import { startInstance, test } from "../harness.ts";
import { JobQueue, MAX_CONNECTION_LOSSES } from "../../jobs/queue.ts";
import { JOB_MESSAGE_TYPE } from "../../actors/outbox/jobs.ts";

/** What postgres.js rejects a statement with when its connection closed. */
const connectionClosed = Object.assign(new Error("write CONNECTION_CLOSED"), {
  code: "CONNECTION_CLOSED",
});

test("a job that lost its database connection is queued again a few times, others are not", async () => {
  const a = await startInstance({ worker: false });
  try {
    await a.rookery.outboxRelay.stop();
    const { rows } = a.rookery.ctx.database;
    /** Hands `message` to the queue's handler, as the worker would. */
    const deliver = (message: unknown): MessageQueue => ({
      enqueue: () => Promise.resolve(),
      listen: async (handler) => await handler(message),
    });
    const run = async (statusId: string, error: Error, lostConnections?: number) => {
      const message = { type: JOB_MESSAGE_TYPE, job: "link_card", statusId, lostConnections };
      const queue = new JobQueue(deliver(message), a.rookery.ctx, () => Promise.reject(error));
      await queue.listen(() => {});
    };
    await run("101", connectionClosed);
    await run("102", new Error("the page could not be fetched"));
    // Its connection lost at every run: the last loss drops it.
    await run("103", connectionClosed, MAX_CONNECTION_LOSSES - 2);
    await run("104", connectionClosed, MAX_CONNECTION_LOSSES - 1);
    const queued = await rows<{ message: Record<string, unknown>; later: boolean }>(sql`
      SELECT message, created_at < run_at AS later FROM federation_queue
      WHERE message->>'type' = 'rookery:job' ORDER BY id`);
    assert.deepEqual(queued, [{
      message: { type: "rookery:job", job: "link_card", statusId: "101", lostConnections: 1 },
      later: true,
    }, {
      message: {
        type: "rookery:job",
        job: "link_card",
        statusId: "103",
        lostConnections: MAX_CONNECTION_LOSSES - 1,
      },
      later: true,
    }]);
  } finally {
    await a.close({ destroy: true });
  }
});
