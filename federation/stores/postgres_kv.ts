/**
 * @fedify/postgres's key–value store, completed with the `list` and `cas`
 * operations that Fedify 2 expects (the published @fedify/postgres predates
 * them; without `cas`, Fedify's delivery circuit breaker may race between
 * workers).
 */
import type { KvKey, KvStoreListEntry, KvStoreSetOptions } from "@fedify/fedify";
import { PostgresKvStore } from "@fedify/postgres";
import type postgres from "postgres";

export class RookeryPostgresKvStore extends PostgresKvStore {
  readonly #sql: postgres.Sql;

  constructor(sql: postgres.Sql) {
    super(sql);
    this.#sql = sql;
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
