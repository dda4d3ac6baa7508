/**
 * What every request handler, inbox listener and command receives: the
 * configuration, the open database, the media store, the process core
 * (everything the process holds in memory: process/core.ts) and the
 * federation object. (Deliveries are recorded as intents in the database,
 * actors/outbox/deliveries.ts, and relayed by the core's OutboxRelay, which
 * holds the Outbox.)
 */
import type { Federation } from "@fedify/fedify";
import type { Config } from "./config.ts";
import type { Database } from "./db/connection.ts";
import type { MediaStore, MediaUrls, ProcessCore } from "./process/core.ts";
import type { Telemetry } from "./telemetry/mod.ts";

/** The record types the sign-up's e-mail check asks for. */
export type EmailDnsRecordType = "MX" | "A" | "AAAA";

/**
 * Looks up `name`'s records of `type`: the MX exchanges or the addresses.
 * Resolves `[]` when the name does not exist or has no such records;
 * rejects when DNS could not answer. `signal` aborts it at the deadline.
 */
export type EmailDnsResolver = (
  name: string,
  type: EmailDnsRecordType,
  signal: AbortSignal,
) => Promise<string[]>;

export interface AppContext {
  readonly config: Config;
  readonly database: Database;
  /** Where media files and archives live (actors/media/store/mod.ts): one per process. */
  readonly media: MediaStore;
  /** The URLs media are shown at, for every serializer (actors/media/urls.ts). */
  readonly mediaUrls: MediaUrls;
  /** The process's caches, listener, limiter, hub, queue and relay (process/core.ts). */
  readonly core: ProcessCore;
  /** Metrics of this process (telemetry/mod.ts): instruments are no-ops when METRICS_BIND is unset. */
  readonly telemetry: Telemetry;
  /** Set once the federation is built; Fedify passes this object as its context data. */
  federation: Federation<AppContext>;
  /**
   * Answers the DNS questions of the sign-up's e-mail domain check
   * (actors/access_blocks/email_mx.ts); unset: the system resolver. Tests set it.
   */
  resolveEmailDns?: EmailDnsResolver;
  /** The time calendar rules read (the annual report campaign); unset: the clock. Tests set it. */
  now?: () => Date;
}
