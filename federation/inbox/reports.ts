/**
 * Inbox listener for Flag: another server reporting our accounts to our
 * moderators (Mastodon's ActivityPub::Activity::Flag). Mastodon sends it from
 * its instance actor; other servers send it from the reporting user. Either
 * way the sender (a remote actor, stored like any other) is the reporter.
 *
 * `object` lists accounts, statuses and collections, looked up here by IRI;
 * which of them make reports is decided by `receiveFlag` (actors/moderation/report_filing.ts):
 * named local accounts, and named remote accounts whose named statuses reply
 * to local accounts (a report forwarded to us because it concerns our
 * users). Unknown IRIs are ignored, so a Flag naming nothing of ours stores
 * nothing. The activity's id (kept only when it is on the sender's server)
 * makes a replay a no-op.
 */
import type { InboxContext, InboxListenerSetters } from "@fedify/fedify";
import { Flag } from "@fedify/vocab";
import { inArray } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import { accounts, statuses } from "../../db/schema/mod.ts";
import { receiveFlag, REPORT_LIST_MAX } from "../../actors/moderation/report_filing.ts";
import { accountForActorUri } from "../remote/accounts.ts";
import { collectionIdsByUris } from "../objects/featured_collection_rows.ts";
import { FetchBudget } from "../fetch/budget.ts";
import { sameOrigin } from "../fetch/trust.ts";
import { reportsRejected } from "../../actors/moderation/domain_rules.ts";

const logger = getLogger(["rookery", "federation", "inbox", "reports"]);

/** Registers Flag. */
export function registerReportListeners(listeners: InboxListenerSetters<AppContext>): void {
  listeners.on(Flag, onFlag);
}

async function onFlag(ctx: InboxContext<AppContext>, flag: Flag): Promise<void> {
  if (!flag.actorId) return;
  const sender = await accountForActorUri(ctx, flag.actorId, FetchBudget.of(ctx.data))
    .catch(() => null);
  if (!sender || sender.domain == null || sender.deletedAt || sender.suspendedAt) return;
  // A domain block with reject_reports: its Flags are ignored (Mastodon's rule).
  if (await reportsRejected(ctx.data, sender.domain)) {
    logger.info("Ignored Flag {id} from {actor}: reports from its domain are rejected.", {
      id: flag.id?.href,
      actor: sender.uri,
    });
    return;
  }
  // Objects are IRIs (or embedded objects with ids); a bounded number is read.
  const uris = [...new Set(flag.objectIds.map((u) => u.href))].slice(0, REPORT_LIST_MAX + 1);
  if (uris.length === 0) return;
  const { db } = ctx.data.database;
  // By IRI, the form Mastodon and the others send (both columns are indexed).
  // Which of them count is the command's rule (local accounts, or remote
  // ones whose named statuses answer ours).
  const [named, namedStatuses, collectionIds] = await Promise.all([
    db.select({ id: accounts.id }).from(accounts).where(inArray(accounts.uri, uris)),
    db.select({ id: statuses.id }).from(statuses).where(inArray(statuses.uri, uris)),
    // Collections (Mastodon 4.6 lists them after the statuses).
    collectionIdsByUris(db, ctx.data.config.origin, uris),
  ]);
  const content = flag.content?.toString() ?? "";
  const uri = flag.id && sameOrigin(flag.id, sender.uri) ? flag.id.href : null;
  const created = await receiveFlag(ctx.data, {
    senderId: sender.id,
    uri,
    targetAccountIds: named.map((a) => a.id),
    statusIds: namedStatuses.map((s) => s.id),
    collectionIds,
    comment: content,
  });
  if (created.length === 0) {
    logger.info("Ignored Flag {id} from {actor}: nothing of ours to report, or a replay.", {
      id: flag.id?.href,
      actor: sender.uri,
    });
    return;
  }
  logger.info("Flag {id} from {actor}: {count} new report(s).", {
    id: flag.id?.href,
    actor: sender.uri,
    count: created.length,
  });
}
