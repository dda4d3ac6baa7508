/**
 * The small interface through which commands ask federation/ to deliver.
 *
 * Commands in actors/ know nothing of ActivityStreams, and never call this
 * directly: they record an intent in their own transaction, for example
 * `recordDelivery(tx, "accountUpdated", id, newId())` (actors/outbox/deliveries.ts),
 * and the relay (federation/outbox/relay.ts) calls the method after commit.
 * The implementation in federation/outbox/ builds the activity from the
 * stored rows and queues it. Each area declares its part in
 * actors/outbox/*.ts; every method is required, so a missing one is a type
 * error, and arguments must survive JSON (they are stored with the intent).
 */
import type { AccountDeliveries } from "./accounts.ts";
import type { RelationshipDeliveries } from "./relationships.ts";
import type { InteractionDeliveries } from "./interactions.ts";
import type { PollDeliveries } from "./polls.ts";
import type { StatusFederationDeliveries } from "./statuses.ts";
import type { LinkCardJobs } from "./cards.ts";
import type { StatusLinkJobs } from "./status_links.ts";
import type { ReportDeliveries } from "./reports.ts";
import type { PushJobs } from "./push.ts";
import type { CollectionDeliveries } from "./collections.ts";
import type { AnnualReportJobs } from "./annual_reports.ts";
import type { EmailDigestJobs } from "./email_subscriptions.ts";

export interface Outbox
  extends
    AccountDeliveries,
    RelationshipDeliveries,
    InteractionDeliveries,
    PollDeliveries,
    StatusFederationDeliveries,
    LinkCardJobs,
    StatusLinkJobs,
    ReportDeliveries,
    PushJobs,
    CollectionDeliveries,
    AnnualReportJobs,
    EmailDigestJobs {}
