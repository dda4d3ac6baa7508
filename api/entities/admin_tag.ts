/**
 * Admin::Tag (Mastodon 4.x): the Tag entity's id, name, url and history,
 * with staff's flags. `trendable` is whether the tag may trend now (approved,
 * or not rejected while trends need no review), `requires_review` whether no
 * moderator has decided yet, `name` the display name when staff set one.
 */
import type { Database } from "../../db/connection.ts";
import { tagHistories } from "../../db/queries/tags.ts";
import type { AdminTagRow } from "../../actors/moderation/tags.ts";
import { localUris } from "../../model/uris.ts";

export async function serializeAdminTags(
  database: Database,
  origin: string,
  rows: readonly AdminTagRow[],
  reviewRequired: boolean,
) {
  const histories = await tagHistories(database, rows.map((r) => r.id));
  return rows.map((row) => ({
    id: row.id,
    name: row.displayName ?? row.name,
    url: localUris(origin).tag(row.name),
    history: histories.get(row.id) ?? [],
    trendable: row.review === "allowed" || (row.review === null && !reviewRequired),
    usable: row.usable,
    requires_review: row.review === null,
    listable: row.listable,
  }));
}
