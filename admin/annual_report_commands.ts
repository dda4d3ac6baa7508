/**
 * The `annual-report generate` admin command: queues the annual report
 * jobs (jobs/annual_reports.ts) for a year, for every local
 * account that posted in it or for one account. Mastodon's operators run a
 * console script for past years; December's campaign (ANNUAL_REPORTS) does
 * the current year without anyone asking. The worker makes the reports;
 * accounts that already have one keep it.
 */
import type { AdminEnv, Command } from "./command.ts";
import { safe, UsageError } from "./args.ts";
import { requireLocalUser } from "../actors/moderation/local_users.ts";
import { FIRST_REPORT_YEAR } from "../actors/annual_reports/year.ts";
import { queueAnnualReports } from "../jobs/annual_reports.ts";
import type { AppContext } from "../context.ts";

function appOf(env: AdminEnv): AppContext {
  if (!env.app) throw new Error("this command needs the server's job queue");
  return env.app;
}

/** A year from FIRST_REPORT_YEAR to the current one. */
function readYear(raw: string): number {
  const year = /^\d{4}$/.test(raw) ? Number(raw) : NaN;
  const current = new Date().getUTCFullYear();
  if (!(year >= FIRST_REPORT_YEAR && year <= current)) {
    throw new UsageError(
      `The year must be from ${FIRST_REPORT_YEAR} to ${current}, not ${safe(raw)}`,
    );
  }
  return year;
}

/** The commands, merged into the command table. */
export const ANNUAL_REPORT_COMMANDS: Record<string, Command> = {
  "annual-report generate": {
    usage: "annual-report generate <year> [--account <username>]",
    positionals: ["year"],
    options: { account: "string" },
    async run(env, args) {
      const year = readYear(args.positionals.year);
      const app = appOf(env);
      const username = args.strings.account;
      if (username != null) {
        const { account } = await requireLocalUser(env.db, username);
        await queueAnnualReports(app, year, [account.id]);
        return `Queued the ${year} annual report of @${account.username}.`;
      }
      const queued = await queueAnnualReports(app, year);
      return `Queued ${queued} annual report${queued === 1 ? "" : "s"} for ${year}.`;
    },
  },
};
