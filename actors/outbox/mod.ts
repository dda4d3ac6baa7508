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
 * Background work that is not a delivery (link cards, pushes, fetches, a
 * move's followers) is a job instead, recorded the same way (jobs.ts).
 */
import type { AccountDeliveries } from "./accounts.ts";
import type { RelationshipDeliveries } from "./relationships.ts";
import type { InteractionDeliveries } from "./interactions.ts";
import type { PollDeliveries } from "./polls.ts";
import type { StatusFederationDeliveries } from "./statuses.ts";
import type { ReportDeliveries } from "./reports.ts";
import type { CollectionDeliveries } from "./collections.ts";
import type { InteractionRequestDeliveries } from "./interaction_requests.ts";
import type { TimelineDeliveries } from "./timelines.ts";

export interface Outbox
  extends
    AccountDeliveries,
    RelationshipDeliveries,
    InteractionDeliveries,
    PollDeliveries,
    StatusFederationDeliveries,
    ReportDeliveries,
    CollectionDeliveries,
    InteractionRequestDeliveries,
    TimelineDeliveries {}
