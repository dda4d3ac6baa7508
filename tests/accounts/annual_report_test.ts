/**
 * Annual reports (issue 21): a year of seeded activity (posted through the
 * API, then moved into 2025 in the database), reports made by the job that
 * `annual-report generate` queues, and read over /api/v1/annual_reports in
 * Mastodon 4.5's shape (schema version 1) with the accounts and statuses
 * they name. A year without activity gets no report (404, empty list);
 * marking read takes a report off the list; nobody sees another's report.
 */
import assert from "node:assert/strict";
import { eq, inArray } from "drizzle-orm";
import { POSTGRES_ONLY, startInstance, test, type TestInstance } from "../harness.ts";
import { follows, generatedAnnualReports, statuses } from "../../db/schema/mod.ts";
import { newId } from "../../db/ids.ts";
import { prepareCommand } from "../../admin/commands.ts";
import { archetypeOf } from "../../actors/annual_reports/archetype.ts";
import { generateAnnualReport } from "../../actors/annual_reports/generate.ts";
import { campaignYear } from "../../actors/annual_reports/campaign.ts";
import { runAnnualReportCampaign } from "../../jobs/annual_reports.ts";
import { startServer } from "../fixtures/server_process.ts";
import { createUser, type TestUser } from "../fixtures/users.ts";
import { call, callJson, ok, postStatus } from "../fixtures/api.ts";
import { eventually } from "../fixtures/wait.ts";

/** Runs an admin command in the instance's process, as the admin socket would. */
async function admin(instance: TestInstance, ...argv: string[]) {
  const prepared = prepareCommand(argv);
  if (prepared.kind === "done") return prepared.result;
  const { ctx } = instance.rookery;
  return await prepared.run({ db: ctx.database.db, config: ctx.config, app: ctx });
}

const at = (iso: string) => new Date(`${iso}T12:00:00Z`);

test("annual reports: a year of activity, its report, read, and the hostile cases", async (t) => {
  // The worker's own campaign finds nothing to do in November; the test runs it for a December.
  const server = await startInstance({ env: { ANNUAL_REPORTS: "true" } });
  try {
    const { db } = server.rookery.ctx.database;
    const alice = await createUser(server, "alice");
    const bob = await createUser(server, "bob");
    const carol = await createUser(server, "carol");
    const dave = await createUser(server, "dave");
    /** Status id → the date it is moved to. */
    const dates = new Map<string, Date>();
    const post = async (who: TestUser, date: string, body: string | Record<string, unknown>) => {
      const status = await postStatus(server, who, body);
      dates.set(status.id, at(date));
      return status.id as string;
    };
    const boost = async (who: TestUser, date: string, id: string) => {
      const wrapper = await ok(server, who, "POST", `/api/v1/statuses/${id}/reblog`);
      dates.set(wrapper.id, at(date));
      return wrapper.id as string;
    };

    // Others' statuses of 2025 (they count in the server's percentiles).
    const b1 = await post(bob, "2025-06-15", "Bob's post");
    const c1 = await post(carol, "2025-06-15", "Carol's first");
    const c2 = await post(carol, "2025-06-15", "Carol's second");

    // Alice's year: 13 statuses (7 standalone, 3 replies to others, 3 boosts, 1 poll).
    const s1 = await post(alice, "2025-01-05", "#Cats #Dogs first");
    const s2 = await post(alice, "2025-02-05", "#cats second");
    const s3 = await post(alice, "2025-03-05", "#dogs and #cats third");
    await post(alice, "2025-03-06", "#Rare just once");
    const u1 = await post(alice, "2025-04-05", { status: "quiet", visibility: "unlisted" });
    await post(alice, "2025-04-06", { status: "thread", in_reply_to_id: s1 });
    await post(alice, "2025-05-05", { status: "@bob one", in_reply_to_id: b1 });
    await post(alice, "2025-05-06", { status: "@bob two", in_reply_to_id: b1 });
    await post(alice, "2025-06-05", { status: "@carol once", in_reply_to_id: c1 });
    await boost(alice, "2025-06-06", c1);
    await boost(alice, "2025-07-05", c2);
    await boost(alice, "2025-07-06", b1);
    await post(alice, "2025-08-05", {
      status: "Which?",
      poll: { options: ["this", "that"], expires_in: 3600 },
    });

    // Interactions: s1 the most boosted, s2 the most favourited public status
    // (u1 has more favourites but is unlisted), s3 the most replied to.
    await boost(bob, "2025-06-20", s1);
    await boost(carol, "2025-06-20", s1);
    for (
      const [who, id] of [[bob, s1], [bob, s2], [carol, s2], [bob, u1], [carol, u1], [
        dave,
        u1,
      ]] as const
    ) {
      await ok(server, who, "POST", `/api/v1/statuses/${id}/favourite`);
    }
    await post(bob, "2025-06-21", { status: "@alice reply", in_reply_to_id: s3 });

    // Follows: bob (March) and carol (July) follow alice; alice follows bob (May).
    await ok(server, bob, "POST", `/api/v1/accounts/${alice.id}/follow`);
    await ok(server, carol, "POST", `/api/v1/accounts/${alice.id}/follow`);
    await ok(server, alice, "POST", `/api/v1/accounts/${bob.id}/follow`);
    const followDate = async (from: TestUser, to: TestUser, date: string) => {
      const updated = await db.update(follows).set({ createdAt: at(date) })
        .where(eq(follows.accountId, from.id)).returning({ target: follows.targetAccountId });
      assert.deepEqual(updated.map((f) => f.target), [to.id]);
    };
    await followDate(bob, alice, "2025-03-10");
    await followDate(carol, alice, "2025-07-04");
    await followDate(alice, bob, "2025-05-20");

    // Dave's year is 2024: five posts and 115 boosts of bob's post (a booster).
    for (let i = 0; i < 5; i++) await post(dave, "2024-10-01", `Dave ${i}`);
    await db.insert(statuses).values(Array.from({ length: 115 }, (_, i) => {
      const id = newId();
      return {
        id,
        uri: `${server.origin}/users/dave/statuses/${id}/activity`,
        accountId: dave.id,
        local: true,
        reblogOfId: b1,
        createdAt: at(`2024-11-${String(1 + (i % 28)).padStart(2, "0")}`),
      };
    }));

    for (const [id, date] of dates) {
      await db.update(statuses).set({ createdAt: date }).where(eq(statuses.id, id));
    }

    await t.step("the admin command queues the jobs; the worker makes the reports", async () => {
      const bad = await admin(server, "annual-report", "generate", "1999");
      assert.equal(bad.exitCode, 2, bad.stderr);
      const garbage = await admin(server, "annual-report", "generate", "20x5");
      assert.equal(garbage.exitCode, 2, garbage.stderr);
      const unknown = await admin(
        server,
        "annual-report",
        "generate",
        "2025",
        "--account",
        "nobody",
      );
      assert.equal(unknown.exitCode, 1, unknown.stderr);

      const y2025 = await admin(server, "annual-report", "generate", "2025");
      assert.equal(y2025.exitCode, 0, y2025.stderr);
      // alice, bob and carol posted in 2025; dave did not.
      assert.match(y2025.stdout, /Queued 3 annual reports for 2025\./);
      // December's campaign does the same for its year (dave's 2024), only from the 10th.
      const { ctx } = server.rookery;
      const december = new Date("2024-12-15T08:00:00Z");
      const disabled = { ...ctx, config: { ...ctx.config, annualReports: false } };
      assert.equal(await runAnnualReportCampaign(disabled, december), null);
      assert.equal(await runAnnualReportCampaign(ctx, new Date("2024-12-09T23:00:00Z")), null);
      assert.equal(await runAnnualReportCampaign(ctx, december), 1);
      await eventually("the 2025 and 2024 reports", async () => {
        const rows = await db.select({ id: generatedAnnualReports.id })
          .from(generatedAnnualReports);
        return rows.length === 4;
      });
      // Asked again, nobody is due; asked for one account, its report stays as it is.
      const again = await admin(server, "annual-report", "generate", "2025");
      assert.match(again.stdout, /Queued 0 annual reports for 2025\./);
    });

    await t.step("alice's 2025 report in Mastodon's shape", async () => {
      const wrapped = await ok(server, alice, "GET", "/api/v1/annual_reports");
      assert.deepEqual(Object.keys(wrapped).sort(), ["accounts", "annual_reports", "statuses"]);
      assert.equal(wrapped.annual_reports.length, 1);
      const report = wrapped.annual_reports[0];
      assert.deepEqual(Object.keys(report).sort(), ["data", "schema_version", "year"]);
      assert.equal(report.year, 2025);
      assert.equal(report.schema_version, 1);
      const data = report.data;
      assert.equal(data.archetype, "lurker");
      assert.deepEqual(data.type_distribution, {
        total: 13,
        reblogs: 3,
        replies: 3,
        standalone: 7,
      });
      assert.deepEqual(data.top_statuses, { by_reblogs: s1, by_favourites: s2, by_replies: s3 });
      // Used at least twice; names as first written.
      assert.deepEqual(data.top_hashtags, [{ name: "Cats", count: 3 }, { name: "Dogs", count: 2 }]);
      // Boosts carry no application.
      assert.deepEqual(data.most_used_apps, [{ name: "Test app", count: 10 }]);
      // Replied to more than once (carol only once).
      assert.deepEqual(data.commonly_interacted_with_accounts, [{ account_id: bob.id, count: 2 }]);
      // Boosted more than once (bob only once).
      assert.deepEqual(data.most_reblogged_accounts, [{ account_id: carol.id, count: 2 }]);

      assert.equal(data.time_series.length, 12);
      const month = (m: number) => data.time_series[m - 1];
      assert.deepEqual(data.time_series.map((e: { statuses: number }) => e.statuses), [
        1,
        1,
        2,
        2,
        2,
        2,
        2,
        1,
        0,
        0,
        0,
        0,
      ]);
      assert.deepEqual(month(3), { month: 3, statuses: 2, following: 0, followers: 1 });
      assert.deepEqual(month(5), { month: 5, statuses: 2, following: 1, followers: 0 });
      assert.deepEqual(month(7), { month: 7, statuses: 2, following: 0, followers: 1 });
      assert.equal(
        data.time_series.reduce((n: number, e: { followers: number }) => n + e.followers, 0),
        2,
      );

      // Of the 3 local accounts that posted in 2025, 2 posted less: 2 / (3 + 1).
      assert.equal(data.percentiles.statuses, 50);
      // Of the 2 that gained followers, 1 gained fewer: 1 / (2 + 1).
      assert.ok(Math.abs(data.percentiles.followers - 100 / 3) < 1e-9, data.percentiles.followers);

      // The accounts and statuses the report names, as full entities.
      assert.deepEqual(
        wrapped.accounts.map((a: { id: string }) => a.id).sort(),
        [bob.id, carol.id].sort(),
      );
      const bobEntity = wrapped.accounts.find((a: { id: string }) => a.id === bob.id);
      assert.equal(bobEntity.acct, "bob");
      assert.deepEqual(
        wrapped.statuses.map((s: { id: string }) => s.id).sort(),
        [s1, s2, s3].sort(),
      );
      const first = wrapped.statuses.find((s: { id: string }) => s.id === s1);
      assert.equal(first.reblogs_count, 2);
      assert.equal(first.favourited, false); // the viewer's own view of it
      assert.equal(first.account.id, alice.id);

      const single = await ok(server, alice, "GET", "/api/v1/annual_reports/2025");
      assert.deepEqual(single.annual_reports, wrapped.annual_reports);
      // Rails ignores a trailing slash.
      const slash = await callJson(server, alice, "GET", "/api/v1/annual_reports/2025/");
      assert.equal(slash.status, 200);
    });

    await t.step("a year without activity: no report, Mastodon's empty answers", async () => {
      const missing = await callJson(server, alice, "GET", "/api/v1/annual_reports/2024");
      assert.equal(missing.status, 404);
      assert.deepEqual(missing.body, { error: "Record not found" });
      const read = await callJson(server, alice, "POST", "/api/v1/annual_reports/2024/read");
      assert.equal(read.status, 404);
      const list = await ok(server, alice, "GET", "/api/v1/annual_reports");
      assert.deepEqual(list.annual_reports.map((r: { year: number }) => r.year), [2025]);
    });

    await t.step("another user's report is never visible or markable", async () => {
      // Dave's 2024 report is his alone: a booster of bob.
      const daves = await ok(server, dave, "GET", "/api/v1/annual_reports");
      assert.deepEqual(daves.annual_reports.map((r: { year: number }) => r.year), [2024]);
      assert.equal(daves.annual_reports[0].data.archetype, "booster");
      assert.deepEqual(daves.annual_reports[0].data.most_reblogged_accounts, [
        { account_id: bob.id, count: 115 },
      ]);
      assert.deepEqual(daves.annual_reports[0].data.top_statuses, {
        by_reblogs: null,
        by_favourites: null,
        by_replies: null,
      });
      assert.deepEqual(daves.statuses, []);
      assert.deepEqual(daves.accounts.map((a: { id: string }) => a.id), [bob.id]);
      // Alice marking "2024" read touches nothing of dave's.
      await call(server, alice, "POST", "/api/v1/annual_reports/2024/read");
      const still = await ok(server, dave, "GET", "/api/v1/annual_reports");
      assert.equal(still.annual_reports.length, 1);
      // Bob's own 2025 report is his, not alice's.
      const bobs = await ok(server, bob, "GET", "/api/v1/annual_reports/2025");
      // b1, his boost of s1 and his reply to s3.
      assert.equal(bobs.annual_reports[0].data.type_distribution.total, 3);
    });

    await t.step("hostile years, tokens and scopes", async () => {
      for (const year of ["abc", "-1", "99999999999999999999", "2025.0", "%00", "2025abc"]) {
        const res = await callJson(server, alice, "GET", `/api/v1/annual_reports/${year}`);
        assert.equal(res.status, 404, year);
        assert.deepEqual(res.body, { error: "Record not found" }, year);
        const read = await callJson(server, alice, "POST", `/api/v1/annual_reports/${year}/read`);
        assert.equal(read.status, 404, year);
      }
      assert.equal((await callJson(server, null, "GET", "/api/v1/annual_reports")).status, 401);
      assert.equal(
        (await callJson(server, null, "POST", "/api/v1/annual_reports/2025/read")).status,
        401,
      );
      const narrow = await createUser(server, "erin", {
        scopes: ["read:statuses", "write:statuses"],
      });
      assert.equal((await callJson(server, narrow, "GET", "/api/v1/annual_reports")).status, 403);
      assert.equal(
        (await callJson(server, narrow, "POST", "/api/v1/annual_reports/2025/read")).status,
        403,
      );
      const granular = await createUser(server, "frank", { scopes: ["read:accounts"] });
      assert.equal((await callJson(server, granular, "GET", "/api/v1/annual_reports")).status, 200);
      assert.equal(
        (await callJson(server, granular, "POST", "/api/v1/annual_reports/2025/read")).status,
        403,
      );
    });

    await t.step("a status deleted since is left out of the included statuses", async () => {
      await ok(server, alice, "DELETE", `/api/v1/statuses/${s2}`);
      const wrapped = await ok(server, alice, "GET", "/api/v1/annual_reports/2025");
      assert.equal(wrapped.annual_reports[0].data.top_statuses.by_favourites, s2);
      assert.deepEqual(wrapped.statuses.map((s: { id: string }) => s.id).sort(), [s1, s3].sort());
    });

    await t.step("read takes the report off the list; it can still be fetched", async () => {
      const read = await callJson(server, alice, "POST", "/api/v1/annual_reports/2025/read");
      assert.equal(read.status, 200);
      assert.deepEqual(read.body, {});
      const [row] = await db.select({ viewedAt: generatedAnnualReports.viewedAt })
        .from(generatedAnnualReports)
        .where(inArray(generatedAnnualReports.accountId, [alice.id]));
      assert.ok(row.viewedAt instanceof Date);
      const list = await ok(server, alice, "GET", "/api/v1/annual_reports");
      assert.deepEqual(list, { annual_reports: [], accounts: [], statuses: [] });
      const single = await ok(server, alice, "GET", "/api/v1/annual_reports/2025");
      assert.equal(single.annual_reports[0].year, 2025);
      // A report once made is kept: generating again for alice changes nothing.
      const again = await admin(server, "annual-report", "generate", "2025", "--account", "alice");
      assert.match(again.stdout, /Queued the 2025 annual report of @alice\./);
      const scope = { accountId: alice.id, year: 2025 };
      assert.equal(await generateAnnualReport(server.rookery.ctx, scope), "exists");
      assert.equal(
        await generateAnnualReport(server.rookery.ctx, { ...scope, year: 2023 }),
        "no_activity",
      );
      const later = await ok(server, alice, "GET", "/api/v1/annual_reports");
      assert.deepEqual(later.annual_reports, []);
    });
  } finally {
    await server.close({ destroy: true });
  }
});

test("annual reports: the archetype follows Mastodon's order of rules", () => {
  const counts = (standalone: number, replies: number, reblogs: number, polls: number) => ({
    total: standalone + replies + reblogs,
    standalone,
    replies,
    reblogs,
    polls,
  });
  assert.equal(archetypeOf(counts(50, 10, 10, 0)), "lurker");
  assert.equal(archetypeOf(counts(30, 10, 100, 20)), "booster");
  assert.equal(archetypeOf(counts(100, 10, 10, 11)), "pollster");
  assert.equal(archetypeOf(counts(40, 100, 10, 0)), "replier");
  assert.equal(archetypeOf(counts(100, 10, 10, 10)), "oracle");
});

test("annual reports: December's campaign runs from the 10th to the 31st (UTC)", () => {
  assert.equal(campaignYear(new Date("2025-12-09T23:59:59Z")), null);
  assert.equal(campaignYear(new Date("2025-12-10T00:00:00Z")), 2025);
  assert.equal(campaignYear(new Date("2025-12-31T23:59:59Z")), 2025);
  assert.equal(campaignYear(new Date("2026-01-01T00:00:00Z")), null);
  assert.equal(campaignYear(new Date("2026-11-20T12:00:00Z")), null);
});

test(
  "annual reports: made by a ROLE=worker process, read through a web process",
  POSTGRES_ONLY,
  async () => {
    // The test's instance serves the API without a worker; main.ts runs as the worker.
    const web = await startInstance({ worker: false });
    const dataDir = await Deno.makeTempDir({ prefix: "rookery-annual-" });
    const worker = await startServer({
      ROLE: "worker",
      DATABASE_URL: web.databaseUrl!,
      DATA_DIR: dataDir,
      ORIGIN: web.origin,
    });
    try {
      const alice = await createUser(web, "alice");
      await postStatus(web, alice, "#Year in review");
      const year = new Date().getUTCFullYear();
      const queued = await admin(web, "annual-report", "generate", String(year));
      assert.match(queued.stdout, /Queued 1 annual report for/);
      const wrapped = await eventually("the worker's report", async () => {
        const res = await callJson(web, alice, "GET", `/api/v1/annual_reports/${year}`);
        return res.status === 200 ? res.body : null;
      }, 60_000);
      assert.equal(wrapped.annual_reports[0].data.type_distribution.total, 1);
    } finally {
      await worker.stop();
      await web.close({ destroy: true });
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    }
  },
);
