/**
 * Delivers forwarded reports: a `Flag` from the instance actor (as Mastodon
 * sends it, so the reporter stays anonymous to the other server) whose
 * `object` is the reported account followed by the reported statuses, then
 * its reported collections, and whose `content` is the comment. Its id is a
 * fragment of the instance actor's IRI named by the report id, so a
 * relayed-twice Flag is one report on the other side.
 */
import { Flag } from "@fedify/vocab";
import { eq, inArray } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import type { ReportDeliveries } from "../../actors/outbox/reports.ts";
import { findReport, forwardingRecipients } from "../../actors/moderation/report_filing.ts";
import { accounts, statuses } from "../../db/schema/mod.ts";
import { instanceContext } from "../fetch/lookup.ts";
import { collectionUrisByIds } from "../objects/featured_collection_rows.ts";
import { INSTANCE_ACTOR } from "../dispatchers/instance_actor.ts";
import { activityIds } from "../../model/uris.ts";
import { recipientOf } from "../objects/recipient.ts";

const logger = getLogger(["rookery", "federation", "outbox"]);

export function reportDeliveries(app: AppContext): ReportDeliveries {
  return {
    async reportForwarded(reportId) {
      const { db } = app.database;
      const report = await findReport(db, reportId);
      if (!report) return;
      const { origin, repliedTo } = await forwardingRecipients(db, report);
      if (!origin && repliedTo.length === 0) return;
      const [target] = await db.select({ uri: accounts.uri }).from(accounts)
        .where(eq(accounts.id, report.targetAccountId)).limit(1);
      if (!target) return;
      const reported = report.statusIds.length
        ? await db.select({ id: statuses.id, uri: statuses.uri }).from(statuses)
          .where(inArray(statuses.id, report.statusIds))
        : [];
      // In the order the reporter attached them.
      const uris = report.statusIds
        .map((id) => reported.find((s) => s.id === id)?.uri)
        .filter((uri): uri is string => uri != null);
      // Collections after the statuses, as Mastodon 4.6 lists them.
      uris.push(...await collectionUrisByIds(db, app.config.origin, report.collectionIds ?? []));
      const ctx = instanceContext(app);
      const actor = ctx.getActorUri(INSTANCE_ACTOR);
      const flag = new Flag({
        id: new URL(activityIds.report(actor.href, report.id)),
        actor,
        objects: [new URL(target.uri), ...uris.map((uri) => new URL(uri))],
        content: report.comment,
      });
      const sender = { identifier: INSTANCE_ACTOR };
      // The target's server gets it at the target's own inbox, as Mastodon sends it.
      if (origin) await ctx.sendActivity(sender, recipientOf(origin), flag);
      if (repliedTo.length) {
        await ctx.sendActivity(sender, repliedTo.map(recipientOf), flag, {
          preferSharedInbox: true,
        });
      }
      logger.debug("Queued Flag {id} for {count} recipient(s).", {
        id: flag.id?.href,
        count: (origin ? 1 : 0) + repliedTo.length,
      });
    },
  };
}
