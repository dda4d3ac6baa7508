/**
 * Writes shared by posting and editing: hashtags, mentions, media links and
 * polls of one status, each as one statement, inside the caller's transaction.
 */
import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { isId, newId } from "../../db/ids.ts";
import {
  accounts,
  homeFeed,
  mediaAttachments,
  mentions,
  polls,
  statuses,
  statusTags,
  tags,
} from "../../db/schema/mod.ts";
import { notifyMany } from "../notifications/notify.ts";
import type { PollInput } from "./validation.ts";
import { StatusError } from "./errors.ts";
import { executePrepared } from "../../db/queries/prepared.ts";

export type MediaRow = typeof mediaAttachments.$inferSelect;
export type PollRow = typeof polls.$inferSelect;

/**
 * Creates the tags of `names` that do not exist yet. Names match
 * case-insensitively; a new tag keeps the spelling first seen.
 */
async function createMissingTags(tx: Executor, names: string[]): Promise<void> {
  await tx.insert(tags).values(names.map((name) => ({ id: newId(), name })))
    .onConflictDoNothing();
}

/**
 * Links a status to its hashtags (replacing earlier links on edit; `fresh`
 * says the status was just inserted, so there is nothing to replace).
 */
export async function setStatusTags(
  tx: Executor,
  statusId: string,
  names: string[],
  fresh = false,
) {
  if (!fresh) await tx.delete(statusTags).where(eq(statusTags.statusId, statusId));
  if (names.length === 0) return;
  // Tags staff made unusable are not linked, so such a status stays out of
  // the tag's timeline, trends and figures (the text keeps the word).
  // Most hashtags exist already: link those in one prepared statement, and
  // create tags only when some are missing (then link again). Creating
  // first and selecting after, in two statements, is what sees a tag another
  // transaction created meanwhile.
  const lowered = [...new Set(names.map((n) => n.toLowerCase()))];
  const link = () =>
    executePrepared(tx, "link_status_tags", () =>
      sql`INSERT INTO statuses_tags (status_id, tag_id)
        SELECT ${sql.placeholder("status")}::bigint, id FROM tags
          WHERE lower(name) = ANY(${sql.placeholder("names")}::text[]) AND usable
        ON CONFLICT DO NOTHING RETURNING tag_id`, { status: statusId, names: lowered });
  if ((await link()).length === lowered.length) return;
  await createMissingTags(tx, names);
  await link();
}

/**
 * Records the mentions of a status. Returns the accounts newly mentioned
 * (on edit, those not mentioned before), who get a notification. `fresh`
 * says the status was just inserted (it has no mentions to compare with).
 */
export async function setMentions(
  tx: Executor,
  statusId: string,
  accountIds: string[],
  fresh = false,
): Promise<string[]> {
  const before = fresh ? [] : await tx.select({ accountId: mentions.accountId }).from(mentions)
    .where(eq(mentions.statusId, statusId));
  const had = new Set(before.map((r) => r.accountId));
  const keep = new Set(accountIds);
  const gone = [...had].filter((id) => !keep.has(id));
  if (gone.length) {
    await tx.delete(mentions).where(
      and(eq(mentions.statusId, statusId), inArray(mentions.accountId, gone)),
    );
    // A direct status reached only the followers it mentioned; one no longer
    // mentioned may not see it, and home timelines are read without the
    // visibility rules (db/queries/visibility.ts, feedEntryFilter).
    await tx.delete(homeFeed).where(and(
      eq(homeFeed.statusId, statusId),
      inArray(homeFeed.accountId, gone),
      sql`EXISTS (SELECT 1 FROM statuses WHERE id = ${statusId}::bigint AND visibility = 'direct')`,
    ));
  }
  const added = accountIds.filter((id) => !had.has(id));
  if (added.length) {
    await tx.insert(mentions).values(
      added.map((accountId) => ({ id: newId(), statusId, accountId })),
    ).onConflictDoNothing();
  }
  return added;
}

/**
 * The author's media by id, in the order given, refusing (422) ids that are
 * not theirs or that are attached to another status. `statusId` allows
 * attachments already on that status (edits), `scheduledStatusId` those
 * reserved by that scheduled status (its publication).
 */
export async function ownMedia(
  tx: Executor,
  accountId: string,
  ids: string[],
  statusId: string | null = null,
  scheduledStatusId: string | null = null,
): Promise<MediaRow[]> {
  if (ids.length === 0) return [];
  // Only well-formed ids go to the query (a bigint column refuses the rest);
  // the others are refused below like any id that is not the author's.
  const wellFormed = [...new Set(ids)].filter(isId);
  const rows = wellFormed.length
    ? await tx.select().from(mediaAttachments).where(inArray(mediaAttachments.id, wellFormed))
    : [];
  const byId = new Map(rows.map((r) => [r.id, r]));
  const bad = ids.filter((id) => {
    const row = byId.get(id);
    return !row || row.accountId !== accountId ||
      (row.statusId != null && row.statusId !== statusId) ||
      (row.scheduledStatusId != null && row.scheduledStatusId !== scheduledStatusId);
  });
  if (bad.length) {
    throw new StatusError(
      422,
      `Validation failed: Media ${bad.join(", ")} not found or already attached to another post`,
    );
  }
  if (rows.some((r) => r.state === "processing")) {
    throw new StatusError(422, "Validation failed: Media attachments are still being processed");
  }
  return ids.map((id) => byId.get(id)!);
}

/** Attaches media to a status (and detaches what an edit left out). */
export async function attachMedia(tx: Executor, statusId: string, ids: string[]) {
  await tx.update(mediaAttachments).set({ statusId: null })
    .where(and(
      eq(mediaAttachments.statusId, statusId),
      ids.length
        ? sql`${mediaAttachments.id} NOT IN (${
          sql.join(ids.map((id) => sql`${id}::bigint`), sql`, `)
        })`
        : undefined,
    ));
  if (ids.length) {
    // A redraft's media are attached again: no longer counted as left over.
    await tx.update(mediaAttachments).set({ statusId, scheduledStatusId: null, detachedAt: null })
      .where(and(inArray(mediaAttachments.id, ids)));
  }
}

/** A remote attachment as federation/ read it (only a link: nothing is downloaded). */
export interface RemoteMediaInput {
  remoteUrl: string;
  type: string;
  contentType?: string | null;
  description?: string | null;
  blurhash?: string | null;
  meta?: Record<string, unknown>;
}

/**
 * Stores the attachments of a remote status, in their order, in one
 * statement; returns their ids in that order.
 */
export async function insertRemoteMedia(
  tx: Executor,
  accountId: string,
  statusId: string,
  media: readonly RemoteMediaInput[],
): Promise<string[]> {
  if (media.length === 0) return [];
  const ids = media.map(() => newId());
  await tx.insert(mediaAttachments).values(media.map((m, i) => ({
    id: ids[i],
    accountId,
    statusId,
    type: m.type,
    remoteUrl: m.remoteUrl,
    contentType: m.contentType ?? null,
    description: m.description ?? null,
    blurhash: m.blurhash ?? null,
    meta: m.meta ?? {},
  })));
  return ids;
}

/** Creates a poll for a status. */
export async function insertPoll(
  tx: Executor,
  accountId: string,
  statusId: string,
  poll: PollInput,
  options: { id?: string; now?: Date } = {},
): Promise<PollRow> {
  const now = options.now ?? new Date();
  const [row] = await tx.insert(polls).values({
    id: options.id ?? newId(),
    accountId,
    statusId,
    options: poll.options.map((o) => o.trim()),
    tallies: poll.options.map(() => 0),
    multiple: poll.multiple,
    hideTotals: poll.hideTotals,
    expiresAt: new Date(now.getTime() + poll.expiresIn * 1000),
  }).returning();
  return row;
}

/** A remote poll as its author's server published it. */
export interface RemotePollInput {
  options: string[];
  tallies: number[];
  multiple: boolean;
  votersCount: number;
  expiresAt: Date | null;
  uri: string | null;
}

/** Stores the poll of a remote status (posted, or edited with new options). */
export async function insertRemotePoll(
  tx: Executor,
  id: string,
  status: { id: string; accountId: string },
  poll: RemotePollInput,
): Promise<void> {
  await tx.insert(polls).values({
    id,
    accountId: status.accountId,
    statusId: status.id,
    uri: poll.uri,
    options: poll.options,
    tallies: poll.tallies,
    multiple: poll.multiple,
    votesCount: poll.tallies.reduce((a, b) => a + b, 0),
    votersCount: poll.votersCount,
    expiresAt: poll.expiresAt,
  });
}

/**
 * The notifications of an edit, local or remote: `mention` for local
 * accounts the new version mentions for the first time, `update` for local
 * accounts that boosted the status.
 */
export async function notifyEdit(
  tx: Executor,
  status: { id: string; accountId: string },
  newlyMentionedLocalIds: readonly string[],
): Promise<void> {
  const event = { fromAccountId: status.accountId, statusId: status.id };
  await notifyMany(tx, { type: "mention", ...event }, newlyMentionedLocalIds);
  const boosters = await tx.selectDistinct({ id: statuses.accountId }).from(statuses)
    .innerJoin(accounts, eq(accounts.id, statuses.accountId))
    .where(and(
      eq(statuses.reblogOfId, status.id),
      isNull(statuses.deletedAt),
      isNull(accounts.domain),
    ));
  // The rules drop the author's own boost (no self-notifications).
  await notifyMany(tx, { type: "update", ...event }, boosters.map((b) => b.id));
}

/**
 * The author's live, non-boost status, or 404 (anyone else's status is never
 * edited or deleted through it). With `lock` (inside a transaction) the row
 * stays locked until the transaction ends, so a concurrent edit or delete of
 * it waits, and what is read is what is changed. With `remote`, a local
 * status is not found either: a peer edits only its own.
 */
export async function authoredStatus(
  db: Executor,
  accountId: string,
  id: string,
  options: { lock?: boolean; remote?: boolean } = {},
): Promise<typeof statuses.$inferSelect> {
  const query = db.select().from(statuses).where(eq(statuses.id, id));
  const [row] = options.lock ? await query.for("update") : await query;
  if (
    !row || row.deletedAt || row.accountId !== accountId || row.reblogOfId ||
    (options.remote && row.local)
  ) {
    throw new StatusError(404, "Record not found");
  }
  return row;
}
