/**
 * Annual reports ("Wrapstodon", user tokens), as Mastodon 4.5:
 * - GET /api/v1/annual_reports (read:accounts) → WrappedAnnualReports of
 *   the caller's reports not yet marked read; none → the three lists empty
 * - GET /api/v1/annual_reports/:year (read:accounts) → WrappedAnnualReports
 *   with the caller's report for that year, read or not; none → 404
 * - POST /api/v1/annual_reports/:year/read (write:accounts) → {}; marks it
 *   read, so the list leaves it out; none → 404
 * - GET /api/v1/annual_reports/:year/state (read:accounts) → {"state": …}:
 *   available, generating (with a `Mastodon-Async-Refresh` header),
 *   eligible or ineligible (actors/annual_reports/state.ts; Mastodon 4.6)
 * - POST /api/v1/annual_reports/:year/generate (write:accounts) → {}: 202
 *   with the refresh's header while the report is made (a job), 200 when
 *   there is nothing to make (it exists, or the year is not eligible)
 * A year that is not a number names no report (404, as Mastodon's lookup
 * by year finds nothing; `state` answers `ineligible`). Reports are made by
 * a job, never by these routes (actors/annual_reports/, jobs/annual_reports.ts).
 */
import { type Context, Hono } from "hono";
import type { ApiEnv } from "../env.ts";
import { ApiError } from "../errors.ts";
import { requireUser } from "../middleware/scopes.ts";
import { wrappedAnnualReports } from "../entities/annual_report.ts";
import { NotFoundError } from "../../model/errors.ts";
import {
  findReport,
  markReportViewed,
  parseReportYear,
  pendingReports,
} from "../../actors/annual_reports/reports.ts";
import { reportState, requestReport } from "../../actors/annual_reports/state.ts";
import { asyncRefreshHeader } from "../../federation/remote/replies_crawl.ts";

const NOT_FOUND = "Record not found";

function nowOf(c: Context<ApiEnv>): Date {
  return c.get("ctx").now?.() ?? new Date();
}

function yearOf(raw: string): number {
  const year = parseReportYear(raw);
  if (year == null) throw new ApiError(404, NOT_FOUND);
  return year;
}

async function orNotFound<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof NotFoundError) throw new ApiError(404, NOT_FOUND);
    throw error;
  }
}

/** The annual report routes, mounted at the root of the app. */
export function annualReportRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get("/api/v1/annual_reports", requireUser("read:accounts"), async (c) => {
    const ctx = c.get("ctx");
    const accountId = c.get("user")!.accountId;
    const rows = await pendingReports(ctx.database.db, accountId);
    return c.json(await wrappedAnnualReports(ctx, rows, accountId));
  });

  app.get("/api/v1/annual_reports/:year", requireUser("read:accounts"), async (c) => {
    const ctx = c.get("ctx");
    const accountId = c.get("user")!.accountId;
    const year = yearOf(c.req.param("year"));
    const row = await orNotFound(() => findReport(ctx.database.db, accountId, year));
    return c.json(await wrappedAnnualReports(ctx, [row], accountId));
  });

  app.get("/api/v1/annual_reports/:year/state", requireUser("read:accounts"), async (c) => {
    const ctx = c.get("ctx");
    const year = parseReportYear(c.req.param("year"));
    if (year == null) return c.json({ state: "ineligible" });
    const scope = { accountId: c.get("user")!.accountId, year };
    const { state, refresh } = await reportState(ctx, scope, nowOf(c));
    if (refresh) c.header("Mastodon-Async-Refresh", asyncRefreshHeader(refresh));
    return c.json({ state });
  });

  app.post("/api/v1/annual_reports/:year/generate", requireUser("write:accounts"), async (c) => {
    const year = parseReportYear(c.req.param("year"));
    if (year == null) return c.json({});
    const scope = { accountId: c.get("user")!.accountId, year };
    const refresh = await requestReport(c.get("ctx"), scope, nowOf(c));
    if (!refresh) return c.json({});
    c.header("Mastodon-Async-Refresh", asyncRefreshHeader(refresh));
    return c.json({}, 202);
  });

  app.post("/api/v1/annual_reports/:year/read", requireUser("write:accounts"), async (c) => {
    const year = yearOf(c.req.param("year"));
    await orNotFound(() =>
      markReportViewed(c.get("ctx").database.db, c.get("user")!.accountId, year)
    );
    return c.json({});
  });

  return app;
}
