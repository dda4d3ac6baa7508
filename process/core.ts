/**
 * The process core: everything one Rookery process holds in memory while it
 * runs (the one LISTEN, caches, domain rules, the rate limiter, the stream
 * bus and hub, the job queue, the outbox relay), in one typed object that
 * rookery.ts builds and closes and that every command and route receives as
 * `ctx.core` (context.ts). No module keeps mutable state of its own
 * (tests/server/process_state_test.ts checks it), so several instances in
 * one process (the tests) share nothing, and closing one leaves no
 * listener or timer behind.
 *
 * Each part is a small class in the module whose subject it is; this file
 * only assembles them and says in which order they close.
 */
import type { Config } from "../config.ts";
import type { Database } from "../db/connection.ts";
import { ChannelListener } from "../db/channel_listener.ts";
import { WriteMarks } from "../db/write_marks.ts";
import { ActivityMemo } from "../actors/accounts/user_activity.ts";
import { IpBlockCache } from "../actors/access_blocks/ip_block_cache.ts";
import { DomainRules } from "../actors/moderation/domain_rules.ts";
import { Distributions } from "../actors/annual_reports/percentiles.ts";
import { MediaWork } from "../actors/media/processing.ts";
import { RemoteMediaCache } from "../actors/media/remote_cache/cache.ts";
import { Mailer } from "../actors/net/mailer.ts";
import { VapidKeyCache } from "../actors/push/vapid.ts";
import { StreamBus } from "../actors/streaming/bus.ts";
import { makeTranslator, type Translator } from "../actors/translation/service.ts";
import { type EntityCache, openEntityCache } from "../api/entities/entity_cache.ts";
import { RateLimitCounter } from "../api/middleware/rate_limit_counter.ts";
import { StreamHubStarter } from "../api/streaming/hub.ts";
import { KeyPairCache } from "../federation/dispatchers/keys.ts";
import { KeyOwners } from "../federation/dispatchers/key_owners.ts";
import { AnnouncedCache } from "../db/announced_cache.ts";
import type { AccountRow } from "../federation/remote/accounts.ts";
import { OutboundFetchGuard } from "../federation/fetch/outbound_fetch.ts";
import { RecentAsks } from "../federation/remote/status_links.ts";
import type { OutboxRelay } from "../federation/outbox/relay.ts";

// The media store and its URLs are built beside the core (the store may load
// the S3 SDK first) and reached as ctx.media / ctx.mediaUrls; their types
// reach context.ts through here, as the core's own do.
export type { MediaStore } from "../actors/media/store/mod.ts";
export type { MediaUrls } from "../actors/media/urls.ts";

export interface ProcessCore {
  /** The one LISTEN connection, channels multiplexed (db/channel_listener.ts). */
  readonly listener: ChannelListener;
  /** "This process just wrote" (db/write_marks.ts): the entity cache waits on it. */
  readonly writes: WriteMarks;
  /** Statuses, accounts, tokens and filters every viewer sees alike (api/entities/entity_cache.ts). */
  readonly entityCache: EntityCache;
  /** Domain blocks and the allow-list (actors/moderation/domain_rules.ts). */
  readonly domainRules: DomainRules;
  /** IP blocks (actors/access_blocks/ip_block_cache.ts). */
  readonly ipBlocks: IpBlockCache;
  /** Request counts and leases (api/middleware/rate_limit_counter.ts). */
  readonly rateLimits: RateLimitCounter;
  /** Streaming events as they are committed (actors/streaming/bus.ts). */
  readonly streamBus: StreamBus;
  /** Who hears them: the hub, started at the first stream (api/streaming/hub.ts). */
  readonly streamHub: StreamHubStarter;
  /** Local actors' key pairs (federation/dispatchers/keys.ts). */
  readonly keyPairs: KeyPairCache;
  /** Local actor identifiers → their accounts: key owners, inbox recipients (key_owners.ts). */
  readonly keyOwners: KeyOwners;
  /** Inbox senders' accounts by actor IRI, kept through counter updates (inbox/statuses.ts). */
  readonly remoteSenders: AnnouncedCache<AccountRow>;
  /** The Web Push key (actors/push/vapid.ts). */
  readonly vapidKeys: VapidKeyCache;
  /** Machine translation, when configured (actors/translation/service.ts). */
  readonly translator: Translator | null;
  /** SMTP transports (actors/net/mailer.ts). */
  readonly mailer: Mailer;
  /** The media worker and ffmpeg's presence (actors/media/processing.ts). */
  readonly media: MediaWork;
  /** Remote media fetches in flight (actors/media/remote_cache/cache.ts). */
  readonly remoteMedia: RemoteMediaCache;
  /** Activity this process already recorded (actors/accounts/user_activity.ts). */
  readonly activity: ActivityMemo;
  /** Annual reports' yearly counts (actors/annual_reports/percentiles.ts). */
  readonly reportDistributions: Distributions;
  /** Parents a thread view asked for lately (federation/remote/status_links.ts). */
  readonly statusLinkAsks: RecentAsks;
  /** Fedify's own requests: deadline and address checks (federation/fetch/outbound_fetch.ts). */
  readonly outboundFetch: OutboundFetchGuard;
  /** Relays recorded delivery intents; set by rookery.ts (federation/outbox/relay.ts). */
  outboxRelay: OutboxRelay;
}

/** The core and what it takes to stop it. */
export interface OpenCore {
  readonly core: ProcessCore;
  /** Resolves once the caches hear their invalidations (or listening failed). */
  readonly listening: Promise<void>;
  /** Closes the streams first, so a server shutting down does not wait on them. */
  closeStreams(): Promise<void>;
  /**
   * Closes what the core opened, in order: streams, the bus, the relay,
   * the rate limiter's leases, mail transports, the fetch guard, and last
   * the LISTEN. The queue worker is stopped by its owner (rookery.ts) before.
   */
  close(): Promise<void>;
}

/** Builds the core of a process on an open database. */
export function openProcessCore(config: Config, database: Database): OpenCore {
  const listener = new ChannelListener(database);
  const writes = new WriteMarks();
  const { cache: entityCache, listening } = openEntityCache(database, listener, writes);
  const domainRules = new DomainRules(database);
  domainRules.listen(listener);
  const ipBlocks = new IpBlockCache(database);
  ipBlocks.listen(listener);
  const streamBus = new StreamBus(database);
  streamBus.listen(listener);
  const keyOwners = new KeyOwners();
  keyOwners.listen(listener);
  const remoteSenders = new AnnouncedCache<AccountRow>((row) => row.id);
  remoteSenders.listen(listener);
  const core = {
    listener,
    writes,
    entityCache,
    domainRules,
    ipBlocks,
    rateLimits: new RateLimitCounter(database),
    streamBus,
    streamHub: new StreamHubStarter(),
    keyPairs: new KeyPairCache(database),
    keyOwners,
    remoteSenders,
    vapidKeys: new VapidKeyCache(database),
    translator: makeTranslator(config),
    mailer: new Mailer(),
    media: new MediaWork(),
    remoteMedia: new RemoteMediaCache(),
    activity: new ActivityMemo(),
    reportDistributions: new Distributions(),
    statusLinkAsks: new RecentAsks(),
    outboundFetch: OutboundFetchGuard.install({
      timeoutMs: config.fetchTimeoutMs,
      allowPrivateAddress: config.allowPrivateAddress,
    }),
  } as ProcessCore;
  const closeStreams = () => core.streamHub.close();
  return {
    core,
    listening,
    closeStreams,
    async close() {
      await closeStreams();
      await streamBus.stop();
      await core.outboxRelay?.stop();
      // Quota this process reserved but did not use goes back to the others.
      await core.rateLimits.close();
      core.mailer.close();
      core.outboundFetch.uninstall();
      await listener.close();
    },
  };
}
