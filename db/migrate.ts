/**
 * Applies the SQL migrations that drizzle-kit generated into db/migrations/.
 *
 * All pending migrations run in one transaction under an advisory lock, so
 * several processes starting against one PostgreSQL database apply each
 * migration exactly once, and a failed migration leaves nothing half done.
 */
import { sql } from "drizzle-orm";
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
