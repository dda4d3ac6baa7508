/**
 * @fedify/postgres's key–value store, completed with the `list` operation
 * that Fedify 2 expects (the published @fedify/postgres predates it).
 */
import type { KvKey, KvStoreListEntry } from "@fedify/fedify";
import { PostgresKvStore } from "@fedify/postgres";
import type postgres from "postgres";

export class RookeryPostgresKvStore extends PostgresKvStore {
  readonly #sql: postgres.Sql;

  constructor(sql: postgres.Sql) {
    super(sql);
    this.#sql = sql;
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
