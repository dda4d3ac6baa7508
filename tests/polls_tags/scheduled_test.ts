/**
 * Scheduled statuses: list (paging, Link headers), show, reschedule (too
 * early → 422), cancel, someone else's ids, the daily and total limits, and
 * publication on time by the worker (media and poll included), exactly once,
 * also across a restart of the instance on the same data.
 */
import assert from "node:assert/strict";
import { eq, sql } from "drizzle-orm";
import { createTestDatabase, startInstance, test, TEST_DATABASE_URL } from "../harness.ts";
import type { TestInstance } from "../harness.ts";
import { newId } from "../../db/ids.ts";
import { mediaAttachments, scheduledStatuses, statuses } from "../../db/schema/mod.ts";
import { publishDueScheduledStatuses } from "../../actors/statuses/scheduled_statuses.ts";
import { callJson } from "../fixtures/api.ts";
import { mediaRow } from "../fixtures/media.ts";
import { createUser, type TestUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";

const MINUTE = 60_000;

async function schedule(
  instance: TestInstance,
  user: TestUser,
  body: Record<string, unknown>,
  inMs = 10 * MINUTE,
) {
  const res = await callJson(instance, user, "POST", "/api/v1/statuses", {
    scheduled_at: new Date(Date.now() + inMs).toISOString(),
    ...body,
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

async function makeDue(instance: TestInstance, id: string): Promise<void> {
  await instance.rookery.ctx.database.db.update(scheduledStatuses)
    .set({ scheduledAt: new Date(Date.now() - 1000) }).where(eq(scheduledStatuses.id, id));
}

async function statusesOf(instance: TestInstance, accountId: string) {
  return await instance.rookery.ctx.database.db.select().from(statuses)
    .where(eq(statuses.accountId, accountId)).orderBy(statuses.id);
}

test("scheduled statuses: list, show, reschedule, cancel, others' ids", async () => {
  const instance = await startInstance({ worker: false });
  try {
    const alice = await createUser(instance, "alice");
    const bob = await createUser(instance, "bob");
    const created = [];
    for (let i = 0; i < 3; i++) created.push(await schedule(instance, alice, { status: `s${i}` }));
    await schedule(instance, bob, { status: "bob's" });
    assert.equal(created[0].params.text, "s0");
    assert.equal(created[0].params.poll, null);

    const page1 = await callJson(instance, alice, "GET", "/api/v1/scheduled_statuses?limit=2");
    assert.equal(page1.status, 200);
    assert.deepEqual(page1.body.map((s: { id: string }) => s.id), [created[2].id, created[1].id]);
    const link = page1.headers.get("link")!;
    assert.match(link, new RegExp(`max_id=${created[1].id}>; rel="next"`));
    assert.match(link, new RegExp(`min_id=${created[2].id}>; rel="prev"`));
    const next = /<([^>]+)>; rel="next"/.exec(link)![1];
    const page2 = await callJson(instance, alice, "GET", next);
    assert.deepEqual(page2.body.map((s: { id: string }) => s.id), [created[0].id]);
    assert.equal(page2.headers.get("link")?.includes('rel="next"'), false);
    const all = await callJson(instance, alice, "GET", "/api/v1/scheduled_statuses");
    assert.equal(all.body.length, 3);

    const one = await callJson(
      instance,
      alice,
      "GET",
      `/api/v1/scheduled_statuses/${created[0].id}`,
    );
    assert.equal(one.status, 200);
    assert.deepEqual(one.body, created[0]);
    for (const [user, id] of [[bob, created[0].id], [alice, "abc"], [alice, "123"]] as const) {
      const res = await callJson(instance, user, "GET", `/api/v1/scheduled_statuses/${id}`);
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, { error: "Record not found" });
      assert.equal(
        (await callJson(instance, user, "PUT", `/api/v1/scheduled_statuses/${id}`, {
          scheduled_at: new Date(Date.now() + 3_600_000).toISOString(),
        })).status,
        404,
      );
      assert.equal(
        (await callJson(instance, user, "DELETE", `/api/v1/scheduled_statuses/${id}`)).status,
        404,
      );
    }

    const path = `/api/v1/scheduled_statuses/${created[0].id}`;
    for (const when of [Date.now() + 2 * MINUTE, Date.now() - MINUTE]) {
      const early = await callJson(instance, alice, "PUT", path, {
        scheduled_at: new Date(when).toISOString(),
      });
      assert.equal(early.status, 422);
      assert.equal(
        early.body.error,
        "Validation failed: Scheduled at The scheduled date must be in the future",
      );
    }
    const garbage = await callJson(instance, alice, "PUT", path, { scheduled_at: "soon" });
    assert.equal(garbage.status, 422);
    const later = new Date(Date.now() + 3 * 3_600_000);
    const moved = await callJson(instance, alice, "PUT", path, {
      scheduled_at: later.toISOString(),
    });
    assert.equal(moved.status, 200);
    assert.equal(moved.body.scheduled_at, later.toISOString());
    assert.equal(moved.body.id, created[0].id);
    const unchanged = await callJson(instance, alice, "PUT", path, {});
    assert.equal(unchanged.body.scheduled_at, later.toISOString());

    const del = await callJson(instance, alice, "DELETE", path);
    assert.equal(del.status, 200);
    assert.deepEqual(del.body, {});
    assert.equal((await callJson(instance, alice, "GET", path)).status, 404);
    assert.equal((await callJson(instance, alice, "DELETE", path)).status, 404);
    // Cancelling frees the reserved media.
    const media = await mediaRow(instance, alice);
    const withMedia = await schedule(instance, alice, { status: "pic", media_ids: [media] });
    assert.equal(withMedia.media_attachments[0].id, media);
    await callJson(instance, alice, "DELETE", `/api/v1/scheduled_statuses/${withMedia.id}`);
    const [row] = await instance.rookery.ctx.database.db.select().from(mediaAttachments)
      .where(eq(mediaAttachments.id, media));
    assert.equal(row.scheduledStatusId, null);
  } finally {
    await instance.close({ destroy: true });
  }
});

test("scheduled statuses: 25 a day and 300 in all", async () => {
  const instance = await startInstance({ worker: false });
  try {
    const alice = await createUser(instance, "alice");
    const { db } = instance.rookery.ctx.database;
    const day = new Date(Date.now() + 3 * 86_400_000);
    day.setUTCHours(12, 0, 0, 0);
    const target = await schedule(instance, alice, { status: "target" });
    await db.insert(scheduledStatuses).values(
      Array.from({ length: 25 }, (_, i) => ({
        id: newId(),
        accountId: alice.id,
        scheduledAt: new Date(day.getTime() + i * MINUTE),
        params: { text: `filler ${i}` },
      })),
    );
    const path = `/api/v1/scheduled_statuses/${target.id}`;
    const full = await callJson(instance, alice, "PUT", path, {
      scheduled_at: new Date(day.getTime() + 3_600_000).toISOString(),
    });
    assert.equal(full.status, 422);
    assert.equal(
      full.body.error,
      "Validation failed: You have exceeded the limit of 25 scheduled posts for today",
    );
    const otherDay = await callJson(instance, alice, "PUT", path, {
      scheduled_at: new Date(day.getTime() + 86_400_000).toISOString(),
    });
    assert.equal(otherDay.status, 200);

    await db.insert(scheduledStatuses).values(
      Array.from({ length: 275 }, (_, i) => ({
        id: newId(),
        accountId: alice.id,
        scheduledAt: new Date(day.getTime() + (10 + Math.floor(i / 20)) * 86_400_000),
        params: { text: `more ${i}` },
      })),
    );
    const total = await callJson(instance, alice, "PUT", path, {
      scheduled_at: new Date(day.getTime() + 2 * 86_400_000).toISOString(),
    });
    assert.equal(total.status, 422);
    assert.equal(
      total.body.error,
      "Validation failed: You have exceeded the limit of 300 scheduled posts",
    );
  } finally {
    await instance.close({ destroy: true });
  }
});

test("the worker publishes due statuses on time, with media and polls, once", async () => {
  const instance = await startInstance();
  try {
    const alice = await createUser(instance, "alice");
    const bob = await createUser(instance, "bob");
    const media = await mediaRow(instance, alice);
    const pic = await schedule(instance, alice, {
      status: "scheduled #picture",
      media_ids: [media],
      visibility: "unlisted",
      spoiler_text: "cw",
    });
    const poll = await schedule(instance, alice, {
      status: "scheduled poll",
      poll: { options: ["yes", "no"], expires_in: 600 },
    });
    const notYet = await schedule(instance, alice, { status: "not yet" });
    await makeDue(instance, pic.id);
    await makeDue(instance, poll.id);

    const published = await eventually("the scheduled statuses to be published", async () => {
      const rows = await statusesOf(instance, alice.id);
      return rows.length >= 2 ? rows : undefined;
    }, 30_000);
    assert.equal(published.length, 2);
    const picStatus = published.find((s) => s.text === "scheduled #picture")!;
    assert.equal(picStatus.visibility, "unlisted");
    assert.equal(picStatus.spoilerText, "cw");
    const shown = await callJson(instance, alice, "GET", `/api/v1/statuses/${picStatus.id}`);
    assert.equal(shown.status, 200);
    assert.deepEqual(shown.body.media_attachments.map((m: { id: string }) => m.id), [media]);
    assert.deepEqual(shown.body.tags.map((t: { name: string }) => t.name), ["picture"]);
    const pollStatus = published.find((s) => s.text === "scheduled poll")!;
    const withPoll = await callJson(instance, bob, "GET", `/api/v1/statuses/${pollStatus.id}`);
    assert.deepEqual(withPoll.body.poll.options.map((o: { title: string }) => o.title), [
      "yes",
      "no",
    ]);

    const left = await callJson(instance, alice, "GET", "/api/v1/scheduled_statuses");
    assert.deepEqual(left.body.map((s: { id: string }) => s.id), [notYet.id]);
    const [mediaNow] = await instance.rookery.ctx.database.db.select().from(mediaAttachments)
      .where(eq(mediaAttachments.id, media));
    assert.equal(mediaNow.statusId, picStatus.id);
    assert.equal(mediaNow.scheduledStatusId, null);

    // Concurrent runs claim each row once (SKIP LOCKED); nothing is published twice.
    const again = await schedule(instance, alice, { status: "raced" });
    await makeDue(instance, again.id);
    const counts = await Promise.all([
      publishDueScheduledStatuses(instance.rookery.ctx),
      publishDueScheduledStatuses(instance.rookery.ctx),
      publishDueScheduledStatuses(instance.rookery.ctx),
    ]);
    const raced = (await statusesOf(instance, alice.id)).filter((s) => s.text === "raced");
    assert.equal(raced.length, 1);
    assert.ok(counts.reduce((a, b) => a + b, 0) <= 1);

    // One that can no longer be posted (its reply target is gone) is dropped, not retried.
    const target = await callJson(instance, bob, "POST", "/api/v1/statuses", { status: "hi" });
    const reply = await schedule(instance, alice, {
      status: "reply",
      in_reply_to_id: target.body.id,
    });
    await callJson(instance, bob, "DELETE", `/api/v1/statuses/${target.body.id}`);
    await makeDue(instance, reply.id);
    await publishDueScheduledStatuses(instance.rookery.ctx);
    assert.equal(
      (await callJson(instance, alice, "GET", `/api/v1/scheduled_statuses/${reply.id}`)).status,
      404,
    );
    assert.equal((await statusesOf(instance, alice.id)).some((s) => s.text === "reply"), false);
  } finally {
    await instance.close({ destroy: true });
  }
});

test("scheduled statuses survive a restart and are published by the next worker", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "rookery-sched-" });
  const pg = TEST_DATABASE_URL ? await createTestDatabase() : null;
  try {
    const first = await startInstance({ dataDir, databaseUrl: pg?.url, worker: false });
    const alice = await createUser(first, "alice");
    const s = await schedule(first, alice, { status: "after restart" });
    await makeDue(first, s.id);
    await first.close();

    const second = await startInstance({ dataDir, databaseUrl: pg?.url });
    try {
      const rows = await eventually("publication after the restart", async () => {
        const r = await statusesOf(second, alice.id);
        return r.length ? r : undefined;
      }, 30_000);
      assert.equal(rows.length, 1);
      assert.equal(rows[0].text, "after restart");
      const [{ n }] = await second.rookery.ctx.database.rows<{ n: string }>(
        sql`SELECT count(*) AS n FROM scheduled_statuses`,
      );
      assert.equal(Number(n), 0);
    } finally {
      await second.close();
    }
  } finally {
    await pg?.drop();
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
});
