/**
 * Edits and poll results that arrive from other servers (Update of a Note or
 * Question): the remote counterpart of editStatus (edit.ts), which reads a
 * local author's text. Here the content is already sanitized HTML and the
 * accounts and tags are resolved by federation/.
 *
 * As editStatus, the first edit stores the original version in
 * `status_edits`, then each edit stores the new one; mentions and tags are
 * replaced; newly mentioned local accounts get a mention notification and
 * local boosters an `update` notification. Remote attachments are replaced
 * by the new list. A poll whose options changed starts over; otherwise only
 * its results (tallies, voters, end) are refreshed, which is all an Update
 * of a Question usually carries (Mastodon's ActivityPub::ProcessStatusUpdateService).
 * An edit is published to the feeds that hold the status (`status.update`);
 * refreshed poll results alone are not, as in Mastodon.
 */
import { and, eq, inArray, isNull } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import type { Executor } from "../../db/connection.ts";
import { newId } from "../../db/ids.ts";
import { accounts, mediaAttachments, polls, statusEdits, statuses } from "../../db/schema/mod.ts";
import {
  authoredStatus,
  insertRemoteMedia,
  notifyEdit,
  setMentions,
  setStatusTags,
} from "./rows.ts";
import type { RemoteMediaInput, StatusRow } from "./create.ts";
import { linkRemoteEmojis, type RemoteEmojiInput } from "../emoji/links.ts";
import { requestLinkCard } from "../cards/request.ts";
import { linkTaggedCollections } from "../collections/tagged.ts";
import { publishStatusUpdate } from "../timelines/fanout.ts";

/** Poll results as the author's server last published them. */
export interface RemotePollResults {
  options: string[];
  tallies: number[];
  multiple: boolean;
  expiresAt: Date | null;
  votersCount: number;
  closed: boolean;
}

/** A new version of a remote status. */
export interface RemoteEditInput {
  accountId: string;
  statusId: string;
  /** Sanitized HTML. */
  content: string;
  spoilerText: string;
  sensitive: boolean;
  language: string | null;
  mentionedAccountIds: string[];
  tagNames: string[];
  media: RemoteMediaInput[];
  poll: RemotePollResults | null;
  /** Emoji tags of the new version (kept when its text uses them). */
  emojis?: RemoteEmojiInput[];
  editedAt: Date;
}

/** The remote author's live status, or 404 (see {@link authoredStatus}). */
function remoteStatus(
  db: Executor,
  accountId: string,
  id: string,
  options: { lock?: boolean } = {},
): Promise<StatusRow> {
  return authoredStatus(db, accountId, id, { ...options, remote: true });
}

/** Replaces the results of a remote poll (options unchanged). */
async function writeResults(tx: Executor, pollId: string, results: RemotePollResults) {
  await tx.update(polls).set({
    tallies: results.options.map((_, i) => results.tallies[i] ?? 0),
    votesCount: results.tallies.reduce((a, b) => a + b, 0),
    votersCount: results.votersCount,
    expiresAt: results.expiresAt,
    lastFetchedAt: new Date(),
  }).where(eq(polls.id, pollId));
}

/** Refreshes the results of a remote status's poll (Update of a Question without edits). */
export async function refreshRemotePoll(
  ctx: AppContext,
  accountId: string,
  statusId: string,
  results: RemotePollResults,
): Promise<void> {
  const db = ctx.database.db;
  const status = await remoteStatus(db, accountId, statusId);
  if (!status.pollId) return;
  const [poll] = await db.select().from(polls).where(eq(polls.id, status.pollId));
  if (!poll || JSON.stringify(poll.options) !== JSON.stringify(results.options)) return;
  await db.transaction((tx) => writeResults(tx, poll.id, results));
}

async function remoteMediaIds(tx: Executor, statusId: string): Promise<string[]> {
  const rows = await tx.select({ id: mediaAttachments.id }).from(mediaAttachments)
    .where(eq(mediaAttachments.statusId, statusId)).orderBy(mediaAttachments.id);
  return rows.map((r) => r.id);
}

/**
 * Applies a new version of a remote status and returns the updated row.
 *
 * The row is locked and read inside the transaction: a Delete handled
 * meanwhile (another worker, another process) makes this a 404, and of two
 * Updates handled at once only a version newer than the stored one applies
 * (an older one that comes second changes nothing), so the history keeps
 * one original version and the edits in order.
 */
export async function editRemoteStatus(
  ctx: AppContext,
  input: RemoteEditInput,
): Promise<StatusRow> {
  const db = ctx.database.db;
  await remoteStatus(db, input.accountId, input.statusId);
  const updated = await db.transaction(async (tx) => {
    const status = await remoteStatus(tx, input.accountId, input.statusId, { lock: true });
    if (input.editedAt <= (status.editedAt ?? status.createdAt)) return null;
    const [oldPoll] = status.pollId
      ? await tx.select().from(polls).where(eq(polls.id, status.pollId))
      : [];
    const earlier = await tx.select({ id: statusEdits.id }).from(statusEdits)
      .where(eq(statusEdits.statusId, status.id)).limit(1);
    if (earlier.length === 0) {
      await tx.insert(statusEdits).values({
        id: newId(),
        statusId: status.id,
        accountId: status.accountId,
        text: null,
        content: status.content,
        spoilerText: status.spoilerText,
        sensitive: status.sensitive,
        mediaAttachmentIds: await remoteMediaIds(tx, status.id),
        pollOptions: oldPoll?.options ?? null,
        createdAt: status.createdAt,
      });
    }
    // Remote attachments are only links: the new list replaces the old one.
    await tx.update(mediaAttachments).set({ statusId: null })
      .where(eq(mediaAttachments.statusId, status.id));
    const mediaIds = await insertRemoteMedia(tx, status.accountId, status.id, input.media);
    let pollId = status.pollId;
    const sameOptions = oldPoll && input.poll &&
      JSON.stringify(oldPoll.options) === JSON.stringify(input.poll.options);
    if (sameOptions) {
      await writeResults(tx, oldPoll.id, input.poll!);
    } else {
      if (oldPoll) await tx.delete(polls).where(eq(polls.id, oldPoll.id));
      pollId = null;
      if (input.poll) {
        pollId = newId();
        await tx.insert(polls).values({
          id: pollId,
          accountId: status.accountId,
          statusId: status.id,
          uri: status.uri,
          options: input.poll.options,
          tallies: input.poll.tallies,
          multiple: input.poll.multiple,
          votesCount: input.poll.tallies.reduce((a, b) => a + b, 0),
          votersCount: input.poll.votersCount,
          expiresAt: input.poll.expiresAt,
        });
      }
    }
    const sensitive = input.sensitive || input.spoilerText !== "";
    const [row] = await tx.update(statuses).set({
      content: input.content,
      spoilerText: input.spoilerText,
      sensitive,
      language: input.language,
      pollId,
      editedAt: input.editedAt,
    }).where(eq(statuses.id, status.id)).returning();
    await tx.insert(statusEdits).values({
      id: newId(),
      statusId: status.id,
      accountId: status.accountId,
      text: null,
      content: input.content,
      spoilerText: input.spoilerText,
      sensitive,
      mediaAttachmentIds: mediaIds,
      pollOptions: input.poll?.options ?? null,
      createdAt: input.editedAt,
    });
    const added = await setMentions(
      tx,
      status.id,
      input.mentionedAccountIds.filter((id) => id !== status.accountId),
    );
    // The feeds that hold it hear of the edit: asked before the tags change,
    // as the status entered tag followers' feeds by the tags it had.
    await publishStatusUpdate(tx, status.id);
    await setStatusTags(tx, status.id, input.tagNames);
    const [author] = await tx.select({ domain: accounts.domain }).from(accounts)
      .where(eq(accounts.id, status.accountId));
    await linkRemoteEmojis(
      tx,
      { statusId: status.id },
      author?.domain ?? "",
      author?.domain ? input.emojis ?? [] : [],
      [input.content, input.spoilerText, ...(input.poll?.options ?? [])],
      { replace: true },
    );
    const localAdded = added.length
      ? await tx.select({ id: accounts.id }).from(accounts)
        .where(and(inArray(accounts.id, added), isNull(accounts.domain)))
      : [];
    await notifyEdit(tx, status, localAdded.map((a) => a.id));
    await requestLinkCard(tx, ctx.config.origin, row, {
      hasMedia: input.media.length > 0,
      edited: true,
    });
    await linkTaggedCollections(tx, ctx.config.origin, row, { edited: true });
    return row;
  });
  if (!updated) return await remoteStatus(db, input.accountId, input.statusId);
  return updated;
}
