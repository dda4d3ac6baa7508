/**
 * The Announcement entity: `{id, content, starts_at, ends_at, all_day,
 * published_at, updated_at, read, mentions, statuses, tags, emojis,
 * reactions}`, for a list of announcements in one batch (one query per kind:
 * dismissals, reactions, mentioned accounts, linked statuses, emoji).
 *
 * - `mentions` are `{id, username, url, acct}`, `statuses` `{id, url}` and
 *   `tags` `{name, url}`, as Mastodon's AnnouncementSerializer; a mentioned
 *   account or linked status that is gone since is left out.
 * - `reactions` are `{name, count, me}` in the order they were first used,
 *   plus `url` and `static_url` for a custom emoji (absent for Unicode ones).
 */
import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import { PUBLIC_VISIBILITIES } from "../../model/visibility.ts";
import type { AppContext } from "../../context.ts";
import type { Executor } from "../../db/connection.ts";
import {
  accounts,
  announcementMutes,
  announcementReactions,
  customEmojis,
  statuses,
} from "../../db/schema/mod.ts";
import type { AnnouncementRow } from "../../actors/announcements/manage.ts";
import { scanShortcodes } from "../../actors/emoji/shortcodes.ts";
import { type CustomEmoji, customEmojiEntity } from "./custom_emoji.ts";
import { localUris } from "../../model/uris.ts";

export interface AnnouncementReactionJson {
  name: string;
  count: number;
  me: boolean;
  url?: string;
  static_url?: string;
}

export interface AnnouncementJson {
  id: string;
  content: string;
  starts_at: string | null;
  ends_at: string | null;
  all_day: boolean;
  published_at: string | null;
  updated_at: string;
  read: boolean;
  mentions: { id: string; username: string; url: string; acct: string }[];
  statuses: { id: string; url: string }[];
  tags: { name: string; url: string }[];
  emojis: CustomEmoji[];
  reactions: AnnouncementReactionJson[];
}

/** The rows the announcements of one page link to, read in one query per kind. */
interface AnnouncementData {
  readIds: Set<string>;
  reactions: Awaited<ReturnType<typeof reactionCounts>>;
  accountsById: Map<
    string,
    { id: string; username: string; domain: string | null; url: string | null; uri: string }
  >;
  statusesById: Map<string, { id: string; url: string | null; uri: string }>;
  emojiById: Map<string, typeof customEmojis.$inferSelect>;
  emojiByCode: Map<string, typeof customEmojis.$inferSelect>;
}

/** The reactions to `ids` grouped by name, in the order first used, with whether `viewer` reacted. */
function reactionCounts(db: Executor, ids: string[], viewer: string) {
  return db.select({
    announcementId: announcementReactions.announcementId,
    name: announcementReactions.name,
    customEmojiId: announcementReactions.customEmojiId,
    count: sql<number>`count(*)`.mapWith(Number),
    me: sql<boolean>`bool_or(${announcementReactions.accountId} = ${viewer}::bigint)`,
  }).from(announcementReactions)
    .where(inArray(announcementReactions.announcementId, ids))
    .groupBy(
      announcementReactions.announcementId,
      announcementReactions.name,
      announcementReactions.customEmojiId,
    )
    .orderBy(sql`min(${announcementReactions.createdAt})`, sql`min(${announcementReactions.id})`);
}

/** Local enabled emoji named in the texts, and those reacted with (by row id). */
function announcementEmojis(
  db: Executor,
  ids: string[],
  shortcodes: string[],
) {
  const reacted = sql`${customEmojis.id} IN (
    SELECT custom_emoji_id FROM announcement_reactions
    WHERE announcement_id IN (${sql.join(ids.map((id) => sql`${id}::bigint`), sql`, `)}))`;
  return db.select().from(customEmojis).where(and(
    isNull(customEmojis.domain),
    sql`${customEmojis.disabled} = false`,
    shortcodes.length
      ? sql`(${inArray(customEmojis.shortcode, shortcodes)} OR ${reacted})`
      : reacted,
  ));
}

async function loadAnnouncementData(
  ctx: AppContext,
  rows: readonly AnnouncementRow[],
  viewer: string,
): Promise<AnnouncementData> {
  const { db } = ctx.database;
  const ids = rows.map((r) => r.id);
  const accountIds = [...new Set(rows.flatMap((r) => r.mentionAccountIds))];
  const statusIds = [...new Set(rows.flatMap((r) => r.statusIds))];
  const [read, reactions, mentioned, linked, emojiRows] = await Promise.all([
    db.select({ id: announcementMutes.announcementId }).from(announcementMutes)
      .where(and(
        inArray(announcementMutes.announcementId, ids),
        sql`${announcementMutes.accountId} = ${viewer}::bigint`,
      )),
    reactionCounts(db, ids, viewer),
    accountIds.length === 0 ? [] : db.select({
      id: accounts.id,
      username: accounts.username,
      domain: accounts.domain,
      url: accounts.url,
      uri: accounts.uri,
    }).from(accounts).where(and(inArray(accounts.id, accountIds), isNull(accounts.deletedAt))),
    statusIds.length === 0
      ? []
      : db.select({ id: statuses.id, url: statuses.url, uri: statuses.uri }).from(statuses)
        .where(and(
          inArray(statuses.id, statusIds),
          isNull(statuses.deletedAt),
          inArray(statuses.visibility, [...PUBLIC_VISIBILITIES]),
          eq(statuses.pendingApproval, false),
        )),
    announcementEmojis(db, ids, scanShortcodes(rows.map((r) => r.text))),
  ]);
  return {
    readIds: new Set(read.map((r) => r.id)),
    reactions,
    accountsById: new Map(mentioned.map((a) => [a.id, a])),
    statusesById: new Map(linked.map((s) => [s.id, s])),
    emojiById: new Map(emojiRows.map((e) => [e.id, e])),
    emojiByCode: new Map(emojiRows.map((e) => [e.shortcode, e])),
  };
}

/** One announcement's reactions, a custom emoji's with its pictures (left out when it is gone). */
function reactionsOf(
  origin: string,
  row: AnnouncementRow,
  data: AnnouncementData,
): AnnouncementReactionJson[] {
  return data.reactions.filter((r) => r.announcementId === row.id).flatMap((r) => {
    const out: AnnouncementReactionJson = { name: r.name, count: r.count, me: r.me };
    if (r.customEmojiId == null) return [out];
    const e = data.emojiById.get(r.customEmojiId);
    const entity = e ? customEmojiEntity(origin, e) : null;
    if (!entity) return [];
    return [{ ...out, url: entity.url, static_url: entity.static_url }];
  });
}

function announcementJson(
  origin: string,
  row: AnnouncementRow,
  data: AnnouncementData,
): AnnouncementJson {
  const codes = new Set(scanShortcodes([row.text]));
  return {
    id: row.id,
    content: row.content,
    starts_at: row.startsAt?.toISOString() ?? null,
    ends_at: row.endsAt?.toISOString() ?? null,
    all_day: row.allDay,
    published_at: row.publishedAt?.toISOString() ?? null,
    updated_at: row.updatedAt.toISOString(),
    read: data.readIds.has(row.id),
    mentions: row.mentionAccountIds.flatMap((id) => {
      const a = data.accountsById.get(id);
      if (!a) return [];
      return [{
        id: a.id,
        username: a.username,
        url: a.url ?? a.uri,
        acct: a.domain ? `${a.username}@${a.domain}` : a.username,
      }];
    }),
    statuses: row.statusIds.flatMap((id) => {
      const s = data.statusesById.get(id);
      return s ? [{ id: s.id, url: s.url ?? s.uri }] : [];
    }),
    tags: row.tagNames.map((name) => ({
      name,
      url: localUris(origin).tag(name.toLowerCase()),
    })),
    emojis: [...codes].flatMap((code) => {
      const e = data.emojiByCode.get(code);
      const entity = e ? customEmojiEntity(origin, e) : null;
      return entity ? [entity] : [];
    }),
    reactions: reactionsOf(origin, row, data),
  };
}

/** Serializes announcements as `viewer` (an account id) sees them. */
export async function serializeAnnouncements(
  ctx: AppContext,
  rows: readonly AnnouncementRow[],
  viewer: string,
): Promise<AnnouncementJson[]> {
  if (rows.length === 0) return [];
  const data = await loadAnnouncementData(ctx, rows, viewer);
  return rows.map((row) => announcementJson(ctx.config.origin, row, data));
}
