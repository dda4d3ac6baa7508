/**
 * The profile directory (GET /api/v1/directory): discoverable accounts,
 * most recently active or newest first, without those the viewer blocks,
 * mutes or domain-blocks (or is blocked by).
 */
import { sql } from "drizzle-orm";
import type { Database } from "../connection.ts";
import { discoverableAccount, notExcludedBy } from "./discoverable.ts";

/** What the directory is asked for. */
export interface DirectoryOptions {
  /** active: by the latest post (accounts that never posted last); new: by creation. */
  order: "active" | "new";
  /** Only local accounts. */
  local: boolean;
  offset: number;
  limit: number;
}

/** One page of the directory: account ids in order. */
export async function directoryPage(
  database: Database,
  viewer: string | null,
  options: DirectoryOptions,
): Promise<string[]> {
  const order = options.order === "new"
    ? sql`a.created_at DESC, a.id DESC`
    : sql`a.last_status_at DESC NULLS LAST, a.id DESC`;
  const rows = await database.rows<{ id: string }>(
    sql`SELECT a.id::text AS id FROM accounts a
      WHERE ${discoverableAccount("a")} AND ${notExcludedBy(viewer, "a")}
        ${options.local ? sql`AND a.domain IS NULL` : sql``}
      ORDER BY ${order} OFFSET ${options.offset} LIMIT ${options.limit}`,
  );
  return rows.map((r) => r.id);
}
