/**
 * What local edits (edit.ts) and remote ones (edit_remote.ts) share: the
 * versions kept in `status_edits` (the original one, dated as the status,
 * before the first edit; then each new one), and the new mentions and tags
 * of the edited status.
 */
import { eq } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { newId } from "../../db/ids.ts";
import { mediaAttachments, statusEdits } from "../../db/schema/mod.ts";
import { publishStatusUpdate } from "../timelines/fanout.ts";
import type { StatusRow } from "./create.ts";
import { setMentions, setStatusTags } from "./rows.ts";

/** One version of a status, as the history lists it. */
export interface StatusVersion {
  text: string | null;
  content: string;
  spoilerText: string;
  sensitive: boolean;
  mediaAttachmentIds: string[];
  pollOptions: string[] | null;
  createdAt: Date;
}

/** The attachments of a status, in their order. */
export async function statusMediaIds(db: Executor, statusId: string): Promise<string[]> {
  const rows = await db.select({ id: mediaAttachments.id }).from(mediaAttachments)
    .where(eq(mediaAttachments.statusId, statusId)).orderBy(mediaAttachments.id);
  return rows.map((r) => r.id);
}

/** Records a version of `status` in its history. */
export async function recordVersion(
  tx: Executor,
  status: Pick<StatusRow, "id" | "accountId">,
  version: StatusVersion,
): Promise<void> {
  await tx.insert(statusEdits).values({
    id: newId(),
    statusId: status.id,
    accountId: status.accountId,
    ...version,
  });
}

/**
 * Before the first edit, records the version being replaced, dated as the
 * status, so the history starts there.
 */
export async function keepOriginalVersion(
  tx: Executor,
  status: StatusRow,
  pollOptions: string[] | null,
): Promise<void> {
  const earlier = await tx.select({ id: statusEdits.id }).from(statusEdits)
    .where(eq(statusEdits.statusId, status.id)).limit(1);
  if (earlier.length > 0) return;
  await recordVersion(tx, status, {
    text: status.text,
    content: status.content,
    spoilerText: status.spoilerText,
    sensitive: status.sensitive,
    mediaAttachmentIds: await statusMediaIds(tx, status.id),
    pollOptions,
    createdAt: status.createdAt,
  });
}

/**
 * Replaces the mentions and hashtags of an edited status and tells the
 * feeds that hold it; returns the accounts newly mentioned. The feeds are
 * asked before the tags change, as the status entered tag followers' feeds
 * by the tags it had.
 */
export async function replaceMentionsAndTags(
  tx: Executor,
  status: Pick<StatusRow, "id" | "accountId">,
  mentionedIds: readonly string[],
  tagNames: string[],
): Promise<string[]> {
  const added = await setMentions(
    tx,
    status.id,
    mentionedIds.filter((id) => id !== status.accountId),
  );
  await publishStatusUpdate(tx, status.id);
  await setStatusTags(tx, status.id, tagNames);
  return added;
}
