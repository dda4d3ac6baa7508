/**
 * Builds the Fedify federation object: stores, queue, signing policy and every
 * dispatcher and listener. The pieces live in this folder, one file each.
 */
import { createFederation, type Federation, type KvStore, type MessageQueue } from "@fedify/fedify";
import { PostgresMessageQueue } from "@fedify/postgres";
import { RookeryPostgresKvStore } from "./stores/postgres_kv.ts";
import type { AppContext } from "../context.ts";
import { SqlKvStore } from "./stores/sql_kv.ts";
import { SqlMessageQueue } from "./stores/sql_queue.ts";
import { registerDispatchers } from "./dispatchers.ts";
import { ROOKERY_VERSION } from "../version.ts";

export interface FederationSetup {
  federation: Federation<AppContext>;
  /** Periodic clean-up of the store; run by worker processes. */
  maintain(): Promise<void>;
}

export function buildFederation(ctx: Omit<AppContext, "federation">): FederationSetup {
  const { config, database } = ctx;
  let kv: KvStore, queue: MessageQueue;
  let maintain = async () => {};
  if (database.kind === "postgres" && database.pg) {
    kv = new RookeryPostgresKvStore(database.pg);
    // Typed against Fedify 1.8; the runtime interface is the same.
    queue = new PostgresMessageQueue(database.pg) as unknown as MessageQueue;
  } else {
    const sqlKv = new SqlKvStore(database);
    kv = sqlKv;
    queue = new SqlMessageQueue(database, { releaseLeasesOnStart: true });
    maintain = () => sqlKv.purgeExpired();
  }
  const federation = createFederation<AppContext>({
    kv,
    queue,
    // The web role only enqueues; worker processes call startQueue().
    manuallyStartQueue: true,
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
