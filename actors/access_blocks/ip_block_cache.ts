/**
 * Every process keeps the IP blocks in memory: `no_access` is asked on every
 * request, and a query per request for a list that changes a few times a
 * year would be waste (Mastodon caches IpBlock.blocked? as well).
 *
 * Invalidation: a trigger on ip_blocks (migration 0024) notifies the
 * `rookery_ip_blocks` channel at commit, and every listening process drops
 * its copy and reloads on the next request. A process that changes the
 * blocks itself drops its copy at once (PostgreSQL's notification may come
 * a few milliseconds after the commit returns). While not listening (not
 * yet, or the listen failed) the copy is kept for {@link UNHEARD_TTL_MS}
 * at most. A reconnected listen drops the copy too: notifications may have
 * been missed meanwhile. Expiry needs no notification: each entry keeps its
 * `expires_at` and is ignored past it.
 */
import { getLogger } from "@logtape/logtape";
import { gt, isNull, or } from "drizzle-orm";
import type { Database } from "../../db/connection.ts";
import type { ChannelListener } from "../../db/channel_listener.ts";
import { ipBlocks, type IpBlockSeverity } from "../../db/schema/mod.ts";
import { type Network, networkContains, parseAddress, parseNetwork } from "./cidr.ts";

const logger = getLogger(["rookery", "access-blocks"]);

const CHANNEL = "rookery_ip_blocks";
/** How long a copy may live without invalidation heard. */
export const UNHEARD_TTL_MS = 30_000;

interface Entry {
  network: Network;
  severity: IpBlockSeverity;
  expiresAt: number | null;
}

/**
 * This process's copy of the live blocks (process/core.ts holds one): see
 * the top of this file for when it is dropped.
 */
export class IpBlockCache {
  #entries: Entry[] | null = null;
  #loadedAt = 0;
  #loading: Promise<Entry[]> | null = null;
  /** Bumped by every invalidation: a load begun before one is not kept. */
  #generation = 0;
  #listening = false;

  constructor(readonly database: Database) {}

  /** Starts listening for changes (the core does it as it opens). */
  listen(listener: ChannelListener): void {
    listener.listen(CHANNEL, () => this.invalidate(), () => this.listening()).catch((error) =>
      logger.warn("Could not listen for IP block changes: {error}", { error })
    );
  }

  invalidate(): void {
    this.#generation++;
    this.#entries = null;
    this.#loading = null;
  }

  listening(): void {
    this.#listening = true;
    this.invalidate();
  }

  async entries(): Promise<Entry[]> {
    const fresh = this.#entries &&
      (this.#listening || Date.now() - this.#loadedAt < UNHEARD_TTL_MS);
    if (fresh) return this.#entries!;
    if (this.#loading) return await this.#loading;
    const generation = this.#generation;
    const loading = this.#load();
    this.#loading = loading;
    try {
      const entries = await loading;
      if (generation === this.#generation) {
        this.#entries = entries;
        this.#loadedAt = Date.now();
      }
      return entries;
    } finally {
      if (this.#loading === loading) this.#loading = null;
    }
  }

  async #load(): Promise<Entry[]> {
    const rows = await this.database.db.select({
      ip: ipBlocks.ip,
      severity: ipBlocks.severity,
      expiresAt: ipBlocks.expiresAt,
    }).from(ipBlocks).where(or(isNull(ipBlocks.expiresAt), gt(ipBlocks.expiresAt, new Date())));
    const entries: Entry[] = [];
    for (const row of rows) {
      const network = parseNetwork(row.ip);
      if (network) {
        entries.push({
          network,
          severity: row.severity,
          expiresAt: row.expiresAt?.getTime() ?? null,
        });
      }
    }
    return entries;
  }
}

/** What the lookups below read: the process core's copy. */
export interface IpBlocksHolder {
  readonly core: { readonly ipBlocks: IpBlockCache };
}

/** Drops this process's copy (after this process changed the blocks). */
export function invalidateIpBlocks(app: IpBlocksHolder): void {
  app.core.ipBlocks.invalidate();
}

/**
 * The severities of the live blocks covering `ip`, strongest first
 * (no_access, sign_up_block, sign_up_requires_approval). An address that
 * cannot be parsed ("unknown") matches nothing.
 */
export async function ipBlockSeverities(
  app: IpBlocksHolder,
  ip: string,
  now = Date.now(),
): Promise<Set<IpBlockSeverity>> {
  const found = new Set<IpBlockSeverity>();
  const address = parseAddress(ip);
  if (!address) return found;
  for (const entry of await app.core.ipBlocks.entries()) {
    if (entry.expiresAt !== null && entry.expiresAt <= now) continue;
    if (networkContains(entry.network, address)) found.add(entry.severity);
  }
  return found;
}

/** 127.0.0.0/8 and ::1: the machine itself. */
function isLoopback(address: { version: 4 | 6; address: bigint }): boolean {
  return address.version === 4 ? address.address >> 24n === 127n : address.address === 1n;
}

/**
 * Whether `ip` may not connect at all (a live no_access block covers it).
 * The machine itself never is, whatever the blocks say: Mastodon safelists
 * localhost before its blocklist, so an operator cannot lock themselves out.
 */
export async function isNoAccess(app: IpBlocksHolder, ip: string): Promise<boolean> {
  const address = parseAddress(ip);
  if (!address || isLoopback(address)) return false;
  return (await ipBlockSeverities(app, ip)).has("no_access");
}
