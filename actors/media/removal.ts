/**
 * What happens to media when what holds them is deleted, as Mastodon does
 * it (RemoveStatusService, DeleteAccountService). Rows go in the caller's
 * transaction and their files are discarded with them (discarded.ts), so
 * they leave the store only once that transaction committed.
 *
 * - A deleted status: with `delete_media` (and always for a remote status,
 *   which is never redrafted here) its attachments go at once, with those an
 *   edit had dropped that its history still showed. Without, they are
 *   detached and kept about a day, so that "delete and redraft" can attach
 *   them to the new post; the cleanup of unattached uploads then takes them
 *   (processing.ts). A status cited by an unresolved report keeps its media
 *   either way: it is the moderators' evidence (Mastodon keeps reported
 *   statuses whole).
 * - A deleted or purged account: every attachment goes, except those of
 *   statuses cited by a report against it, with its avatar and header.
 */
import { and, eq, isNull, or, type SQL, sql } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { accounts, mediaAttachments, reports } from "../../db/schema/mod.ts";
import { ownProfileImageKey } from "./store/keys.ts";
import { discardMediaFiles } from "./discarded.ts";

type AccountRow = typeof accounts.$inferSelect;

/**
 * Whether an edit history of a status that is not deleted still shows the
 * attachment `m` (an edit dropped it): such an attachment is not garbage.
 */
export function inLiveEditHistory(
  media: SQL | typeof mediaAttachments.id,
  account: SQL | typeof mediaAttachments.accountId,
): SQL {
  return sql`EXISTS (SELECT 1 FROM status_edits e JOIN statuses s ON s.id = e.status_id
    WHERE e.account_id = ${account} AND s.deleted_at IS NULL
      AND e.media_attachment_ids @> jsonb_build_array(${media}::text))`;
}

/** Whether an unresolved report against the author cites the status. */
async function isReported(tx: Executor, accountId: string, statusId: string): Promise<boolean> {
  const rows = await tx.select({ id: reports.id }).from(reports).where(and(
    eq(reports.targetAccountId, accountId),
    isNull(reports.actionTakenAt),
    sql`${reports.statusIds} @> jsonb_build_array(${statusId}::text)`,
  )).limit(1);
  return rows.length > 0;
}

/**
 * Settles the media of a status just marked deleted in `tx` (see the module
 * notes). Returns how many files were discarded, for the caller to remove
 * once it committed.
 */
export async function settleDeletedStatusMedia(
  tx: Executor,
  status: { id: string; accountId: string },
  options: { deleteMedia: boolean },
): Promise<number> {
  if (await isReported(tx, status.accountId, status.id)) return 0;
  if (!options.deleteMedia) {
    await tx.update(mediaAttachments).set({ statusId: null, detachedAt: new Date() })
      .where(eq(mediaAttachments.statusId, status.id));
    return 0;
  }
  const droppedByEdit = and(
    eq(mediaAttachments.accountId, status.accountId),
    isNull(mediaAttachments.statusId),
    isNull(mediaAttachments.scheduledStatusId),
    sql`EXISTS (SELECT 1 FROM status_edits e WHERE e.status_id = ${status.id}
      AND e.media_attachment_ids @> jsonb_build_array(${mediaAttachments.id}::text))`,
    sql`NOT ${inLiveEditHistory(mediaAttachments.id, mediaAttachments.accountId)}`,
  );
  const removed = await tx.delete(mediaAttachments)
    .where(or(eq(mediaAttachments.statusId, status.id), droppedByEdit))
    .returning({ filePath: mediaAttachments.filePath, previewPath: mediaAttachments.previewPath });
  return await discardMediaFiles(tx, removed.flatMap((m) => [m.filePath, m.previewPath]));
}

/**
 * Deletes the media of an account being deleted or purged, in `tx`: its
 * attachments (but those of statuses a report against it cites) and its
 * avatar and header files (its own, or our copies of a remote account's),
 * whose keys it clears. A remote account keeps its images' remote URLs.
 */
export async function purgeAccountMedia(
  tx: Executor,
  account: Pick<AccountRow, "id" | "avatarKey" | "headerKey">,
): Promise<number> {
  const removed = await tx.delete(mediaAttachments).where(and(
    eq(mediaAttachments.accountId, account.id),
    sql`NOT (${mediaAttachments.statusId} IS NOT NULL AND EXISTS (SELECT 1 FROM reports r
      WHERE r.target_account_id = ${account.id}
        AND r.status_ids @> jsonb_build_array(${mediaAttachments.statusId}::text)))`,
  )).returning({ filePath: mediaAttachments.filePath, previewPath: mediaAttachments.previewPath });
  if (account.avatarKey != null || account.headerKey != null) {
    await tx.update(accounts).set({
      avatarKey: null,
      avatarFileSize: null,
      avatarCachedAt: null,
      headerKey: null,
      headerFileSize: null,
      headerCachedAt: null,
    }).where(eq(accounts.id, account.id));
  }
  return await discardMediaFiles(tx, [
    ...removed.flatMap((m) => [m.filePath, m.previewPath]),
    ownProfileImageKey(account.id, account.avatarKey),
    ownProfileImageKey(account.id, account.headerKey),
  ]);
}
