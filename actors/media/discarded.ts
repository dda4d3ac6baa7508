/**
 * Files whose rows are gone, deleted from the media store after the
 * transaction that removed the rows committed.
 *
 * A command that deletes rows (a status with `delete_media`, an account, a
 * replaced avatar, an emoji) calls {@link discardMediaFiles} in its own
 * transaction: the keys are written to `media_file_deletions`. If the
 * transaction rolls back, the record goes with it and the files stay, as the
 * rows do. Once it committed, whoever owns the commit (the route, the admin
 * command, the worker's job) calls {@link removeDiscardedMedia}, and the
 * worker does so every hour for what a crash or a caller deep in another
 * transaction left behind. Commands that run inside someone else's
 * transaction (deleteLocalAccount, purgeAccountData) therefore never delete
 * a file themselves.
 */
import { getLogger } from "@logtape/logtape";
import { gt, inArray } from "drizzle-orm";
import type { Db, Executor } from "../../db/connection.ts";
import { mediaFileDeletions } from "../../db/schema/mod.ts";
import { isMediaKey, type MediaStore } from "./store/mod.ts";

const logger = getLogger(["rookery", "media"]);

/** Keys per transaction of {@link removeDiscardedMedia}. */
const BATCH_SIZE = 500;

/**
 * Records files to delete once `tx` commits. Null entries and anything that
 * is not a key of the store (the remote URL of linked media) are skipped.
 * Returns how many keys were recorded.
 */
export async function discardMediaFiles(
  tx: Executor,
  keys: Iterable<string | null | undefined>,
): Promise<number> {
  const unique = [...new Set([...keys].filter((k): k is string => k != null && isMediaKey(k)))];
  if (unique.length === 0) return 0;
  await tx.insert(mediaFileDeletions).values(unique.map((key) => ({ key })))
    .onConflictDoNothing();
  return unique.length;
}

/**
 * Deletes the files recorded by {@link discardMediaFiles} whose transactions
 * committed, a batch per transaction (records another process holds are
 * skipped). A file the store could not delete keeps its record for the next
 * run. Returns how many files went. `db` must not be a transaction: the
 * records of an uncommitted one would be acted on.
 */
export async function removeDiscardedMedia(db: Db, store: MediaStore): Promise<number> {
  let removed = 0;
  let after = "";
  for (;;) {
    const keys = await db.transaction(async (tx) => {
      const rows = await tx.select({ key: mediaFileDeletions.key }).from(mediaFileDeletions)
        .where(gt(mediaFileDeletions.key, after)).orderBy(mediaFileDeletions.key)
        .limit(BATCH_SIZE).for("update", { skipLocked: true });
      const keys = rows.map((r) => r.key);
      if (keys.length === 0) return keys;
      const failed = new Set(await store.delete(keys));
      const done = keys.filter((k) => !failed.has(k));
      if (done.length) {
        await tx.delete(mediaFileDeletions).where(inArray(mediaFileDeletions.key, done));
      }
      removed += done.length;
      return keys;
    });
    if (keys.length < BATCH_SIZE) return removed;
    after = keys.at(-1)!;
  }
}

/**
 * {@link removeDiscardedMedia} once a command committed, from a request or
 * an admin command: the command succeeded whatever happens here, so a
 * failure is logged and left to the worker's next run.
 */
export async function flushDiscardedMedia(db: Db, store: MediaStore): Promise<void> {
  try {
    await removeDiscardedMedia(db, store);
  } catch (error) {
    logger.warn("Removing discarded media failed: {error}", { error });
  }
}
