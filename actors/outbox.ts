/**
 * The small interface through which commands ask federation/ to deliver.
 *
 * Commands in actors/ know nothing of ActivityStreams: after their writes
 * commit they call, for example, `ctx.outbox.accountUpdated(id)`, and the
 * implementation in federation/outbox/ builds the activity from the stored
 * rows and queues it. Each area declares its part in actors/outbox/*.ts.
 */
import type { AccountDeliveries } from "./outbox/accounts.ts";
import type { RelationshipDeliveries } from "./outbox/relationships.ts";
import type { InteractionDeliveries } from "./outbox/interactions.ts";
import type { PollDeliveries } from "./outbox/polls.ts";
import type { StatusFederationDeliveries } from "./outbox/statuses.ts";
import type { LinkCardJobs } from "./outbox/cards.ts";

export interface Outbox
  extends
    AccountDeliveries,
    RelationshipDeliveries,
    InteractionDeliveries,
    PollDeliveries,
    StatusFederationDeliveries,
    LinkCardJobs {}
