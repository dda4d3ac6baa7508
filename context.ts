/**
 * What every request handler, inbox listener and command receives: the
 * configuration, the open database, the federation object and the outbox.
 */
import type { Federation } from "@fedify/fedify";
import type { Config } from "./config.ts";
import type { Database } from "./db/connection.ts";
import type { Outbox } from "./actors/outbox.ts";

export interface AppContext {
  readonly config: Config;
  readonly database: Database;
  /** Set once the federation is built; Fedify passes this object as its context data. */
  federation: Federation<AppContext>;
  /** How commands ask for deliveries (implemented in federation/outbox/). */
  outbox: Outbox;
}
