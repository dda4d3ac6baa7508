/**
 * The per-process cache of compiled filters (api/entities/entity_cache.ts):
 * filled by the first read, evicted by the triggers of migration 0013 when
 * a filter, keyword or filter status changes however it changed (SQL by
 * hand, another process).
 */
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { PgPreparedQuery } from "drizzle-orm/pg-core";
import { POSTGRES_ONLY, startInstance, test } from "../harness.ts";
import { ok, postStatus } from "../fixtures/api.ts";
import { createUser, type TestUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";
import type { TestInstance } from "../harness.ts";

/** alice follows bob, filters "kiwi" (warn, home); bob posts about kiwis. */
async function setup(a: TestInstance) {
  const alice = await createUser(a, "alice");
  const bob = await createUser(a, "bob");
  await ok(a, alice, "POST", `/api/v1/accounts/${bob.id}/follow`);
  const filter = await ok(a, alice, "POST", "/api/v2/filters", {
    title: "fruit",
    context: ["home"],
    keywords_attributes: [{ keyword: "kiwi" }],
  });
  const status = await postStatus(a, bob, "kiwi season");
  return { alice, bob, filter, status };
}

async function homeStatus(a: TestInstance, who: TestUser, id: string) {
  return (await ok<any[]>(a, who, "GET", "/api/v1/timelines/home")).find((s) => s.id === id);
}

/** Runs `run`, counting the statements that read the filter tables meanwhile. */
async function filterStatementsDuring(run: () => Promise<any>) {
  const proto = PgPreparedQuery.prototype as unknown as {
    queryWithCache: (...args: unknown[]) => Promise<unknown>;
  };
  const original = proto.queryWithCache;
  let statements = 0;
  proto.queryWithCache = function (this: unknown, ...args: unknown[]) {
    if (String(args[0]).includes("custom_filter")) statements++;
    return original.apply(this, args);
  };
  try {
    return { ...(await run()), statements };
  } finally {
    proto.queryWithCache = original;
  }
}

test("filter cache: filled by reads, emptied by any change to a filter", async () => {
  const a = await startInstance({ worker: false });
  try {
    const { alice, filter, status } = await setup(a);
    const { database } = a.rookery.ctx;
    assert.equal((await homeStatus(a, alice, status.id)).filtered[0].filter.id, filter.id);
    assert.equal(a.rookery.ctx.core.entityCache.filters.get(alice.id)?.length, 1, "cached");
    const read = await filterStatementsDuring(() => homeStatus(a, alice, status.id));
    assert.equal(read.filtered.length, 1);
    assert.equal(read.statements, 0, "a warm read asks the database nothing about filters");

    // Changes no route of ours made: the triggers still evict.
    await database.db.execute(sql`UPDATE custom_filters SET action = 'hide'
      WHERE id = ${filter.id}::bigint`);
    await eventually(
      "the hide to apply",
      async () => !await homeStatus(a, alice, status.id),
      5_000,
    );
    await database.db.execute(sql`DELETE FROM custom_filter_keywords
      WHERE custom_filter_id = ${filter.id}::bigint`);
    await eventually(
      "the keyword's removal",
      async () => (await homeStatus(a, alice, status.id))?.filtered.length === 0,
      5_000,
    );
    await database.db.execute(sql`INSERT INTO custom_filter_statuses
      (id, custom_filter_id, account_id, status_id)
      VALUES (1, ${filter.id}::bigint, ${alice.id}::bigint, ${status.id}::bigint)`);
    await eventually(
      "the filtered status to hide",
      async () => !await homeStatus(a, alice, status.id),
      5_000,
    );
  } finally {
    await a.close({ destroy: true });
  }
});

test("filter cache: a change in another process applies in this one", POSTGRES_ONLY, async () => {
  const first = await startInstance({ worker: false });
  const second = await startInstance({ databaseUrl: first.databaseUrl!, worker: false });
  try {
    const { alice, filter, status } = await setup(first);
    assert.equal((await homeStatus(second, alice, status.id)).filtered.length, 1);
    assert.ok(second.rookery.ctx.core.entityCache.filters.get(alice.id));
    await ok(first, alice, "PUT", `/api/v2/filters/${filter.id}`, { filter_action: "hide" });
    await eventually(
      "the other process's change",
      async () => !await homeStatus(second, alice, status.id),
      5_000,
    );
  } finally {
    await second.close();
    await first.close({ destroy: true });
  }
});
