/**
 * Builds the Fedify federation object: stores, queue, signing policy and every
 * dispatcher and listener. The pieces live in this folder, one file each.
 */
import {
  createFederation,
  type Federation,
  getDefaultActivityTransformers,
  type MessageQueue,
} from "@fedify/fedify";
import type { AppContext } from "../context.ts";
import { createStores } from "./stores/mod.ts";
import { registerDispatchers } from "./register.ts";
import { productUserAgent } from "../version.ts";
import { FedifyQueue } from "./stores/fedify_queue.ts";
import { CIRCUIT_BREAKER_OPTIONS } from "./outbox/circuit_breaker.ts";
import { createDocumentLoaders } from "./fetch/document_loader.ts";
import { createInboxGuard, SIGNATURE_MAX_AGE } from "./inbox/guard.ts";
import { INBOX_RETRY_POLICY } from "./inbox/order.ts";
import { queuePlainDelivery } from "./inbox/fast_path.ts";
import { handlePlainInboxMessage } from "./inbox/plain_dispatch.ts";
import { federationRefused, federationRefusedUrl } from "../actors/moderation/domain_rules.ts";
import { wireActivity } from "./objects/mastodon_terms.ts";
import { instanceSigningIdentity } from "./dispatchers/instance_actor.ts";

/** Where Fedify caches verified public keys (shared with the inbox guard). */
export const PUBLIC_KEY_CACHE_PREFIX = ["_fedify", "publicKey", "checked"] as const;

export interface FederationSetup {
  federation: Federation<AppContext>;
  /** Periodic clean-up of the store; run by worker processes. */
  maintain(): Promise<void>;
  /** Checks a delivery to an inbox before Fedify sees it (inbox_guard.ts). */
  guardInbox(request: Request): Promise<Request | Response>;
}

/** What the process adds to the federation it builds. */
export interface FederationOptions {
  /**
   * Wraps the queue Fedify is given, so that other messages ride on it:
   * rookery.ts passes jobs/queue.ts's, which runs Rookery's own jobs.
   */
  wrapQueue?: (queue: MessageQueue) => MessageQueue;
}

export function buildFederation(
  ctx: Omit<AppContext, "federation">,
  options: FederationOptions = {},
): FederationSetup {
  const { config, database } = ctx;
  const stores = createStores(database, {
    deliveryConcurrency: config.deliveries.concurrency,
    hostConcurrency: config.deliveries.perHost,
  }, ctx.core.listener);
  const { kv, maintain } = stores;
  const fedifyQueue = new FedifyQueue(stores.queue, ctx);
  const queue = options.wrapQueue?.(fedifyQueue) ?? fedifyQueue;
  // One product token for every request (version.ts); Fedify's own would add
  // "Fedify/…; Deno/…", and its deliveries carry none (stores/fedify_queue.ts adds ours).
  const userAgent = productUserAgent(config.origin);
  const loaders = createDocumentLoaders({
    kv,
    refusedUrl: (url) => federationRefusedUrl(ctx, url),
    allowPrivateAddress: config.allowPrivateAddress,
    userAgent,
    timeoutMs: config.fetchTimeoutMs,
    // Every fetch is signed, by the instance actor unless a local actor asks.
    instanceIdentity: () => instanceSigningIdentity(ctx.core.keyPairs, config.origin),
  });
  const federation = createFederation<AppContext>({
    kv,
    // No fanout stage: Fedify's re-reads the activity from its JSON and
    // writes it again, which would lose Mastodon's terms and shape
    // (objects/mastodon_terms.ts) from under the proof computed on them.
    // The outbox relay already runs off the request path.
    queue: { inbox: queue, outbox: queue },
    // Everything we send is in Mastodon's shape (federation/objects/wire_shape.ts).
    activityTransformers: [...getDefaultActivityTransformers<AppContext>(), wireActivity],
    // The web role only enqueues; worker processes call startQueue().
    manuallyStartQueue: true,
    // A peer back from an outage gets its held deliveries within minutes.
    circuitBreaker: CIRCUIT_BREAKER_OPTIONS,
    // A failing inbound activity holds its actor's later ones: retried for
    // minutes, not hours (inbox_order.ts).
    inboxRetryPolicy: INBOX_RETRY_POLICY,
    // Fedify's delivery, inbox and queue metrics and its spans, when ours are on (telemetry/).
    ...(ctx.telemetry.meterProvider ? { meterProvider: ctx.telemetry.meterProvider } : {}),
    ...(ctx.telemetry.tracerProvider ? { tracerProvider: ctx.telemetry.tracerProvider } : {}),
    origin: config.origin,
    // As the API: `/users/alice/` is `/users/alice` (Rails ignores the slash too).
    trailingSlashInsensitive: true,
    // Our loaders: deadlines, size and content-type limits, the two-way key
    // check (document_loader.ts). Keys verified before those checks existed
    // are not reused: they live under a new prefix.
    ...loaders,
    kvPrefixes: { publicKey: PUBLIC_KEY_CACHE_PREFIX },
    // Some widely deployed servers verify only draft-cavage and answer 202
    // before verifying, so a second knock never happens: lead with cavage.
    firstKnock: "draft-cavage-http-signatures-12",
    // Deliveries are authenticated by the inbox guard before Fedify sees
    // them (inbox_guard.ts): HTTP signature, key ownership, signer = actor,
    // relayed activities reduced to what can be fetched from their origin.
    skipSignatureVerification: true,
    // Kept for the signature checks Fedify still makes elsewhere.
    signatureTimeWindow: SIGNATURE_MAX_AGE,
  });
  // Fedify refuses these two options beside custom loaders (it expects the
  // loaders to decide them), but its WebFinger, NodeInfo and lookup helpers
  // read them from the federation object: set them there.
  Object.assign(federation, { allowPrivateAddress: config.allowPrivateAddress, userAgent });
  registerDispatchers(federation);
  // Plainly shaped Create(Note)s are run from the queue without Fedify's
  // JSON-LD parse (inbox/plain_dispatch.ts), with the context the process
  // completes (rookery.ts) and gives startQueue().
  fedifyQueue.handleFirst((message) =>
    handlePlainInboxMessage(federation, ctx as AppContext, message)
  );
  // Plainly shaped deliveries are queued without Fedify's parse of the
  // request (inbox/fast_path.ts); the rest, and every other route, are Fedify's.
  const fedifyFetch = federation.fetch.bind(federation);
  federation.fetch = async (request, options) =>
    await queuePlainDelivery(options.contextData, queue, request) ??
      await fedifyFetch(request, options);
  const guardInbox = createInboxGuard({
    origin: config.origin,
    kv,
    keyCachePrefix: PUBLIC_KEY_CACHE_PREFIX,
    documentLoader: loaders.documentLoaderFactory(),
    contextLoader: loaders.contextLoaderFactory(),
    refusedDomain: (domain) => federationRefused(ctx, domain),
  });
  return { federation, maintain, guardInbox };
}
