/**
 * A Fedify key–value store kept in our own database table (federation_kv).
 *
 * Used on PGlite, where @fedify/postgres cannot connect; it is durable
 * because PGlite writes through to the data directory. Keys are stored as
 * their JSON text so that prefix listing is a simple range condition.
 */
import type { KvKey, KvStore, KvStoreListEntry, KvStoreSetOptions } from "@fedify/fedify";
import { sql } from "drizzle-orm";
import type { Database } from "../../db/connection.ts";

function encode(key: KvKey): string {
  return JSON.stringify(key);
}

function expiry(options?: KvStoreSetOptions): Date | null {
  if (!options?.ttl) return null;
  return new Date(Date.now() + options.ttl.total("millisecond"));
}

export class SqlKvStore implements KvStore {
  constructor(private readonly database: Database) {}

  async get<T = unknown>(key: KvKey): Promise<T | undefined> {
    const rows = await this.database.rows<{ value: T }>(sql`
      SELECT value FROM federation_kv
      WHERE key = ${encode(key)} AND (expires_at IS NULL OR expires_at > now())`);
    return rows.length ? rows[0].value : undefined;
  }

  async set(key: KvKey, value: unknown, options?: KvStoreSetOptions): Promise<void> {
    await this.database.rows(sql`
      INSERT INTO federation_kv (key, value, expires_at)
      VALUES (${encode(key)}, ${JSON.stringify(value ?? null)}::jsonb, ${expiry(options)})
      ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, expires_at = EXCLUDED.expires_at`);
  }

  async delete(key: KvKey): Promise<void> {
    await this.database.rows(sql`DELETE FROM federation_kv WHERE key = ${encode(key)}`);
  }

  async cas(
    key: KvKey,
    expectedValue: unknown,
    newValue: unknown,
    options?: KvStoreSetOptions,
  ): Promise<boolean> {
    const k = encode(key);
    const value = JSON.stringify(newValue ?? null);
    if (expectedValue === undefined) {
      // Expired rows count as absent: replace them, keep live ones.
      const rows = await this.database.rows(sql`
        INSERT INTO federation_kv (key, value, expires_at)
        VALUES (${k}, ${value}::jsonb, ${expiry(options)})
        ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, expires_at = EXCLUDED.expires_at
          WHERE federation_kv.expires_at IS NOT NULL AND federation_kv.expires_at <= now()
        RETURNING key`);
      return rows.length > 0;
    }
    const rows = await this.database.rows(sql`
      UPDATE federation_kv SET value = ${value}::jsonb, expires_at = ${expiry(options)}
      WHERE key = ${k} AND value = ${JSON.stringify(expectedValue)}::jsonb
        AND (expires_at IS NULL OR expires_at > now())
      RETURNING key`);
    return rows.length > 0;
  }

  async *list(prefix?: KvKey): AsyncIterable<KvStoreListEntry> {
    const where = prefix && prefix.length
      ? sql`(key = ${encode(prefix)} OR starts_with(key, ${encode(prefix).slice(0, -1) + ","}))`
      : sql`true`;
    const rows = await this.database.rows<{ key: string; value: unknown }>(sql`
      SELECT key, value FROM federation_kv
      WHERE ${where} AND (expires_at IS NULL OR expires_at > now())
      ORDER BY key`);
    for (const row of rows) yield { key: JSON.parse(row.key) as KvKey, value: row.value };
  }

  /** Drops expired entries; called periodically by the worker. */
  async purgeExpired(): Promise<void> {
    await this.database.rows(sql`DELETE FROM federation_kv WHERE expires_at <= now()`);
  }
}
