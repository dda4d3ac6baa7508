/**
 * Checking the media store against the database (Mastodon's `tootctl media
 * remove-orphans`), both ways:
 *
 * - orphan files: stored files no row points at (an attachment's file or
 *   preview, a local emoji's image or still, a local account's avatar or
 *   header, and under `cache/` our copies of remote media and card images). They are what a crash between a commit and the deletion of a
 *   file, or between writing a file and its row, leaves behind, and the
 *   only thing removed here. Files written in the last hour are left alone:
 *   their row may not be written yet (an upload, a transcoding).
 * - missing files: rows (created before the check began) that point at a
 *   file the store does not have. Reported only: the row still says what
 *   was there, and removing it would lose more than it fixes.
 *
 * Which row may own a file is read from its key (the attachment or emoji
 * id in the folder groups, the account id of an avatar), so each batch of
 * files costs one query per kind.
 */
import { and, gt, inArray, isNotNull, isNull, lt, or } from "drizzle-orm";
import type { Db } from "../../db/connection.ts";
import { accounts, customEmojis, mediaAttachments, previewCards } from "../../db/schema/mod.ts";
import {
  LOCAL_MEDIA_FOLDERS,
  type MediaStore,
  parseKey,
  type StoredObject,
} from "../../actors/media/store/mod.ts";
import { ownProfileImageKey } from "../../actors/media/store/keys.ts";
import { BATCH_SIZE } from "./batches.ts";

/** Files younger than this are never orphans: their row may be on its way. */
export const ORPHAN_MIN_AGE_MS = 60 * 60_000;

/** A row that points at a file the store does not have. */
export interface MissingFile {
  table: "media_attachments" | "custom_emojis" | "accounts";
  id: string;
  key: string;
}

/** What a check found (and, unless dry, removed). */
export interface MediaCheck {
  /** Orphan files, removed unless it was a dry run. */
  orphans: StoredObject[];
  /** Orphan files the store failed to delete. */
  failed: string[];
  /** Unreferenced files too recent to judge. */
  recent: number;
  /** Stored files looked at. */
  files: number;
  missing: MissingFile[];
}

/** Options of {@link checkMediaStore}. */
export interface MediaCheckOptions {
  dryRun?: boolean;
  /** The time the check counts file ages from (tests); default now. */
  now?: Date;
}

/** Walks the store and the rows that point into it; removes orphan files unless dry. */
export async function checkMediaStore(
  db: Db,
  store: MediaStore,
  options: MediaCheckOptions = {},
): Promise<MediaCheck> {
  const started = options.now ?? new Date();
  const out: MediaCheck = { orphans: [], failed: [], recent: 0, files: 0, missing: [] };
  const present = new Set<string>();
  let batch: StoredObject[] = [];
  const settle = async () => {
    const referenced = await referencedKeys(db, batch.map((f) => f.key));
    for (const file of batch) {
      if (referenced.has(file.key)) continue;
      if (started.getTime() - file.modifiedAt.getTime() < ORPHAN_MIN_AGE_MS) out.recent++;
      else out.orphans.push(file);
    }
    batch = [];
  };
  // Archives are the archive purge's (actors/import_export/archive.ts).
  for (const folder of [...LOCAL_MEDIA_FOLDERS, "cache"]) {
    for await (const file of store.list({ prefix: `${folder}/` })) {
      out.files++;
      present.add(file.key);
      batch.push(file);
      if (batch.length >= BATCH_SIZE) await settle();
    }
  }
  await settle();
  if (!options.dryRun) {
    for (let i = 0; i < out.orphans.length; i += BATCH_SIZE) {
      out.failed.push(
        ...await store.delete(out.orphans.slice(i, i + BATCH_SIZE).map((f) => f.key)),
      );
    }
  }
  out.missing = await missingFiles(db, present, started);
  return out;
}

/** The keys among `keys` that a row points at. */
async function referencedKeys(db: Db, keys: string[]): Promise<Set<string>> {
  const media: string[] = [];
  const emoji: string[] = [];
  const owners: string[] = [];
  const cards: string[] = [];
  for (const key of keys) {
    const parsed = parseKey(key);
    if (parsed?.kind === "card") cards.push(parsed.id);
    else if (parsed?.kind === "attachment") media.push(parsed.id);
    else if (parsed?.kind === "emoji") emoji.push(parsed.id);
    else if (parsed?.kind === "avatar" || parsed?.kind === "header") owners.push(parsed.id);
  }
  const found = new Set<string>();
  const add = (...paths: (string | null)[]) => paths.forEach((p) => p && found.add(p));
  if (media.length) {
    const rows = await db.select({ a: mediaAttachments.filePath, b: mediaAttachments.previewPath })
      .from(mediaAttachments).where(inArray(mediaAttachments.id, [...new Set(media)]));
    for (const row of rows) add(row.a, row.b);
  }
  if (emoji.length) {
    const rows = await db.select({ a: customEmojis.filePath, b: customEmojis.staticPath })
      .from(customEmojis).where(inArray(customEmojis.id, [...new Set(emoji)]));
    for (const row of rows) add(row.a, row.b);
  }
  if (cards.length) {
    const rows = await db.select({ a: previewCards.imageKey }).from(previewCards)
      .where(inArray(previewCards.id, [...new Set(cards)]));
    for (const row of rows) add(row.a);
  }
  if (owners.length) {
    const rows = await db.select({ id: accounts.id, a: accounts.avatarKey, b: accounts.headerKey })
      .from(accounts).where(inArray(accounts.id, [...new Set(owners)]));
    for (const row of rows) {
      add(ownProfileImageKey(row.id, row.a), ownProfileImageKey(row.id, row.b));
    }
  }
  return found;
}

/** Every row `page` returns, a batch at a time in id order. */
async function* paged<T extends { id: string }>(
  page: (after: string) => Promise<T[]>,
): AsyncGenerator<T> {
  for (let after = "0";;) {
    const rows = await page(after);
    yield* rows;
    if (rows.length < BATCH_SIZE) return;
    after = rows.at(-1)!.id;
  }
}

/** Rows written before `before` whose keys are not among the stored files. */
async function missingFiles(db: Db, present: Set<string>, before: Date): Promise<MissingFile[]> {
  const missing: MissingFile[] = [];
  const check = (table: MissingFile["table"], id: string, keys: (string | null)[]) => {
    for (const key of keys) if (key && !present.has(key)) missing.push({ table, id, key });
  };
  // Remote attachments may keep their remote URL where a stored key would be.
  const stored = (key: string | null) => key && !/^https?:\/\//i.test(key) ? key : null;
  const media = paged((after) =>
    db.select({
      id: mediaAttachments.id,
      a: mediaAttachments.filePath,
      b: mediaAttachments.previewPath,
    })
      .from(mediaAttachments).where(and(
        gt(mediaAttachments.id, after),
        lt(mediaAttachments.createdAt, before),
        or(isNotNull(mediaAttachments.filePath), isNotNull(mediaAttachments.previewPath)),
      )).orderBy(mediaAttachments.id).limit(BATCH_SIZE)
  );
  for await (const row of media) check("media_attachments", row.id, [stored(row.a), stored(row.b)]);
  const emoji = paged((after) =>
    db.select({ id: customEmojis.id, a: customEmojis.filePath, b: customEmojis.staticPath })
      .from(customEmojis).where(and(
        gt(customEmojis.id, after),
        isNull(customEmojis.domain),
        lt(customEmojis.updatedAt, before),
      )).orderBy(customEmojis.id).limit(BATCH_SIZE)
  );
  for await (const row of emoji) check("custom_emojis", row.id, [row.a, row.b]);
  const people = paged((after) =>
    db.select({ id: accounts.id, a: accounts.avatarKey, b: accounts.headerKey })
      .from(accounts).where(and(
        gt(accounts.id, after),
        isNull(accounts.domain),
        lt(accounts.updatedAt, before),
        or(isNotNull(accounts.avatarKey), isNotNull(accounts.headerKey)),
      )).orderBy(accounts.id).limit(BATCH_SIZE)
  );
  for await (const row of people) check("accounts", row.id, [row.a, row.b]);
  return missing;
}
