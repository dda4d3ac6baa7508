/**
 * Concurrent commands on one status: two edits at once, and an edit racing
 * a delete. The history must stay coherent (one original version, then the
 * edits in the order they were applied, the last one the status as shown),
 * and an edit that comes after the delete answers 404 and delivers nothing.
 *
 * Each race is forced once (tests/fixtures/gate.ts holds the first command's
 * transaction while the second runs to its end) and then left to chance a
 * few times, which on PostgreSQL runs both transactions side by side.
 */
import assert from "node:assert/strict";
import { eq, sql } from "drizzle-orm";
import { statusEdits, statuses } from "../../db/schema/mod.ts";
import { startInstance, test, type TestInstance } from "../harness.ts";
import { callJson, postStatus } from "../fixtures/api.ts";
import { holdTransactionOf } from "../fixtures/gate.ts";
import { createUser, type TestUser } from "../fixtures/users.ts";

/**
 * Records the status deliveries the commands ask for, in order: every
 * intent written to outbox_intents (actors/outbox/deliveries.ts), kept by a
 * trigger after the relay deletes it.
 */
async function recordDeliveries(instance: TestInstance): Promise<() => Promise<string[]>> {
  const { rows } = instance.rookery.ctx.database;
  await rows(sql`CREATE TABLE test_intent_log (n serial, method text, status_id text)`);
  await rows(sql`CREATE FUNCTION test_log_intent() RETURNS trigger LANGUAGE plpgsql
    AS $$ BEGIN INSERT INTO test_intent_log (method, status_id)
      VALUES (NEW.method, NEW.args->>0); RETURN NEW; END $$`);
  await rows(sql`CREATE TRIGGER test_log_intent AFTER INSERT ON outbox_intents
    FOR EACH ROW EXECUTE FUNCTION test_log_intent()`);
  return async () =>
    (await rows<{ call: string }>(sql`SELECT method || ' ' || status_id AS call
      FROM test_intent_log WHERE method IN ('statusUpdated', 'statusDeleted') ORDER BY n`))
      .map((r) => r.call);
}

/** Checks the history of `id` against the status as it is shown, and returns its texts. */
async function coherentHistory(a: TestInstance, who: TestUser, id: string): Promise<string[]> {
  const history = await callJson(a, who, "GET", `/api/v1/statuses/${id}/history`);
  assert.equal(history.status, 200);
  const shown = await callJson(a, who, "GET", `/api/v1/statuses/${id}`);
  const texts = history.body.map((v: any) => v.content);
  const rows = await a.rookery.ctx.database.db.select().from(statusEdits)
    .where(eq(statusEdits.statusId, id)).orderBy(statusEdits.createdAt, statusEdits.id);
  if (rows.length === 0) return texts;
  // Exactly one original version, dated as the status, then the edits.
  const [status] = await a.rookery.ctx.database.db.select().from(statuses)
    .where(eq(statuses.id, id));
  assert.equal(
    rows.filter((r) => r.createdAt.getTime() === status.createdAt.getTime()).length,
    1,
    `one original version: ${JSON.stringify(texts)}`,
  );
  for (let i = 1; i < rows.length; i++) {
    assert.ok(rows[i].createdAt > rows[i - 1].createdAt, `versions in order: ${texts}`);
  }
  // The newest version is the status as shown, and as its edited_at says.
  assert.equal(texts.at(-1), shown.body.content, `last version shown: ${JSON.stringify(texts)}`);
  assert.equal(rows.at(-1)!.createdAt.toISOString(), status.editedAt?.toISOString());
  return texts;
}

test("two concurrent edits: one original version, both edits, in the order applied", async () => {
  const a = await startInstance();
  try {
    const alice = await createUser(a, "alice");
    const s = await postStatus(a, alice, "version zero");

    // Forced: the first edit has read the status and waits; the second runs to its end.
    const gate = holdTransactionOf(a, "editStatus");
    const first = callJson(a, alice, "PUT", `/api/v1/statuses/${s.id}`, {
      status: "version one",
    });
    await gate.reached;
    const second = await callJson(a, alice, "PUT", `/api/v1/statuses/${s.id}`, {
      status: "version two",
    });
    assert.equal(second.status, 200);
    gate.release();
    assert.equal((await first).status, 200);
    gate.restore();
    const texts = await coherentHistory(a, alice, s.id);
    assert.deepEqual(texts.map((t) => t.replace(/<[^>]+>/g, "")), [
      "version zero",
      "version two",
      "version one",
    ]);

    // By chance: pairs of edits sent together.
    for (let round = 0; round < 6; round++) {
      const t = await postStatus(a, alice, `round ${round}`);
      const answers = await Promise.all(
        ["x", "y"].map((v) =>
          callJson(a, alice, "PUT", `/api/v1/statuses/${t.id}`, { status: `${v} ${round}` })
        ),
      );
      assert.deepEqual(answers.map((r) => r.status), [200, 200]);
      const versions = await coherentHistory(a, alice, t.id);
      assert.equal(versions.length, 3, JSON.stringify(versions));
    }
  } finally {
    await a.close({ destroy: true });
  }
});

test("an edit racing a delete: the edit before the delete, or 404 and no Update", async () => {
  const a = await startInstance();
  try {
    const alice = await createUser(a, "alice");
    const deliveries = await recordDeliveries(a);
    const db = a.rookery.ctx.database.db;
    const s = await postStatus(a, alice, "to be deleted");

    // Forced: the edit has read the status and waits; the delete runs to its end.
    const gate = holdTransactionOf(a, "editStatus");
    const edit = callJson(a, alice, "PUT", `/api/v1/statuses/${s.id}`, { status: "too late" });
    await gate.reached;
    assert.equal((await callJson(a, alice, "DELETE", `/api/v1/statuses/${s.id}`)).status, 200);
    gate.release();
    const late = await edit;
    gate.restore();
    assert.equal(late.status, 404, JSON.stringify(late.body));
    assert.equal(late.body.error, "Record not found");
    const [row] = await db.select().from(statuses).where(eq(statuses.id, s.id));
    assert.ok(row.deletedAt);
    assert.equal(row.text, "to be deleted");
    assert.equal(row.editedAt, null);
    assert.equal(
      (await db.select().from(statusEdits).where(eq(statusEdits.statusId, s.id))).length,
      0,
    );
    assert.deepEqual(
      (await deliveries()).filter((d) => d.endsWith(s.id)),
      [`statusDeleted ${s.id}`],
    );

    // By chance: an edit and a delete sent together, a few times.
    for (let round = 0; round < 6; round++) {
      const t = await postStatus(a, alice, `round ${round}`);
      const [put, del] = await Promise.all([
        callJson(a, alice, "PUT", `/api/v1/statuses/${t.id}`, { status: `edited ${round}` }),
        callJson(a, alice, "DELETE", `/api/v1/statuses/${t.id}`),
      ]);
      assert.equal(del.status, 200);
      const [r] = await db.select().from(statuses).where(eq(statuses.id, t.id));
      assert.ok(r.deletedAt);
      const edits = await db.select().from(statusEdits).where(eq(statusEdits.statusId, t.id));
      const mine = (await deliveries()).filter((d) => d.endsWith(` ${t.id}`));
      if (put.status === 200) {
        // The edit came first: its version is the last one.
        assert.equal(r.text, `edited ${round}`);
        assert.equal(edits.length, 2);
        assert.deepEqual(mine, [`statusUpdated ${t.id}`, `statusDeleted ${t.id}`]);
      } else {
        assert.equal(put.status, 404);
        assert.equal(r.text, `round ${round}`);
        assert.equal(edits.length, 0);
        assert.deepEqual(mine, [`statusDeleted ${t.id}`]);
      }
    }
  } finally {
    await a.close({ destroy: true });
  }
});
