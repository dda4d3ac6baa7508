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
import { accounts, mediaAttachments, polls, statuses } from "../../db/schema/mod.ts";
import {
  authoredStatus,
  insertRemoteMedia,
  insertRemotePoll,
  notifyEdit,
  type PollRow,
} from "./rows.ts";
import type { RemoteMediaInput, StatusRow } from "./create.ts";
import { keepOriginalVersion, recordVersion, replaceMentionsAndTags } from "./edits.ts";
import { linkRemoteEmojis, type RemoteEmojiInput } from "../emoji/links.ts";
import { requestCopies } from "../media/remote_cache/at_receipt.ts";
import { requestLinkCard } from "../cards/request.ts";
import { linkTaggedCollections } from "../collections/tagged.ts";

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
  /** The page its `Link` attachment names now (FEP-8967). */
  cardLink?: string | null;
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

/**
 * The poll of the new version: the same options refresh the results of the
 * stored poll; other options (or none) replace it. Answers the poll's id.
 */
async function replaceRemotePoll(
  tx: Executor,
  status: StatusRow,
  oldPoll: PollRow | undefined,
  poll: RemotePollResults | null,
): Promise<string | null> {
  if (oldPoll && poll && JSON.stringify(oldPoll.options) === JSON.stringify(poll.options)) {
    await writeResults(tx, oldPoll.id, poll);
    return status.pollId;
  }
  if (oldPoll) await tx.delete(polls).where(eq(polls.id, oldPoll.id));
  if (!poll) return null;
  const pollId = newId();
  await insertRemotePoll(tx, pollId, status, { ...poll, uri: status.uri });
  return pollId;
}

/** Relinks the emoji of the new version, among those its author's server tagged. */
async function relinkRemoteEmojis(tx: Executor, status: StatusRow, input: RemoteEditInput) {
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
}

/** Applies a newer version to the locked row (see {@link editRemoteStatus}). */
async function applyRemoteEdit(
  tx: Executor,
  ctx: AppContext,
  input: RemoteEditInput,
): Promise<StatusRow | null> {
  const status = await remoteStatus(tx, input.accountId, input.statusId, { lock: true });
  if (input.editedAt <= (status.editedAt ?? status.createdAt)) return null;
  const [oldPoll] = status.pollId
    ? await tx.select().from(polls).where(eq(polls.id, status.pollId))
    : [];
  await keepOriginalVersion(tx, status, oldPoll?.options ?? null);
  // Remote attachments are only links: the new list replaces the old one.
  await tx.update(mediaAttachments).set({ statusId: null })
    .where(eq(mediaAttachments.statusId, status.id));
  const mediaIds = await insertRemoteMedia(tx, status.accountId, status.id, input.media);
  const pollId = await replaceRemotePoll(tx, status, oldPoll, input.poll);
  const sensitive = input.sensitive || input.spoilerText !== "";
  const [row] = await tx.update(statuses).set({
    content: input.content,
    spoilerText: input.spoilerText,
    sensitive,
    language: input.language,
    pollId,
    cardLink: input.cardLink ?? null,
    editedAt: input.editedAt,
  }).where(eq(statuses.id, status.id)).returning();
  await recordVersion(tx, status, {
    text: null,
    content: input.content,
    spoilerText: input.spoilerText,
    sensitive,
    mediaAttachmentIds: mediaIds,
    pollOptions: input.poll?.options ?? null,
    createdAt: input.editedAt,
  });
  const added = await replaceMentionsAndTags(
    tx,
    status,
    input.mentionedAccountIds,
    input.tagNames,
  );
  await relinkRemoteEmojis(tx, status, input);
  await requestCopies(tx, { statusId: status.id }, input);
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
  const updated = await db.transaction((tx) => applyRemoteEdit(tx, ctx, input));
  return updated ?? await remoteStatus(db, input.accountId, input.statusId);
}
