/**
 * @fedify/postgres's key–value store, completed with the `list` and `cas`
 * operations that Fedify 2 expects (the published @fedify/postgres predates
 * them; without `cas`, Fedify's delivery circuit breaker may race between
 * workers).
 *
 * Expired entries are purged at most once a minute: @fedify/postgres
 * deletes them after every `set` and `delete` with a statement that scans
 * the whole table, and Fedify sets an entry (with a TTL) for every inbound
 * activity, so each delivery scanned every activity id of the last day.
 * Reads never see an expired entry either way (get, list and cas check
 * the TTL themselves).
 *
 * The table is made on first use, as @fedify/postgres does, but once per
 * process and under a lock: its `CREATE TABLE IF NOT EXISTS` from two
 * connections at once (two processes starting on a fresh database, or one
 * process's concurrent first deliveries) collides in PostgreSQL's catalog
 * ("duplicate key value violates unique constraint pg_type_typname_nsp_index").
 */
import type { KvKey, KvStoreListEntry, KvStoreSetOptions } from "@fedify/fedify";
import { PostgresKvStore } from "@fedify/postgres";
import type postgres from "postgres";

/** How often expired entries are deleted, at most. */
export const KV_EXPIRY_INTERVAL_MS = 60_000;

/** The advisory lock that serialises making the table across processes (any fixed number). */
const CREATE_LOCK = 0x6b76_7632; // "kvv2"

export class RookeryPostgresKvStore extends PostgresKvStore {
  readonly #sql: postgres.Sql;
  #expiredAt = 0;
  #initializing: Promise<void> | null = null;

  constructor(sql: postgres.Sql) {
    super(sql);
    this.#sql = sql;
  }

  /**
   * Makes the table (once per process, under a transaction-scoped advisory
   * lock), then lets @fedify/postgres finish its own set-up, whose
   * `IF NOT EXISTS` then finds the table. A failure is not remembered, so
   * the next use tries again.
   */
  override initialize(): Promise<void> {
    this.#initializing ??= this.#createTable().then(() => super.initialize()).catch((error) => {
      this.#initializing = null;
      throw error;
    });
    return this.#initializing;
  }

  async #createTable(): Promise<void> {
    await this.#sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${CREATE_LOCK})`;
      await tx`CREATE UNLOGGED TABLE IF NOT EXISTS fedify_kv_v2 (
        key text[] PRIMARY KEY,
        value jsonb NOT NULL,
        created timestamp with time zone DEFAULT CURRENT_TIMESTAMP,
        ttl interval
      )`;
    });
  }

  /** As @fedify/postgres's `set`, with the purge of expired entries throttled. */
  override async set(key: KvKey, value: unknown, options?: KvStoreSetOptions): Promise<void> {
    await this.initialize();
    const ttl = options?.ttl == null ? null : options.ttl.toString();
    await this.#sql`
      INSERT INTO fedify_kv_v2 (key, value, ttl)
      VALUES (${[...key]}::text[], ${JSON.stringify(value ?? null)}::jsonb, ${ttl})
      ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, ttl = EXCLUDED.ttl`;
    await this.#expireNowAndThen();
  }

  /** As @fedify/postgres's `delete`, with the purge of expired entries throttled. */
  override async delete(key: KvKey): Promise<void> {
    await this.initialize();
    await this.#sql`DELETE FROM fedify_kv_v2 WHERE key = ${[...key]}::text[]`;
    await this.#expireNowAndThen();
  }

  async #expireNowAndThen(): Promise<void> {
    const now = Date.now();
    if (now - this.#expiredAt < KV_EXPIRY_INTERVAL_MS) return;
    this.#expiredAt = now;
    await this.#sql`DELETE FROM fedify_kv_v2
      WHERE ttl IS NOT NULL AND created + ttl < CURRENT_TIMESTAMP`;
  }

  async cas(
    key: KvKey,
    expectedValue: unknown,
    newValue: unknown,
    options?: KvStoreSetOptions,
  ): Promise<boolean> {
    await this.initialize();
    const k = [...key];
    const value = JSON.stringify(newValue ?? null);
    const ttl = options?.ttl ? options.ttl.toString() : null;
    const rows = expectedValue === undefined
      // Absent, or present but expired: only then does the insert win.
      ? await this.#sql`
        INSERT INTO fedify_kv_v2 (key, value, ttl) VALUES (${k}::text[], ${value}::jsonb, ${ttl})
        ON CONFLICT (key) DO UPDATE
          SET value = EXCLUDED.value, ttl = EXCLUDED.ttl, created = CURRENT_TIMESTAMP
          WHERE fedify_kv_v2.ttl IS NOT NULL
            AND fedify_kv_v2.created + fedify_kv_v2.ttl <= CURRENT_TIMESTAMP
        RETURNING key`
      : await this.#sql`
        UPDATE fedify_kv_v2
          SET value = ${value}::jsonb, ttl = ${ttl}, created = CURRENT_TIMESTAMP
        WHERE key = ${k}::text[] AND value = ${JSON.stringify(expectedValue)}::jsonb
          AND (ttl IS NULL OR created + ttl > CURRENT_TIMESTAMP)
        RETURNING key`;
    return rows.length > 0;
  }

  async *list(prefix?: KvKey): AsyncIterable<KvStoreListEntry> {
    await this.initialize();
    const p = [...(prefix ?? [])];
    const rows = p.length
      ? await this.#sql<{ key: string[]; value: unknown }[]>`
        SELECT key, value FROM fedify_kv_v2
        WHERE key[1:${p.length}] = ${p}::text[]
          AND (ttl IS NULL OR created + ttl > CURRENT_TIMESTAMP)
        ORDER BY key`
      : await this.#sql<{ key: string[]; value: unknown }[]>`
        SELECT key, value FROM fedify_kv_v2
        WHERE ttl IS NULL OR created + ttl > CURRENT_TIMESTAMP
        ORDER BY key`;
    for (const row of rows) yield { key: row.key as unknown as KvKey, value: row.value };
  }
}
