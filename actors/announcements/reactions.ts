/**
 * What people do with an announcement: dismiss it (mark it read) and react
 * to it with an emoji, following Mastodon's AnnouncementMute and
 * AnnouncementReaction:
 * - a reaction is a Unicode emoji or the shortcode of an enabled local
 *   custom emoji; anything else is "Name is not a recognized emoji";
 * - an announcement carries at most {@link MAX_REACTION_KINDS} different
 *   reactions (Mastodon's ReactionValidator::LIMIT); joining an existing one
 *   is always possible;
 * - reacting twice with the same emoji, or dismissing twice, changes nothing;
 *   removing a reaction one does not have is not an error.
 * Only announcements people see now (published, not ended) can be touched.
 * A reaction added or removed is announced to every `user` stream with the
 * new count for its name (`announcement.reaction`).
 */
import { and, count, countDistinct, eq, isNull, sql } from "drizzle-orm";
import type { Db, Executor } from "../../db/connection.ts";
import { newId } from "../../db/ids.ts";
import { announcementMutes, announcementReactions, customEmojis } from "../../db/schema/mod.ts";
import { ValidationError } from "../../model/errors.ts";
import { validShortcode } from "../../model/emoji_shortcodes.ts";
import { findActiveAnnouncement } from "./manage.ts";
import { publishStreamEvent } from "../streaming/bus.ts";

/** Mastodon's limit of different reactions on one announcement. */
export const MAX_REACTION_KINDS = 8;

/** Longest name looked at: the longest RGI emoji sequences are far shorter. */
const MAX_NAME_LENGTH = 64;

/** One RGI emoji (flags, keycaps, skin tones, ZWJ sequences included). */
const RGI_EMOJI = /^\p{RGI_Emoji}$/v;

/**
 * Whether `name` is one Unicode emoji. Mastodon's emoji map also knows the
 * forms written without the emoji variation selector (`❤` for `❤️`).
 */
export function isUnicodeEmoji(name: string): boolean {
  if (name.length === 0 || name.length > MAX_NAME_LENGTH) return false;
  return RGI_EMOJI.test(name) || RGI_EMOJI.test(`${name}\uFE0F`);
}

function unrecognized(): ValidationError {
  return new ValidationError({
    name: [{ error: "ERR_INVALID", description: "is not a recognized emoji" }],
  });
}

/** Marks an announcement as read by `accountId`. */
export async function dismissAnnouncement(db: Db, accountId: string, id: string): Promise<void> {
  await findActiveAnnouncement(db, id);
  await db.insert(announcementMutes).values({ id: newId(), accountId, announcementId: id })
    .onConflictDoNothing();
}

/** Adds `accountId`'s reaction `name`; ValidationError for an unknown emoji or the limit. */
export async function addAnnouncementReaction(
  db: Db,
  accountId: string,
  id: string,
  name: string,
): Promise<void> {
  await findActiveAnnouncement(db, id);
  let customEmojiId: string | null = null;
  if (!isUnicodeEmoji(name)) {
    if (!validShortcode(name)) throw unrecognized();
    const [emoji] = await db.select({ id: customEmojis.id }).from(customEmojis).where(and(
      eq(customEmojis.shortcode, name),
      isNull(customEmojis.domain),
      eq(customEmojis.disabled, false),
    )).limit(1);
    if (!emoji) throw unrecognized();
    customEmojiId = emoji.id;
  }
  await db.transaction(async (tx) => {
    // One writer per announcement at a time, so the limit holds under concurrency.
    await tx.execute(sql`SELECT id FROM announcements WHERE id = ${id}::bigint FOR UPDATE`);
    const existing = await tx.select({ id: announcementReactions.id }).from(announcementReactions)
      .where(and(
        eq(announcementReactions.announcementId, id),
        eq(announcementReactions.name, name),
      )).limit(1);
    if (existing.length === 0) {
      const [{ kinds }] = await tx.select({ kinds: countDistinct(announcementReactions.name) })
        .from(announcementReactions).where(eq(announcementReactions.announcementId, id));
      if (kinds >= MAX_REACTION_KINDS) {
        throw new ValidationError({
          base: [{ error: "ERR_LIMIT", description: "Limit of different reactions reached" }],
        });
      }
    }
    const added = await tx.insert(announcementReactions).values({
      id: newId(),
      accountId,
      announcementId: id,
      name,
      customEmojiId,
    }).onConflictDoNothing().returning({ id: announcementReactions.id });
    if (added.length > 0) await reactionChanged(tx, id, name);
  });
}

/**
 * Tells every `user` stream the new count of reaction `name` (Mastodon's
 * `announcement.reaction`), in the transaction that changed it.
 */
async function reactionChanged(tx: Executor, announcementId: string, name: string) {
  const [{ n }] = await tx.select({ n: count() }).from(announcementReactions).where(and(
    eq(announcementReactions.announcementId, announcementId),
    eq(announcementReactions.name, name),
  ));
  await publishStreamEvent(tx, {
    event: "announcement.reaction",
    announcementId,
    name,
    count: Number(n),
  });
}

/** Removes `accountId`'s reaction `name`, if any. */
export async function removeAnnouncementReaction(
  db: Db,
  accountId: string,
  id: string,
  name: string,
): Promise<void> {
  await findActiveAnnouncement(db, id);
  // A name no reaction can have (junk, a NUL) has nothing to remove.
  if (!isUnicodeEmoji(name) && !validShortcode(name)) return;
  await db.transaction(async (tx) => {
    // The announcement's lock orders this count after a concurrent add's.
    await tx.execute(sql`SELECT id FROM announcements WHERE id = ${id}::bigint FOR UPDATE`);
    const removed = await tx.delete(announcementReactions).where(and(
      eq(announcementReactions.announcementId, id),
      eq(announcementReactions.accountId, accountId),
      eq(announcementReactions.name, name),
    )).returning({ id: announcementReactions.id });
    // Removing what one has not is no change, and announces nothing.
    if (removed.length > 0) await reactionChanged(tx, id, name);
  });
}
