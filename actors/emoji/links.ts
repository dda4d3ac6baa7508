/**
 * Which custom emoji a status or a profile uses, recorded when it is
 * written (inside the writer's transaction), so readers get a page's emoji
 * with one join instead of scanning every text.
 *
 * - Local authors: the `:shortcode:`s of their text that name a local,
 *   enabled emoji.
 * - Remote authors: the Emoji tags their server sent, stored as emoji of
 *   that server's domain (created, or updated when the image moved), kept
 *   only when the text really uses them, as Mastodon shows them.
 *
 * Only shortcodes found in the texts are ever linked, so a text without
 * `:…:` has no emoji (readers rely on that to skip the query).
 */
import { and, eq, inArray, isNull } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { newId } from "../../db/ids.ts";
import { accountCustomEmojis, customEmojis, statusCustomEmojis } from "../../db/schema/mod.ts";
import { discardMediaFiles } from "../media/discarded.ts";
import { type ScannedText, scanShortcodes } from "./shortcodes.ts";

/** An Emoji tag of a remote object, already checked by federation/. */
export interface RemoteEmojiInput {
  shortcode: string;
  /** The image (http or https). */
  url: string;
  /** The Emoji's own id, when it has an http(s) one. */
  uri: string | null;
  contentType: string | null;
}

/** Whose emoji: a status or an account. */
export type EmojiOwner = { statusId: string } | { accountId: string };

async function unlinkAll(tx: Executor, owner: EmojiOwner): Promise<void> {
  if ("statusId" in owner) {
    await tx.delete(statusCustomEmojis).where(eq(statusCustomEmojis.statusId, owner.statusId));
  } else {
    await tx.delete(accountCustomEmojis).where(eq(accountCustomEmojis.accountId, owner.accountId));
  }
}

async function linkIds(tx: Executor, owner: EmojiOwner, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  if ("statusId" in owner) {
    await tx.insert(statusCustomEmojis)
      .values(ids.map((customEmojiId) => ({ statusId: owner.statusId, customEmojiId })))
      .onConflictDoNothing();
  } else {
    await tx.insert(accountCustomEmojis)
      .values(ids.map((customEmojiId) => ({ accountId: owner.accountId, customEmojiId })))
      .onConflictDoNothing();
  }
}

/**
 * Links a local status or account to the local, enabled emoji its texts
 * name (a text parsed already is read, not scanned). `replace` first drops
 * earlier links (edits, profile updates).
 */
export async function linkLocalEmojis(
  tx: Executor,
  owner: EmojiOwner,
  texts: readonly (string | ScannedText | null | undefined)[],
  options: { replace: boolean },
): Promise<void> {
  if (options.replace) await unlinkAll(tx, owner);
  const codes = scanShortcodes(texts);
  if (codes.length === 0) return;
  const rows = await tx.select({ id: customEmojis.id }).from(customEmojis).where(and(
    inArray(customEmojis.shortcode, codes),
    isNull(customEmojis.domain),
    eq(customEmojis.disabled, false),
  ));
  await linkIds(tx, owner, rows.map((r) => r.id));
}

/**
 * The rows of a remote server's emoji, created when new and updated when
 * their image URL changed; returns their ids. Concurrent writers of the
 * same new emoji both end with the one row.
 */
export async function upsertRemoteEmojis(
  tx: Executor,
  domain: string,
  emojis: readonly RemoteEmojiInput[],
): Promise<string[]> {
  if (emojis.length === 0) return [];
  const host = domain.toLowerCase();
  const codes = emojis.map((e) => e.shortcode);
  const select = () =>
    tx.select({
      id: customEmojis.id,
      shortcode: customEmojis.shortcode,
      url: customEmojis.remoteUrl,
      filePath: customEmojis.filePath,
      staticPath: customEmojis.staticPath,
    })
      .from(customEmojis).where(and(
        inArray(customEmojis.shortcode, codes),
        eq(customEmojis.domain, host),
      ));
  const existing = new Map((await select()).map((r) => [r.shortcode, r]));
  const missing = emojis.filter((e) => !existing.has(e.shortcode));
  for (const emoji of emojis) {
    const row = existing.get(emoji.shortcode);
    if (!row || row.url === emoji.url) continue;
    // A new image: our copy of the old one goes once this commits (the
    // media proxy fetches the new one when it is first shown).
    await discardMediaFiles(tx, [row.filePath, row.staticPath]);
    await tx.update(customEmojis).set({
      remoteUrl: emoji.url,
      uri: emoji.uri,
      contentType: emoji.contentType,
      filePath: null,
      staticPath: null,
      imageFileSize: null,
      cachedAt: null,
      cacheFailedAt: null,
      updatedAt: new Date(),
    }).where(eq(customEmojis.id, row.id));
  }
  if (missing.length === 0) return [...existing.values()].map((r) => r.id);
  await tx.insert(customEmojis).values(missing.map((e) => ({
    id: newId(),
    shortcode: e.shortcode,
    domain: host,
    uri: e.uri,
    remoteUrl: e.url,
    contentType: e.contentType,
  }))).onConflictDoNothing();
  return (await select()).map((r) => r.id);
}

/**
 * Links a remote status or account to the emoji its server tagged, among
 * those its texts use. `replace` first drops earlier links (edits, updates).
 */
export async function linkRemoteEmojis(
  tx: Executor,
  owner: EmojiOwner,
  domain: string,
  emojis: readonly RemoteEmojiInput[],
  texts: readonly (string | ScannedText | null | undefined)[],
  options: { replace: boolean },
): Promise<void> {
  if (options.replace) await unlinkAll(tx, owner);
  if (emojis.length === 0) return;
  const used = new Set(scanShortcodes(texts));
  const wanted = emojis.filter((e) => used.has(e.shortcode));
  await linkIds(tx, owner, await upsertRemoteEmojis(tx, domain, wanted));
}
