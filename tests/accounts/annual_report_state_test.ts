/**
 * Annual reports' `state` and `generate` (Mastodon 4.6): ineligible outside
 * the campaign, eligible during it for someone who posted that year,
 * generating while the job runs (with the refresh's header, polled at
 * /api/v1_alpha/async_refreshes/:id), available once made; the instance's
 * `wrapstodon`. The campaign's clock is the context's (`ctx.now`), set to a
 * December; the worker starts only once the `generating` state was seen.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { startInstance, test } from "../harness.ts";
import { statuses } from "../../db/schema/mod.ts";
import { call, callJson, ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";

test("annual reports: state, generate and the refresh that makes the report", async (t) => {
  const instance = await startInstance({ env: { ANNUAL_REPORTS: "true" }, worker: false });
  try {
    const { ctx } = instance.rookery;
    ctx.now = () => new Date("2025-12-15T12:00:00Z");
    const [alice, bob] = await Promise.all([
      createUser(instance, "alice"),
      createUser(instance, "bob"),
    ]);
    const posted = await postStatus(instance, alice, "A post of 2025");
    await ctx.database.db.update(statuses).set({ createdAt: new Date("2025-06-01T12:00:00Z") })
      .where(eq(statuses.id, posted.id));
    const state = async (who: typeof alice, year: string) =>
      await callJson(instance, who, "GET", `/api/v1/annual_reports/${year}/state`);

    await t.step("eligible during the campaign for someone who posted that year", async () => {
      assert.deepEqual((await state(alice, "2025")).body, { state: "eligible" });
      assert.deepEqual((await state(bob, "2025")).body, { state: "ineligible" });
      assert.deepEqual((await state(alice, "2024")).body, { state: "ineligible" });
      assert.deepEqual((await state(alice, "abc")).body, { state: "ineligible" });
      const instanceInfo = await ok(instance, null, "GET", "/api/v2/instance");
      assert.equal(instanceInfo.wrapstodon, 2025);
      // Nothing to make: 200 and no refresh.
      const none = await call(instance, bob, "POST", "/api/v1/annual_reports/2025/generate");
      assert.equal(none.status, 200);
      assert.equal(none.headers.get("mastodon-async-refresh"), null);
      assert.deepEqual(await none.json(), {});
    });

    let refreshId = "";
    await t.step("generate answers 202 with the refresh; state says generating", async () => {
      const res = await call(instance, alice, "POST", "/api/v1/annual_reports/2025/generate");
      assert.equal(res.status, 202);
      assert.deepEqual(await res.json(), {});
      const header = res.headers.get("mastodon-async-refresh")!;
      const match = /^id="([^"]+)", retry=\d+, result_count=0$/.exec(header);
      assert.ok(match, header);
      refreshId = match[1];
      const generating = await state(alice, "2025");
      assert.deepEqual(generating.body, { state: "generating" });
      assert.equal(generating.headers.get("mastodon-async-refresh"), header);
      // Asking again gives the same refresh.
      const again = await call(instance, alice, "POST", "/api/v1/annual_reports/2025/generate");
      assert.equal(again.status, 202);
      assert.equal(again.headers.get("mastodon-async-refresh"), header);
      await again.body?.cancel();
      const polled = await ok(instance, alice, "GET", `/api/v1_alpha/async_refreshes/${refreshId}`);
      assert.deepEqual(polled, {
        async_refresh: { id: refreshId, status: "running", result_count: 0 },
      });
    });

    await t.step("the job makes the report and finishes the refresh", async () => {
      instance.rookery.startWorker();
      await eventually("the refresh to finish", async () => {
        const polled = await ok(
          instance,
          alice,
          "GET",
          `/api/v1_alpha/async_refreshes/${refreshId}`,
        );
        return polled.async_refresh.status === "finished";
      });
      assert.deepEqual((await state(alice, "2025")).body, { state: "available" });
      const report = await ok(instance, alice, "GET", "/api/v1/annual_reports/2025");
      assert.equal(report.annual_reports[0].year, 2025);
      const done = await call(instance, alice, "POST", "/api/v1/annual_reports/2025/generate");
      assert.equal(done.status, 200);
      await done.body?.cancel();
    });

    await t.step("outside the campaign, nothing is eligible", async () => {
      ctx.now = () => new Date("2026-11-20T12:00:00Z");
      assert.deepEqual((await state(bob, "2026")).body, { state: "ineligible" });
      assert.equal((await ok(instance, null, "GET", "/api/v2/instance")).wrapstodon, null);
      const scopes = await callJson(instance, null, "GET", "/api/v1/annual_reports/2026/state");
      assert.equal(scopes.status, 401);
    });
  } finally {
    await instance.close({ destroy: true });
  }
});
