/**
 * The per-process cache of what every viewer sees alike in a Status or an
 * Account: the status row and its media, mentions, tags, emoji, poll,
 * application and card; the Account entity. It also keeps the live access
 * tokens that read requests present (api/middleware/auth.ts), and each
 * account's compiled filters (status_filters.ts). Timelines show the same
 * statuses and authors over and over, and loading them was most of a
 * timeline request's database work. What differs per viewer (favourited,
 * reblogged, bookmarked, pins, muted threads, poll votes, quote visibility)
 * is always read fresh (status_hydration.ts).
 *
 * Invalidation: triggers on every table those entities are built from
 * (migrations 0005, 0008 and 0013) send the changed entity's key on the
 * `rookery_entities` channel, and PostgreSQL delivers it to every listening process at commit.
 * This module listens and evicts. Three races are handled:
 * - A load that read the old row, finishing after the invalidation arrived:
 *   entries are stored only if no invalidation for their key (or for all)
 *   arrived since the load began ({@link EntityCache.begin}).
 * - A read right after this process's own write, before the notification
 *   came back (PostgreSQL only; PGlite delivers before the commit returns):
 *   writes mark the cache dirty ({@link EntityCache.wrote}) and the next
 *   read first sends a marker notification and waits for it. Notifications
 *   arrive in commit order, so everything committed before is then applied.
 * - A lost listening connection: postgres.js reconnects and listens again;
 *   the cache is emptied then, since notifications may have been missed.
 * Writes in other processes are seen when their notification arrives, a
 * few milliseconds later (as with Mastodon's caches).
 */
import type { Database } from "../../db/connection.ts";
import type { WriteMarks } from "../../db/write_marks.ts";
import { type ChannelListener, ENTITY_CHANNEL } from "../../db/channel_listener.ts";
import type { Account } from "./account.ts";
import type { StatusBundle } from "./status_content.ts";
import type { StatusRow } from "./status.ts";
import type { AuthToken, AuthUser } from "../auth_types.ts";
import type { CompiledFilter } from "../../actors/filters/match.ts";

const CHANNEL = ENTITY_CHANNEL;
/** Entries kept per kind; the oldest go first beyond this. */
const MAX_ENTRIES = 10_000;
/** Invalidations remembered for loads in flight. */
const RECENT = 4_096;
/** How long a read waits for its own writes' notifications before giving up on the cache. */
const SYNC_TIMEOUT_MS = 2_000;

/** A bounded map that forgets its oldest entries first. */
class Bounded<V> {
  readonly #map = new Map<string, V>();
  get(key: string): V | undefined {
    return this.#map.get(key);
  }
  set(key: string, value: V): void {
    this.#map.delete(key);
    this.#map.set(key, value);
    if (this.#map.size > MAX_ENTRIES) {
      this.#map.delete(this.#map.keys().next().value!);
    }
  }
  delete(key: string): void {
    this.#map.delete(key);
  }
  clear(): void {
    this.#map.clear();
  }
  get size(): number {
    return this.#map.size;
  }
}

/** A live access token as the auth middleware found it, with its user. */
export interface CachedToken {
  tokenId: string;
  /** The user's account (tokens of apps have none). */
  accountId: string | null;
  found: { token: AuthToken; user: AuthUser | null };
}

/**
 * Tokens by the hash of their secret, with the reverse maps invalidation
 * needs: a token row's notification names its id, a user's names the
 * account. Bounded like the other kinds; evictions keep the maps in step.
 */
class TokenCache {
  readonly #byHash = new Map<string, CachedToken>();
  readonly #hashById = new Map<string, string>();
  readonly #hashesByAccount = new Map<string, Set<string>>();

  get(hash: string): CachedToken | undefined {
    return this.#byHash.get(hash);
  }

  set(hash: string, entry: CachedToken): void {
    this.delete(hash);
    this.#byHash.set(hash, entry);
    this.#hashById.set(entry.tokenId, hash);
    if (entry.accountId) {
      let hashes = this.#hashesByAccount.get(entry.accountId);
      if (!hashes) this.#hashesByAccount.set(entry.accountId, hashes = new Set());
      hashes.add(hash);
    }
    if (this.#byHash.size > MAX_ENTRIES) this.delete(this.#byHash.keys().next().value!);
  }

  delete(hash: string): void {
    const entry = this.#byHash.get(hash);
    if (!entry) return;
    this.#byHash.delete(hash);
    this.#hashById.delete(entry.tokenId);
    if (entry.accountId) {
      const hashes = this.#hashesByAccount.get(entry.accountId);
      hashes?.delete(hash);
      if (hashes?.size === 0) this.#hashesByAccount.delete(entry.accountId);
    }
  }

  /** Forgets the token with this id. */
  deleteToken(tokenId: string): void {
    const hash = this.#hashById.get(tokenId);
    if (hash) this.delete(hash);
  }

  /** Forgets every token of this account's user. */
  deleteAccount(accountId: string): void {
    for (const hash of [...this.#hashesByAccount.get(accountId) ?? []]) this.delete(hash);
  }

  clear(): void {
    this.#byHash.clear();
    this.#hashById.clear();
    this.#hashesByAccount.clear();
  }

  get size(): number {
    return this.#byHash.size;
  }
}

/** A statuses row and its version: the row's `xmin`, which every change of the row changes. */
export interface VersionedRow {
  row: StatusRow;
  version: string;
}

export class EntityCache {
  readonly statuses = new Bounded<StatusBundle>();
  /**
   * The rows timeline pages show, each with its version (status_page.ts):
   * a page names each row's current version and takes the row from here
   * only when it is the same, so these are never served stale, whatever
   * the notifications; the entity channel only frees them early.
   */
  readonly rows = new Bounded<VersionedRow>();
  readonly accounts = new Bounded<Account>();
  readonly tokens = new TokenCache();
  /** Each account's filters, compiled (status_filters.ts); key f<account id> (migration 0013). */
  readonly filters = new Bounded<CompiledFilter[]>();
  /** Which cached statuses show each preview card (cards are shared). */
  readonly #cardUsers = new Map<string, Set<string>>();
  /** Count of invalidations received; loads compare against it. */
  #epoch = 0;
  /** The last {@link RECENT} invalidated keys, oldest first, with their epochs. */
  #recent: { epoch: number; key: string }[] = [];
  #listening = false;
  #dirty = false;
  #syncs = 0;
  #pending: Promise<void> | null = null;
  /** Tells this process's markers from other processes'. */
  readonly #nonce = crypto.randomUUID();
  readonly #waiting = new Map<string, () => void>();
  readonly #notify: ((payload: string) => Promise<void>) | null;

  constructor(notify: ((payload: string) => Promise<void>) | null) {
    this.#notify = notify;
  }

  /** Whether the cache may be used: false until listening (and after a failure to). */
  get enabled(): boolean {
    return this.#listening;
  }

  /** Called once listening (again): anything cached before may have been missed. */
  listening(): void {
    this.clear();
    this.#listening = true;
  }

  /** Empties every cache. */
  clear(): void {
    this.statuses.clear();
    this.rows.clear();
    this.accounts.clear();
    this.tokens.clear();
    this.filters.clear();
    this.#cardUsers.clear();
    this.#record("*");
  }

  /** Applies one notification payload. */
  received(announced: string): void {
    if (announced.startsWith("sync:")) {
      this.#waiting.get(announced)?.();
      return;
    }
    // Counter-only changes of an account (migration 0058): an Account shows its counts.
    const payload = announced[0] === "n" ? `a${announced.slice(1)}` : announced;
    this.#record(payload);
    if (payload === "*") {
      this.statuses.clear();
      this.rows.clear();
      this.accounts.clear();
      this.tokens.clear();
      this.filters.clear();
      this.#cardUsers.clear();
      return;
    }
    const id = payload.slice(1);
    switch (payload[0]) {
      case "s":
        this.statuses.delete(id);
        this.rows.delete(id);
        break;
      case "a":
        this.accounts.delete(id);
        this.tokens.deleteAccount(id);
        break;
      case "t":
        this.tokens.deleteToken(id);
        break;
      case "f":
        this.filters.delete(id);
        break;
      case "c":
        for (const statusId of this.#cardUsers.get(id) ?? []) this.statuses.delete(statusId);
        this.#cardUsers.delete(id);
        break;
    }
  }

  #record(key: string): void {
    this.#epoch++;
    this.#recent.push({ epoch: this.#epoch, key });
    if (this.#recent.length > RECENT * 2) this.#recent = this.#recent.slice(-RECENT);
  }

  /** Marks that this process wrote: the next read first waits for its notifications. */
  wrote(): void {
    this.#dirty = true;
  }

  /**
   * Before a read: waits until the notifications of this process's own
   * committed writes have arrived (see the module comment). Returns the
   * epoch to pass to {@link store} for what the read then loads.
   */
  async begin(): Promise<number> {
    // Readers arriving while a wait is under way share it; a write marked
    // after that wait began needs another (at most one more per read).
    for (let round = 0; round < 2 && (this.#dirty || this.#pending); round++) {
      if (!this.#pending) {
        this.#dirty = false;
        this.#pending = this.#sync().finally(() => this.#pending = null);
      }
      await this.#pending;
    }
    return this.#epoch;
  }

  async #sync(): Promise<void> {
    if (!this.#notify || !this.#listening) return;
    const marker = `sync:${this.#nonce}:${++this.#syncs}`;
    const arrived = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), SYNC_TIMEOUT_MS);
      this.#waiting.set(marker, () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    try {
      await this.#notify(marker);
      if (!await arrived) this.clear();
    } catch {
      this.clear();
    } finally {
      this.#waiting.delete(marker);
    }
  }

  /** Whether entries loaded since `epoch` under these keys are still current. */
  fresh(epoch: number, key: string): boolean {
    if (!this.#listening) return false;
    if (epoch === this.#epoch) return true;
    const recent = this.#recent;
    if (recent.length === 0 || recent[0].epoch > epoch + 1) return false;
    for (let i = recent.length - 1; i >= 0 && recent[i].epoch > epoch; i--) {
      const k = recent[i].key;
      if (k === key || k === "*") return false;
    }
    return true;
  }

  /** Stores a status bundle loaded since `epoch`, unless it changed meanwhile. */
  storeStatus(epoch: number, bundle: StatusBundle): void {
    if (!this.fresh(epoch, `s${bundle.row.id}`)) return;
    if (bundle.cardId) {
      if (!this.fresh(epoch, `c${bundle.cardId}`)) return;
      let users = this.#cardUsers.get(bundle.cardId);
      if (!users) this.#cardUsers.set(bundle.cardId, users = new Set());
      users.add(bundle.row.id);
    }
    this.statuses.set(bundle.row.id, bundle);
  }

  /** Stores a live token looked up since `epoch`, unless it or its user changed meanwhile. */
  storeToken(epoch: number, hash: string, entry: CachedToken): void {
    if (!this.fresh(epoch, `t${entry.tokenId}`)) return;
    if (entry.accountId && !this.fresh(epoch, `a${entry.accountId}`)) return;
    this.tokens.set(hash, entry);
  }

  /** Stores an account's compiled filters loaded since `epoch`, unless they changed meanwhile. */
  storeFilters(epoch: number, accountId: string, filters: CompiledFilter[]): void {
    if (this.fresh(epoch, `f${accountId}`)) this.filters.set(accountId, filters);
  }

  /** Stores an Account entity loaded since `epoch`, unless it changed meanwhile. */
  storeAccount(epoch: number, account: Account): void {
    // A moved account shows its new account inside; keyed by one id only,
    // it could go stale, so it is not kept.
    if (account.moved) return;
    if (this.fresh(epoch, `a${account.id}`)) this.accounts.set(account.id, account);
  }
}

/**
 * The process's cache (process/core.ts opens one), listening for
 * invalidations on the core's listener and told of this process's writes.
 * Until the listen is confirmed it is disabled and every read loads from the
 * database; `listening` resolves then (or once listening failed).
 */
export function openEntityCache(
  database: Database,
  listener: ChannelListener,
  writes: WriteMarks,
): { cache: EntityCache; listening: Promise<void> } {
  const pg = database.pg;
  // PGlite runs listeners before the committing query returns: no markers needed.
  const cache = new EntityCache(
    pg ? async (payload) => void await pg.notify(CHANNEL, payload) : null,
  );
  const listening = listener.listen(
    CHANNEL,
    (payload) => cache.received(payload),
    () => cache.listening(),
  );
  writes.onWrite(() => cache.wrote());
  // Not listening, the cache stays disabled: reads go to the database.
  return { cache, listening: listening.then(() => {}, () => {}) };
}
