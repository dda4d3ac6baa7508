/**
 * What every request handler, inbox listener and command receives: the
 * configuration, the open database and the federation object. (Deliveries
 * are recorded as intents in the database, actors/deliveries.ts, and relayed
 * by the process's OutboxRelay, which holds the Outbox.)
 */
import type { Federation } from "@fedify/fedify";
import type { Config } from "./config.ts";
import type { Database } from "./db/connection.ts";

export interface AppContext {
  readonly config: Config;
  readonly database: Database;
  /** Set once the federation is built; Fedify passes this object as its context data. */
  federation: Federation<AppContext>;
  /**
   * Looks up an e-mail domain's MX hosts for the sign-up checks
   * (actors/access_blocks/email_mx.ts); unset: the system resolver. Tests set it.
   */
  resolveMx?: (domain: string, signal: AbortSignal) => Promise<string[]>;
}
