/**
 * Archive exports of the settings pages (issue 20), as Mastodon's backups:
 * a user asks for an archive, at most one per week (Mastodon's
 * BackupPolicy); the archive job (jobs/archive_export.ts) streams the zip
 * into the media store under a private key `archives/…` (the folder store
 * keeps it in `DATA_DIR/archives/`) and records it here; the owner
 * downloads it from the settings pages (no other route serves it); it goes
 * after a week (Mastodon's default backups retention), with its file, in the
 * periodic maintenance (rookery.ts calls {@link purgeArchives}).
 *
 * States: queued → running → done (a file and its size) or failed (no
 * file). The store writes a key only once its whole body is there, so a
 * failure or a crash never leaves a half archive to download; the purge
 * removes a finished file no row took (a crash between the upload and the
 * row's update) and marks an archive stuck for a day as failed (a worker
 * that stops puts its build back in the queue instead). A failed archive
 * does not count against the weekly allowance.
 */
import { and, desc, eq, gt, inArray, lt, ne } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { Db } from "../../db/connection.ts";
import { newId } from "../../db/ids.ts";
import { backups, users } from "../../db/schema/mod.ts";
import { NotFoundError } from "../../model/errors.ts";
import { type MediaStore, parseKey } from "../media/store/mod.ts";
import { discardMediaFiles, removeDiscardedMedia } from "../media/discarded.ts";
import { recordJob } from "../outbox/jobs.ts";

const logger = getLogger(["rookery", "data", "archive"]);

const DAY_MS = 24 * 60 * 60 * 1000;

/** How often a user may ask for an archive (Mastodon's BackupPolicy::MIN_AGE). */
export const ARCHIVE_INTERVAL_MS = 7 * DAY_MS;
/** How long an archive is kept (Mastodon's default backups retention period). */
export const ARCHIVE_RETENTION_MS = 7 * DAY_MS;
/** An archive queued or running this long was lost (a crash, a lost job): failed. */
export const ARCHIVE_STALE_MS = DAY_MS;

export type ArchiveRow = typeof backups.$inferSelect;
export type ArchiveState = "queued" | "running" | "done" | "failed";

/** A request refused by the weekly allowance; `nextAt` is when the next is possible. */
export class ArchiveTooSoon extends Error {
  constructor(readonly nextAt: Date) {
    super(`You can request a new archive from ${nextAt.toISOString()}`);
  }
}

/** When an archive is deleted. */
export function expiresAt(archive: Pick<ArchiveRow, "createdAt">): Date {
  return new Date(archive.createdAt.getTime() + ARCHIVE_RETENTION_MS);
}

/** The archives that count against the allowance: not failed, asked for within the interval. */
function counted(userId: string, now: Date) {
  return and(
    eq(backups.userId, userId),
    ne(backups.state, "failed"),
    gt(backups.createdAt, new Date(now.getTime() - ARCHIVE_INTERVAL_MS)),
  );
}

/** When the user may ask for the next archive; null when now. */
export async function nextArchiveAt(
  db: Db,
  userId: string,
  now = new Date(),
): Promise<Date | null> {
  const [latest] = await db.select({ createdAt: backups.createdAt }).from(backups)
    .where(counted(userId, now)).orderBy(desc(backups.createdAt)).limit(1);
  return latest ? new Date(latest.createdAt.getTime() + ARCHIVE_INTERVAL_MS) : null;
}

/**
 * Records a new archive request (state queued) and its build job
 * (jobs/archive_export.ts) in one transaction. The user's row is locked
 * first, so two requests at once cannot both pass the check.
 *
 * @throws ArchiveTooSoon when the user asked for one within the interval
 */
export async function requestArchive(db: Db, userId: string, now = new Date()) {
  return await db.transaction(async (tx) => {
    await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for("update");
    const [latest] = await tx.select({ createdAt: backups.createdAt }).from(backups)
      .where(counted(userId, now)).orderBy(desc(backups.createdAt)).limit(1);
    if (latest) {
      throw new ArchiveTooSoon(new Date(latest.createdAt.getTime() + ARCHIVE_INTERVAL_MS));
    }
    const [row] = await tx.insert(backups).values({ id: newId(), userId, createdAt: now })
      .returning();
    await recordJob(tx, { job: "archive", archiveId: row.id });
    return row;
  });
}

/** The user's archives, newest first (at most a few: one a week, kept a week). */
export async function listArchives(db: Db, userId: string): Promise<ArchiveRow[]> {
  return await db.select().from(backups).where(eq(backups.userId, userId))
    .orderBy(desc(backups.id)).limit(20);
}

/** The user's own archive `id` (someone else's or unknown → NotFoundError). */
export async function findOwnArchive(db: Db, userId: string, id: string): Promise<ArchiveRow> {
  const [row] = await db.select().from(backups)
    .where(and(eq(backups.id, id), eq(backups.userId, userId)));
  if (!row) throw new NotFoundError();
  return row;
}

/** What the job needs of a claimed archive: its owner's account and address. */
export interface ClaimedArchive {
  id: string;
  userId: string;
  accountId: string;
  email: string;
  createdAt: Date;
}

/**
 * Takes a queued archive for building (state running); null when it is not
 * queued any more (another worker has it, it failed, it is gone).
 */
export async function claimArchive(db: Db, id: string): Promise<ClaimedArchive | null> {
  const [row] = await db.update(backups).set({ state: "running" })
    .where(and(eq(backups.id, id), eq(backups.state, "queued")))
    .returning({ id: backups.id, userId: backups.userId, createdAt: backups.createdAt });
  if (!row) return null;
  const [user] = await db.select({ accountId: users.accountId, email: users.email }).from(users)
    .where(eq(users.id, row.userId));
  return user ? { ...row, ...user } : null;
}

/** Records the built archive; false when the row went meanwhile (the caller removes the file). */
export async function finishArchive(
  db: Db,
  id: string,
  fileKey: string,
  size: number,
): Promise<boolean> {
  const rows = await db.update(backups)
    .set({ state: "done", fileKey, size, processedAt: new Date() })
    .where(and(eq(backups.id, id), eq(backups.state, "running")))
    .returning({ id: backups.id });
  return rows.length > 0;
}

/**
 * Puts a running archive back in the queue, with a new build job (its
 * worker stopped); false when it is not running.
 */
export async function requeueArchive(db: Db, id: string): Promise<boolean> {
  return await db.transaction(async (tx) => {
    const rows = await tx.update(backups).set({ state: "queued" })
      .where(and(eq(backups.id, id), eq(backups.state, "running")))
      .returning({ id: backups.id });
    if (rows.length === 0) return false;
    await recordJob(tx, { job: "archive", archiveId: id });
    return true;
  });
}

/** Records that the archive could not be built (no file). */
export async function failArchive(db: Db, id: string): Promise<void> {
  await db.update(backups).set({
    state: "failed",
    fileKey: null,
    size: null,
    processedAt: new Date(),
  })
    .where(eq(backups.id, id));
}

/** What a purge did. */
export interface ArchivePurge {
  /** Expired archives deleted (rows). */
  expired: number;
  /** Archives stuck queued or running, now failed. */
  stale: number;
  /** Files removed that no archive owned (a crash's part file, a deleted user's zip). */
  orphans: number;
}

/**
 * Deletes archives older than the retention period with their files, marks
 * lost ones failed, and removes archive files that no row owns. A file
 * younger than an hour is left alone: its job may be recording it.
 */
export async function purgeArchives(
  db: Db,
  store: MediaStore,
  now = new Date(),
): Promise<ArchivePurge> {
  const expired = await db.transaction(async (tx) => {
    const rows = await tx.delete(backups)
      .where(lt(backups.createdAt, new Date(now.getTime() - ARCHIVE_RETENTION_MS)))
      .returning({ fileKey: backups.fileKey });
    await discardMediaFiles(tx, rows.map((r) => r.fileKey));
    return rows.length;
  });
  if (expired) await removeDiscardedMedia(db, store);
  const staleRows = await db.update(backups)
    .set({ state: "failed", processedAt: now })
    .where(and(
      inArray(backups.state, ["queued", "running"]),
      lt(backups.createdAt, new Date(now.getTime() - ARCHIVE_STALE_MS)),
    ))
    .returning({ id: backups.id });
  const orphans = await removeOrphans(db, store, now);
  if (expired || staleRows.length || orphans) {
    logger.info("Archives: {expired} expired, {stale} lost, {orphans} stray files removed.", {
      expired,
      stale: staleRows.length,
      orphans,
    });
  }
  return { expired, stale: staleRows.length, orphans };
}

async function removeOrphans(db: Db, store: MediaStore, now: Date): Promise<number> {
  const old: string[] = [];
  for await (const file of store.list({ prefix: "archives/" })) {
    // Only names the archive job gives: anything else there is not ours to remove.
    if (parseKey(file.key)?.kind !== "archive") continue;
    if (now.getTime() - file.modifiedAt.getTime() >= 60 * 60 * 1000) old.push(file.key);
  }
  if (old.length === 0) return 0;
  const owned = new Set(
    (await db.select({ key: backups.fileKey }).from(backups).where(inArray(backups.fileKey, old)))
      .map((r) => r.key),
  );
  const orphans = old.filter((key) => !owned.has(key));
  const failed = new Set(await store.delete(orphans));
  return orphans.filter((key) => !failed.has(key)).length;
}
