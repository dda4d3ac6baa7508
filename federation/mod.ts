/**
 * Builds the Fedify federation object: stores, queue, signing policy and every
 * dispatcher and listener. The pieces live in this folder, one file each.
 */
import { createFederation, type Federation } from "@fedify/fedify";
import type { AppContext } from "../context.ts";
import { createStores } from "./stores/mod.ts";
import { registerDispatchers } from "./dispatchers.ts";
import { ROOKERY_VERSION } from "../version.ts";
import { jobQueueFor } from "./jobs.ts";
import { CIRCUIT_BREAKER_OPTIONS } from "./circuit_breaker.ts";

export interface FederationSetup {
  federation: Federation<AppContext>;
  /** Periodic clean-up of the store; run by worker processes. */
  maintain(): Promise<void>;
}

export function buildFederation(ctx: Omit<AppContext, "federation">): FederationSetup {
  const { config, database } = ctx;
  const stores = createStores(database);
  const { kv, maintain } = stores;
  // Rookery's own background jobs (link previews) ride on the same queue.
  const queue = jobQueueFor(ctx, stores.queue);
  const federation = createFederation<AppContext>({
    kv,
    queue,
    // The web role only enqueues; worker processes call startQueue().
    manuallyStartQueue: true,
    // A peer back from an outage gets its held deliveries within minutes.
    circuitBreaker: CIRCUIT_BREAKER_OPTIONS,
    origin: config.origin,
    allowPrivateAddress: config.allowPrivateAddress,
    // Some widely deployed servers verify only draft-cavage and answer 202
    // before verifying, so a second knock never happens: lead with cavage.
    firstKnock: "draft-cavage-http-signatures-12",
    // Mastodon accepts signatures dated up to 12 hours back.
    signatureTimeWindow: { hours: 12 },
    userAgent: { software: `Rookery/${ROOKERY_VERSION}`, url: new URL(config.origin) },
  });
  registerDispatchers(federation);
  return { federation, maintain };
}
