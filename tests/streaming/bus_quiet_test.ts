/**
 * The stream bus's quiet(): what waits for this process's streams (the
 * relay writing a large fan-out's home rows, federation/outbox/timelines.ts)
 * resumes once every event heard has been delivered by the subscribers, and
 * no later than its bound when a delivery does not end. Driven on the
 * instance's real bus: events published in a transaction, heard at commit.
 */
import assert from "node:assert/strict";
import { afterAll, startInstance, test } from "../harness.ts";
import { publishStreamEvent } from "../../actors/streaming/bus.ts";

const main = await startInstance({});
afterAll(() => main.close({ destroy: true }));
const bus = main.rookery.ctx.core.streamBus;
const { db } = main.rookery.ctx.database;

/** Subscribes a listener whose delivery of `accountId`'s event ends when released. */
async function heldDelivery(accountId: string) {
  const heard = Promise.withResolvers<void>();
  const gate = Promise.withResolvers<void>();
  let delivered = false;
  const stop = await bus.subscribe((event) => {
    if (event.event !== "filters_changed" || event.accountId !== accountId) return;
    heard.resolve();
    return gate.promise.then(() => {
      delivered = true;
    });
  });
  await publishStreamEvent(db, { event: "filters_changed", accountId });
  await heard.promise;
  return { release: () => gate.resolve(), delivered: () => delivered, stop };
}

test("quiet() waits for the subscribers' deliveries of the events heard", async () => {
  const held = await heldDelivery("quiet-1");
  try {
    const deliveredWhenQuiet = bus.quiet(60_000).then(() => held.delivered());
    held.release();
    assert.equal(await deliveredWhenQuiet, true);
    // Nothing left to deliver: at once.
    await bus.quiet(60_000);
  } finally {
    held.stop();
  }
});

test("quiet() gives up at its bound when a delivery does not end", async () => {
  const held = await heldDelivery("quiet-2");
  try {
    await bus.quiet(20);
    assert.equal(held.delivered(), false);
  } finally {
    held.release();
    held.stop();
  }
});
