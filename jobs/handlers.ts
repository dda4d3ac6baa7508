/**
 * What each of Rookery's own jobs does: the table from a job (recorded by
 * actors/outbox/jobs.ts) to the function that runs it. jobs/queue.ts calls
 * it for every job message a worker takes.
 */
import type { AppContext } from "../context.ts";
import { refreshLinkCard } from "./link_cards/refresh.ts";
import { runFeaturedSync } from "../federation/remote/featured_sync.ts";
import { fetchStatusLinks } from "../federation/remote/status_links.ts";
import { runPushJob } from "./web_push/run.ts";
import { runMoveFollowers } from "./move_followers.ts";
import { runDataImport } from "./data_import.ts";
import { crawlReplies } from "../federation/remote/replies_crawl.ts";
import { runArchive } from "./archive_export.ts";
import { runAnnualReportJob } from "./annual_reports.ts";
import { runEmailDigest } from "./email_digests.ts";
import { verifyFeaturedItem } from "../federation/remote/featured_items.ts";
import { refreshRemoteAccount } from "../federation/remote/account_refresh.ts";
import type { Job } from "../actors/outbox/jobs.ts";
import { copyAtReceipt } from "../actors/media/remote_cache/at_receipt.ts";

/** Runs one job; `signal` is aborted when the worker stops. */
export async function runJob(ctx: AppContext, job: Job, signal?: AbortSignal): Promise<void> {
  switch (job.job) {
    case "link_card":
      return await refreshLinkCard(ctx, job.statusId, signal);
    case "featured_collection":
      return await runFeaturedSync(ctx, job.accountId);
    case "status_links":
      return await fetchStatusLinks(ctx, job.statusId, job.missing);
    case "web_push":
      return await runPushJob(ctx, job);
    case "move_followers":
      return await runMoveFollowers(ctx, job);
    case "data_import":
      return await runDataImport(ctx, job);
    case "replies_crawl":
      return await crawlReplies(ctx, job.statusId, job.refreshId);
    case "archive":
      return await runArchive(ctx, job, signal);
    case "annual_report":
      return await runAnnualReportJob(ctx, job);
    case "email_digest":
      return await runEmailDigest(ctx, job.accountId);
    case "verify_featured_item":
      return await verifyFeaturedItem(ctx, job);
    case "remote_account_refresh":
      return await refreshRemoteAccount(ctx, job.accountId);
    case "remote_media":
      return await copyAtReceipt(ctx, job);
  }
}
