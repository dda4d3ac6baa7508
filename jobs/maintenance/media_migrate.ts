/**
 * `media migrate`: copies every file of one media store into another (the
 * folder under DATA_DIR into a bucket, admin/storage_commands.ts). Keys are
 * the same in every store, so no row changes: once the copy is whole, the
 * server is restarted on the new store and serves what it served before.
 *
 * A file already in the target with the same size is skipped, so a second
 * run (after an interruption, or to catch what was uploaded meanwhile)
 * copies only what is missing. Each copy is streamed (a long video is never
 * held in memory) and checked by size before the source file may be
 * deleted (`deleteSource`). A file that fails is reported and the walk goes
 * on; a target that does not answer stops it (MediaStoreUnavailable).
 */
import {
  contentTypeOfKey,
  type MediaStore,
  type StoredObject,
} from "../../actors/media/store/mod.ts";
import { MediaStoreUnavailable } from "../../actors/media/store/mod.ts";

export interface MigrationOptions {
  /** Count what would be copied; write and delete nothing. */
  dryRun: boolean;
  /** Delete each source file once its copy is in the target (and the same size). */
  deleteSource: boolean;
  /** Files copied at once. */
  concurrency: number;
  /** Called after each file, whatever happened to it. */
  onFile?(): void;
}

export interface MigrationReport {
  /** Files copied (or, in a dry run, that would be). */
  copied: number;
  bytes: number;
  /** Files already in the target with the same size. */
  skipped: number;
  /** Source files deleted. */
  deleted: number;
  /** Keys that could not be copied (or deleted), with why. */
  failed: { key: string; error: string }[];
}

/** Copies what `source` holds and `target` does not (see the module comment). */
export async function migrateMedia(
  source: MediaStore,
  target: MediaStore,
  options: MigrationOptions,
): Promise<MigrationReport> {
  const report: MigrationReport = { copied: 0, bytes: 0, skipped: 0, deleted: 0, failed: [] };
  // Async generators queue concurrent next() calls: each file goes to one copier.
  const files = source.list()[Symbol.asyncIterator]();
  const copier = async () => {
    for (let next = await files.next(); !next.done; next = await files.next()) {
      try {
        await migrateOne(source, target, next.value, options, report);
      } catch (error) {
        if (error instanceof MediaStoreUnavailable) throw error;
        report.failed.push({
          key: next.value.key,
          error: String((error as Error)?.message ?? error),
        });
      }
      options.onFile?.();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, copier));
  return report;
}

async function migrateOne(
  source: MediaStore,
  target: MediaStore,
  file: StoredObject,
  options: MigrationOptions,
  report: MigrationReport,
): Promise<void> {
  if (await target.size(file.key) === file.size) {
    report.skipped++;
  } else {
    if (options.dryRun) {
      report.copied++;
      report.bytes += file.size;
      return;
    }
    const stored = await source.get(file.key);
    // Gone since the listing (deleted by the server meanwhile): nothing to copy.
    if (!stored) return;
    const { size } = await target.put(file.key, stored.body, {
      contentType: contentTypeOfKey(file.key),
      size: stored.size,
    });
    if (size !== stored.size || await target.size(file.key) !== stored.size) {
      throw new Error(`the copy has ${size} bytes, the file ${stored.size}`);
    }
    report.copied++;
    report.bytes += size;
  }
  if (options.deleteSource && !options.dryRun) {
    const failed = await source.delete([file.key]);
    if (failed.length) throw new Error("copied, but the local file could not be deleted");
    report.deleted++;
  }
}
