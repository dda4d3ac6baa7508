/**
 * Editing a local status (PUT /api/v1/statuses/:id), as Mastodon's
 * UpdateStatusService does it:
 * - The first edit stores the original version in `status_edits` (dated as
 *   the status), then every edit stores the new version, so the history
 *   lists every version oldest first (edits.ts).
 * - Only what is sent changes; text, content warning, sensitivity, language,
 *   media (with descriptions and focus) and the poll may change. A changed
 *   poll (options, multiple) starts over: votes are dropped.
 * - Mentions, hashtags and custom emoji are read again from the new text,
 *   parsed once as a post's is; newly mentioned local accounts get a mention
 *   notification; local accounts that boosted the status get an `update`
 *   notification.
 * - The feeds that hold the status hear of it (`status.update`, see
 *   publishStatusUpdate in ../timelines/fanout.ts).
 */
import type { PolicyInput } from "../../model/interaction_policy.ts";
import { changedPolicy } from "./interaction_policy.ts";
import { eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import type { Config } from "../../config.ts";
import type { Executor } from "../../db/connection.ts";
import { newId } from "../../db/ids.ts";
import { mediaAttachments, polls, statuses, statusTags } from "../../db/schema/mod.ts";
import { requestLinkCard } from "../cards/request.ts";
import { linkTaggedCollections } from "../collections/tagged.ts";
import { linkLocalEmojis } from "../emoji/links.ts";
import {
  type MentionedAccount,
  type RemoteAccountResolver,
  resolveMentionAccounts,
} from "../formatting/mentions.ts";
import { type ParsedText, parseText } from "../formatting/parsed_text.ts";
import { recordDelivery } from "../outbox/deliveries.ts";
import { refreshFeaturedTagStats } from "../tags/featured_tags.ts";
import { checkUsableTags, type ComposedText, composeText } from "./compose.ts";
import { invalid } from "./errors.ts";
import type { StatusRow } from "./create.ts";
import {
  keepOriginalVersion,
  recordVersion,
  replaceMentionsAndTags,
  statusMediaIds,
} from "./edits.ts";
import { attachMedia, authoredStatus, insertPoll, notifyEdit, ownMedia } from "./rows.ts";
import { checkStatusInput, type PollInput } from "./validation.ts";
import type { QuotePolicy } from "../../model/quote_policy.ts";

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
  /** GoToSocial's InteractionPolicy; sub-policies left out keep the status's (issue 34). */
  interactionPolicy?: PolicyInput;
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

async function pollOptions(db: Executor, pollId: string | null): Promise<string[] | null> {
  if (!pollId) return null;
  const [row] = await db.select({ options: polls.options }).from(polls)
    .where(eq(polls.id, pollId));
  return row?.options ?? null;
}

/**
 * The new version of `status` that `input` asks for, checked (422
 * otherwise). The same text as `earlier` (the early read) is not parsed again.
 */
async function planEdit(
  db: Executor,
  config: Config,
  input: EditStatusInput,
  status: StatusRow,
  earlier?: { text: string; parsed: ParsedText },
) {
  const text = input.text ?? status.text ?? "";
  const parsed = earlier?.text === text ? earlier.parsed : parseText(text);
  const spoilerText = input.spoilerText ?? status.spoilerText;
  const mediaIds = input.mediaIds ?? await statusMediaIds(db, status.id);
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

type PlannedEdit = Awaited<ReturnType<typeof planEdit>>;

/** The text as first read, with its mentions resolved before the transaction. */
interface EarlyText {
  text: string;
  parsed: ParsedText;
  mentioned: Map<string, MentionedAccount>;
  /** The remote handles looked up then, answered again from memory. */
  remembered: RemoteAccountResolver;
}

/** Resolves the mentions of the text as first read; remote look-ups are remembered. */
async function resolveEarly(
  db: Executor,
  config: Config,
  early: PlannedEdit,
  resolver: RemoteAccountResolver | undefined,
): Promise<EarlyText> {
  const looked = new Map<string, MentionedAccount | null>();
  const mentioned = await resolveMentionAccounts(
    db,
    config.domain,
    [early.parsed],
    resolver
      ? async (handle) => {
        const row = await resolver(handle);
        looked.set(handle.toLowerCase(), row);
        return row;
      }
      : undefined,
  );
  const remembered = (handle: string) => Promise.resolve(looked.get(handle.toLowerCase()) ?? null);
  return { text: early.text, parsed: early.parsed, mentioned, remembered };
}

/**
 * The new text composed inside the transaction. The text differs from the
 * early read only when another edit changed it meanwhile: the early parse
 * (planEdit) and mentions serve otherwise. A quote keeps its `RE:` paragraph.
 */
async function composeEdit(
  tx: Executor,
  config: Config,
  status: StatusRow,
  planned: PlannedEdit,
  early: EarlyText,
): Promise<ComposedText> {
  const mentioned = planned.parsed === early.parsed
    ? early.mentioned
    : await resolveMentionAccounts(tx, config.domain, [planned.parsed], early.remembered);
  const composed = composeText(config.origin, planned.parsed, mentioned);
  await checkUsableTags(tx, composed.tagNames);
  const quoteInline = /^<p class="quote-inline">.*?<\/p>/.exec(status.content)?.[0];
  if (!status.quotedStatusId || !quoteInline) return composed;
  return { ...composed, content: quoteInline + composed.content };
}

/** The description and focus changes of the attachments the new version keeps. */
async function applyMediaAttributes(
  tx: Executor,
  attributes: readonly MediaAttributeInput[],
  mediaIds: readonly string[],
  focusById: ReadonlyMap<string, { x: number; y: number }>,
): Promise<void> {
  for (const attr of attributes) {
    if (!mediaIds.includes(attr.id)) continue;
    const [m] = await tx.select({ meta: mediaAttachments.meta }).from(mediaAttachments)
      .where(eq(mediaAttachments.id, attr.id));
    const focus = focusById.get(attr.id);
    await tx.update(mediaAttachments).set({
      ...(attr.description !== undefined ? { description: attr.description } : {}),
      ...(focus ? { meta: { ...(m?.meta ?? {}), focus } } : {}),
    }).where(eq(mediaAttachments.id, attr.id));
  }
}

/**
 * The poll an edit asks for (null removes it): the same options keep the
 * poll and its votes (its settings and end change); other options start a
 * new poll. Answers the status's poll and options after it.
 */
async function replacePoll(
  tx: Executor,
  status: StatusRow,
  poll: PollInput | null,
  oldOptions: string[] | null,
  now: Date,
): Promise<{ pollId: string | null; options: string[] | null }> {
  const same = poll && oldOptions &&
    JSON.stringify(poll.options.map((o) => o.trim())) === JSON.stringify(oldOptions);
  if (same) {
    if (status.pollId) {
      await tx.update(polls).set({
        multiple: poll.multiple,
        hideTotals: poll.hideTotals,
        expiresAt: new Date(now.getTime() + poll.expiresIn * 1000),
      }).where(eq(polls.id, status.pollId));
    }
    return { pollId: status.pollId, options: oldOptions };
  }
  if (status.pollId) await tx.delete(polls).where(eq(polls.id, status.pollId));
  if (!poll) return { pollId: null, options: null };
  const row = await insertPoll(tx, status.accountId, status.id, poll, { now });
  return { pollId: row.id, options: row.options };
}

/** Relinks the tags and emoji of the new version; recounts the featured tags it touched. */
async function retagEdit(
  tx: Executor,
  status: StatusRow,
  composed: ComposedText,
  emojiTexts: (string | ParsedText)[],
): Promise<string[]> {
  const tagsOf = async () =>
    (await tx.select({ tagId: statusTags.tagId }).from(statusTags)
      .where(eq(statusTags.statusId, status.id))).map((r) => r.tagId);
  const before = await tagsOf();
  const added = await replaceMentionsAndTags(
    tx,
    status,
    composed.mentionedAccountIds,
    composed.tagNames,
  );
  await linkLocalEmojis(tx, { statusId: status.id }, emojiTexts, { replace: true });
  // Edits are rare: recount the featured tags the edit touched.
  await refreshFeaturedTagStats(tx, status.accountId, [...new Set([...before, ...await tagsOf()])]);
  return added;
}

/** Applies the edit to the locked row (see {@link editStatus}). */
async function applyEdit(
  tx: Executor,
  ctx: AppContext,
  input: EditStatusInput,
  early: EarlyText,
): Promise<StatusRow> {
  const { config } = ctx;
  const status = await ownStatus(tx, input.accountId, input.statusId, { lock: true });
  const planned = await planEdit(tx, config, input, status, early);
  const { text, parsed, spoilerText, mediaIds, language } = planned;
  const oldOptions = await pollOptions(tx, status.pollId);
  const composed = await composeEdit(tx, config, status, planned, early);
  const now = new Date();
  await ownMedia(tx, input.accountId, mediaIds, status.id);
  await keepOriginalVersion(tx, status, oldOptions);
  await applyMediaAttributes(tx, input.mediaAttributes ?? [], mediaIds, planned.focusById);
  await attachMedia(tx, status.id, mediaIds);
  const poll = input.poll === undefined
    ? { pollId: status.pollId, options: oldOptions }
    : await replacePoll(tx, status, input.poll, oldOptions, now);
  const policy = changedPolicy(status, {
    quotePolicy: input.quoteApprovalPolicy,
    interactionPolicy: input.interactionPolicy,
  });
  const [row] = await tx.update(statuses).set({
    text,
    content: composed.content,
    spoilerText,
    sensitive: (input.sensitive ?? status.sensitive) || spoilerText !== "",
    language,
    pollId: poll.pollId,
    // Who may interact is not part of the version history.
    quoteApprovalPolicy: policy.quotePolicy,
    interactionPolicy: policy.interactionPolicy,
    editedAt: now,
  }).where(eq(statuses.id, status.id)).returning();
  await recordVersion(tx, status, {
    text,
    content: composed.content,
    spoilerText,
    sensitive: row.sensitive,
    mediaAttachmentIds: mediaIds,
    pollOptions: poll.options,
    createdAt: now,
  });
  const added = await retagEdit(tx, status, composed, [
    parsed,
    spoilerText,
    ...(poll.options ?? []),
  ]);
  await notifyEdit(tx, status, added.filter((id) => composed.localAccountIds.has(id)));
  await recordDelivery(tx, "statusUpdated", row.id, newId());
  await requestLinkCard(tx, config.origin, row, { hasMedia: mediaIds.length > 0, edited: true });
  await linkTaggedCollections(tx, config.origin, row, { edited: true });
  return row;
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
  const db = ctx.database.db;
  const seen = await ownStatus(db, input.accountId, input.statusId);
  const planned = await planEdit(db, ctx.config, input, seen);
  const early = await resolveEarly(db, ctx.config, planned, input.resolveRemoteAccount);
  return await db.transaction((tx) => applyEdit(tx, ctx, input, early));
}
