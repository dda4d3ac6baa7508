/**
 * Copies made when a remote status or profile is stored, not when first
 * shown (Mastodon downloads attachments and emoji as it receives them): the
 * writer records a job in its own transaction ({@link requestCopies}) and
 * the worker fetches what has no copy yet ({@link copyAtReceipt}) through
 * the same functions as the media proxy, so the same guard, limits,
 * single-flight, conditional update and failure record apply. What cannot
 * be had (refused domain, hidden owner, failed fetch) is only logged: its
 * proxy URL still works as before.
 */
import { getLogger } from "@logtape/logtape";
import { and, eq, isNotNull, isNull } from "drizzle-orm";
import type { Executor } from "../../../db/connection.ts";
import {
  accountCustomEmojis,
  customEmojis,
  mediaAttachments,
  statusCustomEmojis,
} from "../../../db/schema/mod.ts";
import type { EmojiOwner } from "../../emoji/links.ts";
import { recordJob } from "../../outbox/jobs.ts";
import { cachedAttachment, copyableType } from "./attachments.ts";
import type { CacheContext } from "./cache.ts";
import { cachedEmoji } from "./emoji.ts";
import { RemoteMediaRefused } from "./fetch.ts";

const logger = getLogger(["rookery", "media", "cache"]);

/**
 * Records, in `tx`, the job that copies the files of a remote status or
 * profile, when it has any we would copy (a reject_media domain's arrive
 * without emoji and with attachments of no known type: nothing to do).
 */
export async function requestCopies(
  tx: Executor,
  owner: EmojiOwner,
  files: { media?: readonly { type: string }[]; emojis?: readonly unknown[] },
): Promise<void> {
  if (!files.emojis?.length && !files.media?.some((m) => copyableType(m.type))) return;
  await recordJob(tx, { job: "remote_media", ...owner });
}

/** Fetches and stores the attachments and emoji of `owner` that have no copy yet. */
export async function copyAtReceipt(ctx: CacheContext, owner: EmojiOwner): Promise<void> {
  const db = ctx.database.db;
  const attachments = "statusId" in owner
    ? await db.select({ id: mediaAttachments.id }).from(mediaAttachments).where(and(
      eq(mediaAttachments.statusId, owner.statusId),
      isNotNull(mediaAttachments.remoteUrl),
      isNull(mediaAttachments.filePath),
    ))
    : [];
  const emoji = await emojiWithoutCopy(ctx, owner);
  for (const { id } of attachments) {
    await quietly(`media ${id}`, () => cachedAttachment(ctx, id, "original"));
  }
  for (const { id } of emoji) {
    await quietly(`emoji ${id}`, () => cachedEmoji(ctx, id, "original"));
  }
}

/** The remote emoji a status or profile uses of which we hold no copy. */
function emojiWithoutCopy(ctx: CacheContext, owner: EmojiOwner) {
  const db = ctx.database.db;
  const uncopied = and(isNotNull(customEmojis.domain), isNull(customEmojis.filePath));
  if ("statusId" in owner) {
    return db.select({ id: customEmojis.id }).from(statusCustomEmojis)
      .innerJoin(customEmojis, eq(customEmojis.id, statusCustomEmojis.customEmojiId))
      .where(and(eq(statusCustomEmojis.statusId, owner.statusId), uncopied));
  }
  return db.select({ id: customEmojis.id }).from(accountCustomEmojis)
    .innerJoin(customEmojis, eq(customEmojis.id, accountCustomEmojis.customEmojiId))
    .where(and(eq(accountCustomEmojis.accountId, owner.accountId), uncopied));
}

/** Runs one copy; a refusal or failure (recorded by the copy itself) is logged, not thrown. */
async function quietly(what: string, copy: () => Promise<unknown>): Promise<void> {
  try {
    await copy();
  } catch (error) {
    if (!(error instanceof RemoteMediaRefused)) throw error;
    logger.info("No copy of {what} at receipt: {error}", { what, error: error.message });
  }
}
