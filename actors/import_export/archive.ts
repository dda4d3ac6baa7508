/**
 * Archive exports of the settings pages (issue 20), as Mastodon's backups:
 * a user asks for an archive, at most one per week (Mastodon's
 * BackupPolicy); the archive job (jobs/archive_export.ts) builds the zip
 * under `${dataDir}/archives/` and records it here; the owner downloads it
 * from the settings pages (no other route serves the folder); it goes after
 * a week (Mastodon's default backups retention), with its file, in the
 * periodic maintenance (rookery.ts calls {@link purgeArchives}).
 *
 * States: queued → running → done (a file and its size) or failed (no
 * file). A job writes to `<id>.zip.part` and renames it only once the zip is
 * complete, so a failure or a crash never leaves a half archive to
 * download: a failed job removes its part file, and the purge removes what a
 * crash left and marks an archive stuck for a day as failed (a worker that
 * stops puts its build back in the queue instead). A failed
 * archive does not count against the weekly allowance.
 */
import { join } from "node:path";
import { and, desc, eq, gt, inArray, lt, ne } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { Db } from "../../db/connection.ts";
import { newId } from "../../db/ids.ts";
import { backups, users } from "../../db/schema/mod.ts";
import { NotFoundError } from "../../model/errors.ts";
import { encodeHex } from "../formatting/encoding.ts";
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

/** The folder of built archives (not under the media root: never served as a file). */
export function archivesFolder(dataDir: string): string {
  return join(dataDir, "archives");
}

const KEY_PATTERN = /^archive-\d{14}-[0-9a-f]{32}\.zip$/;

/** A new file name for a built archive, as Mastodon names them (time, then 16 random bytes). */
export function newArchiveKey(now = new Date()): string {
  const stamp = now.toISOString().replace(/\D/g, "").slice(0, 14);
  return `archive-${stamp}-${encodeHex(crypto.getRandomValues(new Uint8Array(16)))}.zip`;
}

/** The file of a built archive; throws for a key this module could not have made. */
export function archiveFile(dataDir: string, key: string): string {
  if (!KEY_PATTERN.test(key)) throw new Error(`not an archive key: ${key}`);
  return join(archivesFolder(dataDir), key);
}

/** The file a job writes before the archive is complete. */
export function partFile(dataDir: string, id: string): string {
  if (!/^\d{1,20}$/.test(id)) throw new Error(`not an id: ${id}`);
  return join(archivesFolder(dataDir), `${id}.zip.part`);
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
 * lost ones failed, and removes files of the archives folder that no row
 * owns. A file younger than an hour is left alone: its job may be finishing.
 */
export async function purgeArchives(
  db: Db,
  dataDir: string,
  now = new Date(),
): Promise<ArchivePurge> {
  const expiredRows = await db.delete(backups)
    .where(lt(backups.createdAt, new Date(now.getTime() - ARCHIVE_RETENTION_MS)))
    .returning({ fileKey: backups.fileKey });
  for (const { fileKey } of expiredRows) {
    if (fileKey) await removeFile(archiveFile(dataDir, fileKey));
  }
  const staleRows = await db.update(backups)
    .set({ state: "failed", processedAt: now })
    .where(and(
      inArray(backups.state, ["queued", "running"]),
      lt(backups.createdAt, new Date(now.getTime() - ARCHIVE_STALE_MS)),
    ))
    .returning({ id: backups.id });
  const orphans = await removeOrphans(db, dataDir, now);
  if (expiredRows.length || staleRows.length || orphans) {
    logger.info("Archives: {expired} expired, {stale} lost, {orphans} stray files removed.", {
      expired: expiredRows.length,
      stale: staleRows.length,
      orphans,
    });
  }
  return { expired: expiredRows.length, stale: staleRows.length, orphans };
}

async function removeOrphans(db: Db, dataDir: string, now: Date): Promise<number> {
  const folder = archivesFolder(dataDir);
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(folder)) if (entry.isFile) names.push(entry.name);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return 0;
    throw error;
  }
  let removed = 0;
  for (const name of names) {
    const part = /^(\d{1,20})\.zip\.part$/.exec(name);
    if (!part && !KEY_PATTERN.test(name)) continue; // not ours: never touched
    const file = join(folder, name);
    const info = await Deno.stat(file).catch(() => null);
    if (!info?.mtime || now.getTime() - info.mtime.getTime() < 60 * 60 * 1000) continue;
    const [owner] = part
      ? await db.select({ id: backups.id }).from(backups)
        .where(and(eq(backups.id, part[1]), eq(backups.state, "running")))
      : await db.select({ id: backups.id }).from(backups).where(eq(backups.fileKey, name));
    if (owner) continue;
    await removeFile(file);
    removed++;
  }
  return removed;
}

/** Deletes a file; a missing one is not an error. */
export async function removeFile(file: string): Promise<void> {
  try {
    await Deno.remove(file);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) {
      logger.warn("Could not delete {file}: {error}", { file, error });
    }
  }
}
