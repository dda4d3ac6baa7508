/**
 * Applies the SQL migrations that drizzle-kit generated into db/migrations/.
 *
 * All pending migrations run in one transaction under an advisory lock, so
 * several processes starting against one PostgreSQL database apply each
 * migration exactly once, and a failed migration leaves nothing half done.
 * (On PGlite, one transaction too, each file sent whole: migratePglite.)
 */
import { sql } from "drizzle-orm";
import type { PGlite } from "@electric-sql/pglite";
import type { Database } from "./connection.ts";

interface Journal {
  entries: { idx: number; tag: string }[];
}

const MIGRATIONS = new URL("./migrations/", import.meta.url);
const LOCK_KEY = 7_205_211_998; // arbitrary, constant: "rookery migrations"

export async function migrate(database: Database): Promise<string[]> {
  const journal: Journal = JSON.parse(
    await Deno.readTextFile(new URL("meta/_journal.json", MIGRATIONS)),
  );
  if (database.pglite) return await migratePglite(database.pglite, journal);
  const applied: string[] = [];
  await database.db.transaction(async (tx) => {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(${LOCK_KEY})`);
    await tx.execute(sql`CREATE TABLE IF NOT EXISTS rookery_migrations (
      tag text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = new Set(
      (await database.rows<{ tag: string }>(sql`SELECT tag FROM rookery_migrations`, tx))
        .map((r) => r.tag),
    );
    for (const entry of [...journal.entries].sort((a, b) => a.idx - b.idx)) {
      if (done.has(entry.tag)) continue;
      const text = await Deno.readTextFile(new URL(`${entry.tag}.sql`, MIGRATIONS));
      for (const statement of text.split("--> statement-breakpoint")) {
        if (statement.trim()) await tx.execute(sql.raw(statement));
      }
      await tx.execute(sql`INSERT INTO rookery_migrations (tag) VALUES (${entry.tag})`);
      applied.push(entry.tag);
    }
  });
  return applied;
}

/**
 * The same on PGlite, each migration file sent whole through the simple
 * query protocol (the `--> statement-breakpoint` lines are SQL comments).
 * One query per statement through drizzle took three to four times as long,
 * and on a fresh data directory this is part of the wait for the first
 * answer. PGlite has one owner process, so no lock is needed.
 */
async function migratePglite(pglite: PGlite, journal: Journal): Promise<string[]> {
  await pglite.exec(`CREATE TABLE IF NOT EXISTS rookery_migrations (
    tag text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
  const done = new Set(
    (await pglite.query<{ tag: string }>(`SELECT tag FROM rookery_migrations`)).rows
      .map((r) => r.tag),
  );
  const pending = [...journal.entries].sort((a, b) => a.idx - b.idx)
    .filter((entry) => !done.has(entry.tag));
  if (pending.length === 0) return [];
  const texts = await Promise.all(
    pending.map((entry) => Deno.readTextFile(new URL(`${entry.tag}.sql`, MIGRATIONS))),
  );
  await pglite.transaction(async (tx) => {
    for (const [i, entry] of pending.entries()) {
      await tx.exec(texts[i]);
      await tx.query(`INSERT INTO rookery_migrations (tag) VALUES ($1)`, [entry.tag]);
    }
  });
  return pending.map((entry) => entry.tag);
}
