/**
 * Admin::Dimension figures (POST /api/v1/admin/dimensions): the top items
 * of a breakdown over a window (languages, servers, a tag's servers…), and
 * two snapshots (space_usage, software_versions). Statuses are read by id
 * range (the window) or through an account's or a tag's index, never by a
 * scan of the table.
 */
import { type SQL, sql } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { ROOKERY_VERSION } from "../../version.ts";
import { idRange, rowsOf, type Window } from "./window.ts";

export interface DimensionItem {
  key: string;
  humanKey: string;
  value: string;
  unit?: string;
  humanValue?: string;
}

export interface DimensionDef {
  param?: "id" | "domain";
  items: (db: Executor, w: Window, limit: number, arg: string) => Promise<DimensionItem[]>;
}

const languageNames = new Intl.DisplayNames(["en"], { type: "language", fallback: "code" });

function languageName(code: string): string {
  try {
    return languageNames.of(code) ?? code;
  } catch {
    return code;
  }
}

/** Bytes as Rails' number_to_human_size shows them (1 KB = 1024 bytes). */
export function humanSize(bytes: number): string {
  const units = ["Bytes", "KB", "MB", "GB", "TB", "PB"];
  let n = bytes;
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  if (i === 0) return `${bytes} ${bytes === 1 ? "Byte" : "Bytes"}`;
  return `${Number(n.toPrecision(3))} ${units[i]}`;
}

/** `SELECT key, value` grouped and ranked, as items. */
async function ranked(
  db: Executor,
  query: SQL,
  human: (key: string) => string = (k) => k,
): Promise<DimensionItem[]> {
  const rows = rowsOf<{ key: string; value: string }>(await db.execute(query));
  return rows.map((r) => ({ key: r.key, humanKey: human(r.key), value: String(r.value) }));
}

const languagesOf = (statuses: SQL, limit: number) =>
  sql`SELECT s.language AS key, count(*)::text AS value FROM ${statuses}
      AND s.language IS NOT NULL AND s.language <> ''
      GROUP BY s.language ORDER BY count(*) DESC, s.language LIMIT ${limit}`;

const tagStatuses = (w: Window, tagId: string) =>
  sql`statuses_tags st JOIN statuses s ON s.id = st.status_id
      JOIN accounts a ON a.id = s.account_id
      WHERE st.tag_id = ${tagId}::bigint AND ${idRange(sql`st.status_id`, w)}
        AND s.deleted_at IS NULL`;

export const DIMENSIONS: Record<string, DimensionDef> = {
  languages: {
    // Languages of what local accounts posted in the period.
    items: (db, w, limit) =>
      ranked(
        db,
        languagesOf(
          sql`statuses s WHERE ${idRange(sql`s.id`, w)} AND s.local
              AND s.reblog_of_id IS NULL AND s.deleted_at IS NULL`,
          limit,
        ),
        languageName,
      ),
  },
  sources: {
    // Sign-ups of the period by the application they came through
    // (users.created_by_application_id, set by the API's registration);
    // accounts made without one (the admin command line) are "web", as in
    // Mastodon, where they come from the website's form.
    items: (db, w, limit) =>
      ranked(
        db,
        sql`SELECT coalesce(o.name, 'web') AS key, count(*)::text AS value FROM users u
            LEFT JOIN oauth_applications o ON o.id = u.created_by_application_id
            WHERE ${idRange(sql`u.id`, w)}
            GROUP BY coalesce(o.name, 'web') ORDER BY count(*) DESC, 1 LIMIT ${limit}`,
        (key) => key === "web" ? "Website" : key,
      ),
  },
  servers: {
    // The servers whose statuses reached us most in the period.
    items: (db, w, limit) =>
      ranked(
        db,
        sql`SELECT a.domain AS key, count(*)::text AS value FROM statuses s
            JOIN accounts a ON a.id = s.account_id
            WHERE ${idRange(sql`s.id`, w)} AND NOT s.local AND a.domain IS NOT NULL
            GROUP BY a.domain ORDER BY count(*) DESC, a.domain LIMIT ${limit}`,
      ),
  },
  space_usage: {
    items: async (db) => {
      const [row] = rowsOf<{ database: string; media: string }>(
        await db.execute(sql`SELECT pg_database_size(current_database())::text AS database,
          (SELECT coalesce(sum(file_size), 0) FROM media_attachments
            WHERE file_path IS NOT NULL)::text AS media`),
      );
      return [
        { key: "postgresql", humanKey: "PostgreSQL", value: row.database },
        { key: "media", humanKey: "Media storage", value: row.media },
      ].map((i) => ({ ...i, unit: "bytes", humanValue: humanSize(Number(i.value)) }));
    },
  },
  software_versions: {
    items: async (db) => {
      const [row] = rowsOf<{ server_version: string }>(await db.execute(sql`SHOW server_version`));
      return [
        { key: "rookery", humanKey: "Rookery", value: ROOKERY_VERSION },
        { key: "deno", humanKey: "Deno", value: Deno.version.deno },
        { key: "postgresql", humanKey: "PostgreSQL", value: row.server_version },
      ];
    },
  },
  tag_servers: {
    param: "id",
    items: (db, w, limit, id) =>
      ranked(
        db,
        sql`SELECT coalesce(a.domain, '') AS key, count(*)::text AS value
            FROM ${tagStatuses(w, id)}
            GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT ${limit}`,
      ).then((items) =>
        items.map((i) => i.key === "" ? { ...i, key: "local", humanKey: "This server" } : i)
      ),
  },
  tag_languages: {
    param: "id",
    items: (db, w, limit, id) => ranked(db, languagesOf(tagStatuses(w, id), limit), languageName),
  },
  instance_accounts: {
    // The domain's most-followed accounts (followers as we know them).
    param: "domain",
    items: (db, _w, limit, domain) =>
      ranked(
        db,
        sql`SELECT a.username AS key, a.followers_count::text AS value FROM accounts a
            WHERE a.domain = ${domain} AND a.deleted_at IS NULL
            ORDER BY a.followers_count DESC, a.username LIMIT ${limit}`,
      ),
  },
  instance_languages: {
    param: "domain",
    items: (db, w, limit, domain) =>
      ranked(
        db,
        languagesOf(
          sql`statuses s WHERE s.account_id IN (SELECT id FROM accounts WHERE domain = ${domain})
              AND ${idRange(sql`s.id`, w)} AND s.deleted_at IS NULL`,
          limit,
        ),
        languageName,
      ),
  },
};
