/**
 * The CustomEmoji entity: `{shortcode, url, static_url, visible_in_picker,
 * category}`, and the batched loaders that give statuses, polls and
 * accounts their `emojis` (one query per page for each kind, and none when
 * no text on the page could name an emoji).
 *
 * Local emoji point at our stored files (the original and its still PNG);
 * remote ones at our copy when we have one, else at the media proxy's
 * signed URLs (which fetch and keep a copy), never at their server.
 */
import { and, asc, eq, isNull, sql } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { accountCustomEmojis, customEmojis, statusCustomEmojis } from "../../db/schema/mod.ts";
import { anyId } from "../../db/queries/any_id.ts";
import { prepared } from "../../db/queries/prepared.ts";
import type { MediaUrls } from "../../actors/media/urls.ts";
import { mayHaveEmoji, scanShortcodes } from "../../actors/emoji/shortcodes.ts";

/** A custom emoji as Mastodon serializes it. */
export interface CustomEmoji {
  shortcode: string;
  url: string;
  static_url: string;
  visible_in_picker: boolean;
  category: string | null;
}

type EmojiRow = typeof customEmojis.$inferSelect;

/** Serializes one emoji row; null when it has no image to show. */
export function customEmojiEntity(urls: MediaUrls, row: EmojiRow): CustomEmoji | null {
  let url: string, still: string;
  if (row.filePath) {
    url = urls.file(row.filePath);
    still = row.staticPath ? urls.file(row.staticPath) : url;
  } else {
    if (row.domain == null || !row.remoteUrl) return null;
    url = urls.proxy({ kind: "emoji", variant: "original" }, row.id);
    still = urls.proxy({ kind: "emoji", variant: "static" }, row.id);
  }
  return {
    shortcode: row.shortcode,
    url,
    static_url: still,
    visible_in_picker: row.visibleInPicker,
    category: row.category,
  };
}

/** Serializes emoji rows and groups them by the status or account that uses them. */
export function emojisByOwner(
  urls: MediaUrls,
  rows: { ownerId: string; emoji: EmojiRow }[],
): Map<string, CustomEmoji[]> {
  const out = new Map<string, CustomEmoji[]>();
  for (const { ownerId, emoji } of rows) {
    const entity = customEmojiEntity(urls, emoji);
    if (!entity) continue;
    const list = out.get(ownerId);
    if (list) list.push(entity);
    else out.set(ownerId, [entity]);
  }
  return out;
}

const IDS = sql.placeholder("ids");

/** The emoji of statuses by status id (one prepared query; none for no ids). */
export async function loadStatusEmojis(
  db: Executor,
  urls: MediaUrls,
  statusIds: readonly string[],
): Promise<Map<string, CustomEmoji[]>> {
  if (statusIds.length === 0) return new Map();
  const rows = await prepared(
    db,
    "status_emojis",
    () =>
      db.select({ ownerId: statusCustomEmojis.statusId, emoji: customEmojis })
        .from(statusCustomEmojis)
        .innerJoin(customEmojis, eq(customEmojis.id, statusCustomEmojis.customEmojiId))
        .where(and(anyId(statusCustomEmojis.statusId, IDS), eq(customEmojis.disabled, false)))
        .orderBy(asc(customEmojis.shortcode)).prepare("status_emojis"),
  ).execute({
    ids: [...statusIds],
  });
  return emojisByOwner(urls, rows);
}

/** The emoji of accounts by account id (one prepared query; none for no ids). */
export async function loadAccountEmojis(
  db: Executor,
  urls: MediaUrls,
  accountIds: readonly string[],
): Promise<Map<string, CustomEmoji[]>> {
  if (accountIds.length === 0) return new Map();
  const rows = await prepared(
    db,
    "account_emojis",
    () =>
      db.select({ ownerId: accountCustomEmojis.accountId, emoji: customEmojis })
        .from(accountCustomEmojis)
        .innerJoin(customEmojis, eq(customEmojis.id, accountCustomEmojis.customEmojiId))
        .where(and(anyId(accountCustomEmojis.accountId, IDS), eq(customEmojis.disabled, false)))
        .orderBy(asc(customEmojis.shortcode)).prepare("account_emojis"),
  ).execute({
    ids: [...accountIds],
  });
  return emojisByOwner(urls, rows);
}

/**
 * The emoji of the picker (GET /api/v1/custom_emojis): local, enabled and
 * listed ones, as Mastodon's `CustomEmoji.listed`.
 */
export async function loadPickerEmojis(db: Executor, urls: MediaUrls): Promise<CustomEmoji[]> {
  const rows = await db.select().from(customEmojis).where(and(
    isNull(customEmojis.domain),
    eq(customEmojis.disabled, false),
    eq(customEmojis.visibleInPicker, true),
  )).orderBy(asc(customEmojis.shortcode));
  return rows.map((r) => customEmojiEntity(urls, r)).filter((e): e is CustomEmoji => e != null);
}

/**
 * Emoji by shortcode of one server (null: local), for texts whose links
 * were not recorded (older versions in a status's history).
 */
export async function loadEmojisByShortcode(
  db: Executor,
  urls: MediaUrls,
  domain: string | null,
  shortcodes: readonly string[],
): Promise<Map<string, CustomEmoji>> {
  if (shortcodes.length === 0) return new Map();
  const rows = await db.select().from(customEmojis).where(and(
    sql`${customEmojis.shortcode} = ANY(${sql.param([...shortcodes])}::text[])`,
    domain == null ? isNull(customEmojis.domain) : eq(customEmojis.domain, domain.toLowerCase()),
    eq(customEmojis.disabled, false),
  ));
  const out = new Map<string, CustomEmoji>();
  for (const row of rows) {
    const entity = customEmojiEntity(urls, row);
    if (entity) out.set(row.shortcode, entity);
  }
  return out;
}

/**
 * Whether a status could have emoji linked: its content or warning names
 * one, or it has a poll (whose options are not on the row).
 */
export function statusMayHaveEmoji(
  row: { content: string; spoilerText: string; pollId: string | null },
): boolean {
  return row.pollId != null || mayHaveEmoji([row.content, row.spoilerText]);
}

/** The emoji of a list that the texts use (a poll's among its status's). */
export function emojisUsedIn(
  emojis: readonly CustomEmoji[] | undefined,
  texts: readonly string[],
): CustomEmoji[] {
  if (!emojis?.length) return [];
  const used = new Set(scanShortcodes(texts));
  return emojis.filter((e) => used.has(e.shortcode));
}
