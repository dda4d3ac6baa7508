/**
 * Editing a local status (PUT /api/v1/statuses/:id), as Mastodon's
 * UpdateStatusService does it:
 * - The first edit stores the original version in `status_edits` (dated as
 *   the status), then every edit stores the new version, so the history
 *   lists every version oldest first.
 * - Only what is sent changes; text, content warning, sensitivity, language,
 *   media (with descriptions and focus) and the poll may change. A changed
 *   poll (options, multiple) starts over: votes are dropped.
 * - Mentions, hashtags and custom emoji are read again from the new text; newly mentioned
 *   local accounts get a mention notification; local accounts that boosted
 *   the status get an `update` notification.
 * - The feeds that hold the status hear of it (`status.update`, see
 *   publishStatusUpdate in ../timelines/fanout.ts).
 */
import { refreshFeaturedTagStats } from "../tags/featured_tags.ts";
import { eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import type { Config } from "../../config.ts";
import type { Executor } from "../../db/connection.ts";
import { newId } from "../../db/ids.ts";
import {
  type accounts,
  mediaAttachments,
  polls,
  statusEdits,
  statuses,
  statusTags,
} from "../../db/schema/mod.ts";
import { composeText, type RemoteAccountResolver, resolveMentionAccounts } from "./compose.ts";
import { disallowedHashtags, invalid } from "./errors.ts";
import { unusableTags } from "../../db/queries/tags.ts";
import {
  attachMedia,
  authoredStatus,
  insertPoll,
  notifyEdit,
  ownMedia,
  setMentions,
  setStatusTags,
} from "./rows.ts";
import { checkStatusInput, type PollInput } from "./validation.ts";
import { effectiveQuotePolicy, type QuotePolicy } from "../../model/quote_policy.ts";
import { recordDelivery } from "../outbox/deliveries.ts";
import { linkLocalEmojis } from "../emoji/links.ts";
import { requestLinkCard } from "../cards/request.ts";
import { publishStatusUpdate } from "../timelines/fanout.ts";
import type { StatusRow } from "./create.ts";
import { parseText } from "../formatting/text_to_html.ts";

type AccountRow = typeof accounts.$inferSelect;

/** A description or focus change of one attachment. */
export interface MediaAttributeInput {
  id: string;
  description?: string;
  /** `x,y`, each in -1.0..1.0. */
  focus?: string;
}

/** What an edit may change; absent fields stay as they are. */
export interface EditStatusInput {
  accountId: string;
  statusId: string;
  text?: string;
  spoilerText?: string;
  sensitive?: boolean;
  language?: string | null;
  mediaIds?: string[];
  mediaAttributes?: MediaAttributeInput[];
  /** A poll to set; null removes it; undefined keeps it. */
  poll?: PollInput | null;
  quoteApprovalPolicy?: QuotePolicy;
  resolveRemoteAccount?: RemoteAccountResolver;
}

/** One's own live, non-boost status, or 404 (see {@link authoredStatus}). */
export function ownStatus(
  db: Executor,
  accountId: string,
  id: string,
  options: { lock?: boolean } = {},
): Promise<StatusRow> {
  return authoredStatus(db, accountId, id, options);
}

function parseFocus(focus: string): { x: number; y: number } {
  const parts = focus.split(",").map((s) => Number(s.trim()));
  if (parts.length !== 2 || parts.some((n) => !Number.isFinite(n) || n < -1 || n > 1)) {
    throw invalid("Focus is invalid");
  }
  return { x: parts[0], y: parts[1] };
}

async function currentMediaIds(db: Executor, statusId: string): Promise<string[]> {
  const rows = await db.select({ id: mediaAttachments.id }).from(mediaAttachments)
    .where(eq(mediaAttachments.statusId, statusId)).orderBy(mediaAttachments.id);
  return rows.map((r) => r.id);
}

async function pollOptions(db: Executor, pollId: string | null): Promise<string[] | null> {
  if (!pollId) return null;
  const [row] = await db.select({ options: polls.options }).from(polls)
    .where(eq(polls.id, pollId));
  return row?.options ?? null;
}

/** The new version of `status` that `input` asks for, checked (422 otherwise). */
async function planEdit(db: Executor, config: Config, input: EditStatusInput, status: StatusRow) {
  const text = input.text ?? status.text ?? "";
  // Parsed once: the length check, the mentions and the HTML all read it.
  const parsed = parseText(text);
  const spoilerText = input.spoilerText ?? status.spoilerText;
  const mediaIds = input.mediaIds ?? await currentMediaIds(db, status.id);
  const checked = checkStatusInput(config, {
    text: parsed,
    spoilerText,
    mediaCount: mediaIds.length,
    poll: input.poll,
    hasPoll: input.poll === undefined ? status.pollId != null : input.poll != null,
    language: input.language,
  });
  const focusById = new Map<string, { x: number; y: number }>();
  for (const attr of input.mediaAttributes ?? []) {
    if (attr.focus != null && attr.focus !== "") focusById.set(attr.id, parseFocus(attr.focus));
  }
  return {
    text,
    parsed,
    spoilerText,
    mediaIds,
    language: input.language === undefined ? status.language : checked ?? null,
    focusById,
  };
}

/**
 * Edits a status and returns the updated row.
 *
 * The status is read twice: first without a lock, to refuse bad input early
 * and to look up remote accounts the new text mentions (WebFinger, a
 * fetch: no lock may wait for the network); then locked, inside the
 * transaction, where the new version is built from the row as it is now.
 * So two edits at once apply one after the other (one original version, the
 * edits in order), and an edit that comes after a delete answers 404 and
 * sends nothing.
 */
export async function editStatus(ctx: AppContext, input: EditStatusInput): Promise<StatusRow> {
  const { config } = ctx;
  const db = ctx.database.db;
  const seen = await ownStatus(db, input.accountId, input.statusId);
  const early = await planEdit(db, config, input, seen);
  // Remote handles resolved now are answered from here inside the transaction.
  const looked = new Map<string, AccountRow | null>();
  const mentionedEarly = await resolveMentionAccounts(
    db,
    config.domain,
    early.parsed,
    input.resolveRemoteAccount
      ? async (handle) => {
        const row = await input.resolveRemoteAccount!(handle);
        looked.set(handle.toLowerCase(), row);
        return row;
      }
      : undefined,
  );
  const remembered = (handle: string) => Promise.resolve(looked.get(handle.toLowerCase()) ?? null);

  const updated = await db.transaction(async (tx) => {
    const status = await ownStatus(tx, input.accountId, input.statusId, { lock: true });
    const planned = await planEdit(
      tx,
      config,
      input,
      status,
    );
    const { text, spoilerText, mediaIds, language, focusById } = planned;
    // The same text as the early read: its parse is reused.
    const parsed = text === early.text ? early.parsed : planned.parsed;
    const oldOptions = await pollOptions(tx, status.pollId);
    const poll = input.poll;
    // The text differs from the early read only when another edit changed it meanwhile.
    const mentioned = text === early.text
      ? mentionedEarly
      : await resolveMentionAccounts(tx, config.domain, parsed, remembered);
    const composed = composeText(config.origin, parsed, mentioned);
    const unusable = await unusableTags(tx, composed.tagNames);
    if (unusable.length) throw disallowedHashtags(unusable);
    let content = composed.content;
    const quoteInline = /^<p class="quote-inline">.*?<\/p>/.exec(status.content)?.[0];
    if (status.quotedStatusId && quoteInline) content = quoteInline + content;
    const localMentioned = new Set(
      [...mentioned.values()].filter((a) => a.domain == null).map((a) => a.id),
    );
    const now = new Date();

    await ownMedia(tx, input.accountId, mediaIds, status.id);
    const earlier = await tx.select({ id: statusEdits.id }).from(statusEdits)
      .where(eq(statusEdits.statusId, status.id)).limit(1);
    if (earlier.length === 0) {
      // The original version, dated as the status, so the history starts there.
      await tx.insert(statusEdits).values({
        id: newId(),
        statusId: status.id,
        accountId: status.accountId,
        text: status.text,
        content: status.content,
        spoilerText: status.spoilerText,
        sensitive: status.sensitive,
        mediaAttachmentIds: await currentMediaIds(tx, status.id),
        pollOptions: oldOptions,
        createdAt: status.createdAt,
      });
    }
    for (const attr of input.mediaAttributes ?? []) {
      if (!mediaIds.includes(attr.id)) continue;
      const [m] = await tx.select({ meta: mediaAttachments.meta }).from(mediaAttachments)
        .where(eq(mediaAttachments.id, attr.id));
      const focus = focusById.get(attr.id);
      await tx.update(mediaAttachments).set({
        ...(attr.description !== undefined ? { description: attr.description } : {}),
        ...(focus ? { meta: { ...(m?.meta ?? {}), focus } } : {}),
      }).where(eq(mediaAttachments.id, attr.id));
    }
    await attachMedia(tx, status.id, mediaIds);
    let pollId = status.pollId;
    let newOptions = oldOptions;
    if (poll !== undefined) {
      const same = poll && oldOptions &&
        JSON.stringify(poll.options.map((o) => o.trim())) === JSON.stringify(oldOptions);
      if (!same) {
        if (status.pollId) await tx.delete(polls).where(eq(polls.id, status.pollId));
        pollId = null;
        newOptions = null;
        if (poll) {
          const row = await insertPoll(tx, status.accountId, status.id, poll, { now });
          pollId = row.id;
          newOptions = row.options;
        }
      } else if (poll && status.pollId) {
        await tx.update(polls).set({
          multiple: poll.multiple,
          hideTotals: poll.hideTotals,
          expiresAt: new Date(now.getTime() + poll.expiresIn * 1000),
        }).where(eq(polls.id, status.pollId));
      }
    }
    const [row] = await tx.update(statuses).set({
      text,
      content,
      spoilerText,
      sensitive: (input.sensitive ?? status.sensitive) || spoilerText !== "",
      language,
      pollId,
      quoteApprovalPolicy: effectiveQuotePolicy(
        status.visibility,
        input.quoteApprovalPolicy ?? status.quoteApprovalPolicy as QuotePolicy,
      ),
      editedAt: now,
    }).where(eq(statuses.id, status.id)).returning();
    await tx.insert(statusEdits).values({
      id: newId(),
      statusId: status.id,
      accountId: status.accountId,
      text,
      content,
      spoilerText,
      sensitive: row.sensitive,
      mediaAttachmentIds: mediaIds,
      pollOptions: newOptions,
      createdAt: now,
    });
    const added = await setMentions(
      tx,
      status.id,
      composed.mentionedAccountIds.filter((id) => id !== status.accountId),
    );
    // The feeds that hold it hear of the edit: asked before the tags change,
    // as the status entered tag followers' feeds by the tags it had.
    await publishStatusUpdate(tx, status.id);
    const before = await tx.select({ tagId: statusTags.tagId }).from(statusTags)
      .where(eq(statusTags.statusId, status.id));
    await setStatusTags(tx, status.id, composed.tagNames);
    await linkLocalEmojis(tx, { statusId: status.id }, [text, spoilerText, ...(newOptions ?? [])], {
      replace: true,
    });
    const after = await tx.select({ tagId: statusTags.tagId }).from(statusTags)
      .where(eq(statusTags.statusId, status.id));
    // Edits are rare: recount the featured tags the edit touched.
    await refreshFeaturedTagStats(tx, status.accountId, [
      ...new Set([...before, ...after].map((r) => r.tagId)),
    ]);
    await notifyEdit(tx, status, added.filter((id) => localMentioned.has(id)));
    await recordDelivery(tx, "statusUpdated", row.id, newId());
    await requestLinkCard(tx, ctx.config.origin, row, {
      hasMedia: mediaIds.length > 0,
      edited: true,
    });
    return row;
  });
  return updated;
}
