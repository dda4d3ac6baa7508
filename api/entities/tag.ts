/**
 * The Tag entity (Mastodon 4.5), serialized in batches: one grouped history
 * query, one follow query and one feature query per page, never per tag.
 *
 * Decisions:
 * - `url` is `{origin}/tags/{name}`, as the hashtag links in posts.
 * - `name` is the tag as first seen (Mastodon's display name).
 * - Viewer flags appear only for a signed-in viewer, as Mastodon's
 *   serializer (`if: :current_user?`). The featured flag is sent under both
 *   names: `featured` is what the API spec (authoritative here) and the tags
 *   method page's examples call it, `featuring` what the Tag entity page and
 *   Mastodon's serializer send, which is what Mastodon's own clients read.
 *   The two always agree, and an extra boolean harms no client.
 * - `id` can be left out (`omitId`): the spec lists the feature and unfeature
 *   responses without it.
 */
import { and, eq, inArray } from "drizzle-orm";
import type { Database } from "../../db/connection.ts";
import { featuredTags, tagFollows } from "../../db/schema/mod.ts";
import { tagHistories, type TagHistoryDay } from "../../db/queries/tags.ts";
import { localUris } from "../../model/uris.ts";

/** The Tag entity. */
export interface TagJson {
  id?: string;
  name: string;
  url: string;
  history: TagHistoryDay[];
  following?: boolean;
  featured?: boolean;
  featuring?: boolean;
}

/** What the serializer needs of a tag. */
export interface TagInput {
  id: string;
  name: string;
}

/** Options of {@link serializeTags}. */
export interface SerializeTagOptions {
  /** Leave out `id` (feature and unfeature responses). */
  omitId?: boolean;
}

/** Serializes tags in order, with the viewer's flags when there is a viewer. */
export async function serializeTags(
  database: Database,
  origin: string,
  rows: readonly TagInput[],
  viewer: { accountId: string } | null,
  options: SerializeTagOptions = {},
): Promise<TagJson[]> {
  if (rows.length === 0) return [];
  const ids = [...new Set(rows.map((r) => r.id))];
  const { db } = database;
  const [histories, followed, featured] = await Promise.all([
    tagHistories(database, ids),
    viewer
      ? db.select({ tagId: tagFollows.tagId }).from(tagFollows)
        .where(and(eq(tagFollows.accountId, viewer.accountId), inArray(tagFollows.tagId, ids)))
      : Promise.resolve([]),
    viewer
      ? db.select({ tagId: featuredTags.tagId }).from(featuredTags)
        .where(and(eq(featuredTags.accountId, viewer.accountId), inArray(featuredTags.tagId, ids)))
      : Promise.resolve([]),
  ]);
  const following = new Set(followed.map((r) => r.tagId));
  const featuring = new Set(featured.map((r) => r.tagId));
  return rows.map((row) => {
    const json: TagJson = {
      ...(options.omitId ? {} : { id: row.id }),
      name: row.name,
      url: localUris(origin).tag(row.name),
      history: histories.get(row.id) ?? [],
    };
    if (viewer) {
      json.following = following.has(row.id);
      json.featured = featuring.has(row.id);
      json.featuring = json.featured;
    }
    return json;
  });
}

/** Serializes one tag. */
export async function serializeTag(
  database: Database,
  origin: string,
  row: TagInput,
  viewer: { accountId: string } | null,
  options: SerializeTagOptions = {},
): Promise<TagJson> {
  const [json] = await serializeTags(database, origin, [row], viewer, options);
  return json;
}
