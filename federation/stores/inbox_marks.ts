/**
 * Fedify's replay protection of inbound activities, read and written in the
 * queue's own statements instead of two statements of their own.
 *
 * Fedify's queued inbox handler asks its key–value store whether an
 * activity was processed already (`["_fedify", "activityIdempotence",
 * origin, activity id]`) before it calls our listener, and marks it
 * processed (for a day) after: a read and a write per activity, two of the
 * eleven round trips an inbound note cost. The queue already has a
 * statement before each handling (the one that claims the message) and one
 * after (the one that deletes it), so:
 * - the statement that claims an inbox message also reads its mark
 *   ({@link InboxMarks.markedOf}), and Fedify's read of that key during
 *   the handling is answered with it ({@link MarkedKv.get});
 * - Fedify's write of the mark is held ({@link MarkedKv.set}) and written
 *   by the statement that deletes the message, in the same transaction
 *   ({@link InboxMarks.markSql}).
 *
 * This is the same protection across processes: the activities that could
 * be copies of each other (one id, one actor) share an ordering key, so
 * they are handled one at a time, each claimed by a statement that runs
 * after the previous one's delete (and mark) was committed. The one
 * exception, the next message claimed by the delete statement itself, whose
 * snapshot cannot see the mark it writes, is compared by key in the process
 * ({@link InboxMarks.expect}). Only keys whose parts are written as Fedify
 * will ask for them (a canonical origin and activity IRI) are answered;
 * every other read and write goes to the store.
 */
import type { KvKey, KvStore, KvStoreListEntry, KvStoreSetOptions } from "@fedify/fedify";
import { getLogger } from "@logtape/logtape";
import { type SQL, sql } from "drizzle-orm";
import { textArray } from "../../db/queries/text_array.ts";

const logger = getLogger(["rookery", "federation", "queue"]);

/** Fedify's default prefix of the keys that mark activities processed. */
const MARK_PREFIX = ["_fedify", "activityIdempotence"];

/** A mark held until its message's delete: the key and how long it lasts. */
export interface HeldMark {
  key: KvKey;
  ttlMs: number;
}

/** Where the store keeps its entries: @fedify/postgres's table, or ours (sql_kv.ts). */
export type MarkTable = "fedify_kv_v2" | "federation_kv";

function isMark(key: KvKey): boolean {
  return key.length === MARK_PREFIX.length + 2 && MARK_PREFIX.every((part, i) => key[i] === part);
}

/**
 * The key Fedify's handler will read for an inbox message, when the
 * message's `baseUrl` and activity `id` are written as Fedify will parse
 * them (an origin, an IRI's href); null otherwise (the store answers).
 */
export function markKeyOf(message: unknown): KvKey | null {
  if (!message || typeof message !== "object") return null;
  const { type, baseUrl, activity } = message as {
    type?: unknown;
    baseUrl?: unknown;
    activity?: { id?: unknown };
  };
  if (type !== "inbox" || typeof baseUrl !== "string") return null;
  const id = activity && typeof activity === "object" ? activity.id : null;
  if (typeof id !== "string") return null;
  try {
    if (new URL(baseUrl).origin !== baseUrl || new URL(id).href !== id) return null;
  } catch {
    return null;
  }
  return [...MARK_PREFIX, baseUrl, id] as unknown as KvKey;
}

/** What the process knows of the marks of the inbox messages it handles (see the module comment). */
export class InboxMarks {
  readonly #table: MarkTable;
  readonly #prepare: () => Promise<void>;
  #ready: Promise<boolean> | null = null;
  #enabled = false;
  /** Marks read by the claiming statement, by key (JSON), until their message is finished. */
  readonly #known = new Map<string, boolean>();
  /** Marks Fedify wrote while handling, held for the delete statement. */
  readonly #held = new Map<string, HeldMark>();
  /** Each claimed message's key (JSON), worked out once (two URLs parsed). */
  readonly #names = new WeakMap<object, string | null>();

  /** `prepare` makes sure the table exists (@fedify/postgres makes it on first use). */
  constructor(table: MarkTable, prepare: () => Promise<void> = () => Promise.resolve()) {
    this.#table = table;
    this.#prepare = prepare;
  }

  /** Whether the queue's statements may name the table; false until {@link prepare} made sure. */
  get enabled(): boolean {
    return this.#enabled;
  }

  /** Makes the table ready once; on failure the marks stay the store's (logged). */
  prepare(): Promise<boolean> {
    this.#ready ??= this.#prepare().then(() => this.#enabled = true).catch((error) => {
      logger.warn("Activity marks stay in the key-value store: {error}", { error });
      return false;
    });
    return this.#ready;
  }

  /** The table's name: the queue's prepared statements that name it are kept apart by it. */
  get table(): MarkTable {
    return this.#table;
  }

  /** The key as the table stores it: the placeholder `mark_key` ({@link keyValues}). */
  #keySql(): SQL {
    if (this.#table === "federation_kv") return sql`${sql.placeholder("mark_key")}::text`;
    return sql`${sql.placeholder("mark_key")}::text[]`;
  }

  /** The value of `mark_key` for `key`. */
  #keyValue(key: KvKey): string {
    return this.#table === "federation_kv"
      ? JSON.stringify(key)
      : textArray(key as readonly string[]);
  }

  /** The key of the inbox message `m` (a jsonb expression), built in SQL as markKeyOf does. */
  #rowKeySql(m: SQL): SQL {
    const base = sql`(${m})->>'baseUrl'`;
    const id = sql`(${m})->'activity'->>'id'`;
    if (this.#table === "fedify_kv_v2") {
      return sql`ARRAY['_fedify', 'activityIdempotence', ${base}, ${id}]::text[]`;
    }
    return sql`('["_fedify","activityIdempotence",' || to_json(${base})::text || ','
      || to_json(${id})::text || ']')`;
  }

  #liveSql(key: SQL): SQL {
    return this.#table === "fedify_kv_v2"
      ? sql`EXISTS (SELECT 1 FROM fedify_kv_v2 k WHERE k.key = ${key}
        AND (k.ttl IS NULL OR k.created + k.ttl > CURRENT_TIMESTAMP))`
      : sql`EXISTS (SELECT 1 FROM federation_kv k WHERE k.key = ${key}
        AND (k.expires_at IS NULL OR k.expires_at > now()))`;
  }

  /** Whether the inbox message `m` (a jsonb expression) is marked processed; false for other messages. */
  markedOf(m: SQL): SQL {
    return sql`((${m})->>'type' = 'inbox' AND ${this.#liveSql(this.#rowKeySql(m))})`;
  }

  /**
   * Whether the key in the placeholder `mark_key` is marked processed (the
   * queue's statements are prepared: the text is the same for every key).
   */
  markedKey(): SQL {
    return this.#liveSql(this.#keySql());
  }

  /** The values of {@link markedKey}'s placeholder for `key`. */
  keyValues(key: KvKey): { mark_key: string } {
    return { mark_key: this.#keyValue(key) };
  }

  /**
   * The statement (a CTE body) that writes a held mark, as the store's `set`
   * would, with the placeholders `mark_key` and `mark_ttl_ms` ({@link markValues}).
   */
  markSql(): SQL {
    const ttl = sql`${sql.placeholder("mark_ttl_ms")}::float8 * interval '1 millisecond'`;
    if (this.#table === "federation_kv") {
      return sql`INSERT INTO federation_kv (key, value, expires_at)
        VALUES (${this.#keySql()}, 'true'::jsonb, now() + ${ttl})
        ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, expires_at = EXCLUDED.expires_at
        RETURNING 1`;
    }
    return sql`INSERT INTO fedify_kv_v2 (key, value, ttl)
      VALUES (${this.#keySql()}, 'true'::jsonb, ${ttl})
      ON CONFLICT (key) DO UPDATE
        SET value = EXCLUDED.value, ttl = EXCLUDED.ttl, created = CURRENT_TIMESTAMP
      RETURNING 1`;
  }

  /** The values of {@link markSql}'s placeholders for `mark`. */
  markValues({ key, ttlMs }: HeldMark): { mark_key: string; mark_ttl_ms: number } {
    return { mark_key: this.#keyValue(key), mark_ttl_ms: ttlMs };
  }

  /**
   * Records what the claiming statement read of `message`'s mark, for
   * Fedify's read during its handling. `after`: the message this worker
   * finished in that same statement, whose mark the statement could not
   * see: the same key counts as marked.
   */
  expect(message: unknown, marked: boolean, after?: HeldMark | null): void {
    const name = this.#nameOf(message);
    if (name == null) return;
    this.#known.set(name, marked || (after != null && JSON.stringify(after.key) === name));
  }

  #nameOf(message: unknown): string | null {
    if (!message || typeof message !== "object") return null;
    let name = this.#names.get(message);
    if (name === undefined) {
      const key = markKeyOf(message);
      name = key && JSON.stringify(key);
      this.#names.set(message, name);
    }
    return name;
  }

  /** The answer for `key` read by the claiming statement; undefined when there is none. */
  known(key: KvKey): boolean | undefined {
    return isMark(key) ? this.#known.get(JSON.stringify(key)) : undefined;
  }

  /** Holds Fedify's write of a mark the claim read; false when the store is to take it. */
  hold(key: KvKey, value: unknown, options?: KvStoreSetOptions): boolean {
    const name = JSON.stringify(key);
    if (value !== true || !options?.ttl || !isMark(key) || !this.#known.has(name)) return false;
    this.#held.set(name, { key, ttlMs: options.ttl.total("millisecond") });
    return true;
  }

  /** Ends what is kept for `message`: its held mark (for the delete statement), if any. */
  settle(message: unknown): HeldMark | null {
    const name = this.#nameOf(message);
    if (name == null) return null;
    const held = this.#held.get(name) ?? null;
    this.#known.delete(name);
    this.#held.delete(name);
    return held;
  }
}

/**
 * The key–value store Fedify is given, answering the reads and holding the
 * writes of the marks {@link InboxMarks} knows; everything else is the store's.
 */
export class MarkedKv implements KvStore {
  readonly #inner: KvStore;
  readonly #marks: InboxMarks;

  constructor(inner: KvStore, marks: InboxMarks) {
    this.#inner = inner;
    this.#marks = marks;
    if (inner.cas) {
      this.cas = (key, expected, value, options) => inner.cas!(key, expected, value, options);
    }
  }

  cas?: KvStore["cas"];

  async get<T = unknown>(key: KvKey): Promise<T | undefined> {
    const known = this.#marks.known(key);
    if (known !== undefined) return (known ? true : undefined) as T | undefined;
    return await this.#inner.get<T>(key);
  }

  async set(key: KvKey, value: unknown, options?: KvStoreSetOptions): Promise<void> {
    if (this.#marks.hold(key, value, options)) return;
    await this.#inner.set(key, value, options);
  }

  delete(key: KvKey): Promise<void> {
    return this.#inner.delete(key);
  }

  list(prefix?: KvKey): AsyncIterable<KvStoreListEntry> {
    return this.#inner.list(prefix);
  }
}
