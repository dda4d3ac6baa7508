/**
 * Posting a status: the one command behind POST /api/v1/statuses, scheduled
 * publication and statuses that arrive from other servers.
 *
 * A local input carries the typed text (rendered here through the shared
 * formatter); a remote input carries sanitized HTML, its IRI and the
 * accounts and tags federation/ already resolved. Both end in one
 * transaction that writes the status, its mentions, tags, media links, poll
 * and quote, bumps the counters, fills the feeds (fanOutStatus) and records
 * notifications (notifyMentions, notify), and for a local status records the
 * Create for the relay (recordDelivery), so the delivery exists exactly when
 * the status does.
 *
 * Decisions (Mastodon's PostStatusService unless said otherwise):
 * - A reply must be to a status the author may see (404 otherwise, with
 *   Mastodon's message); a reply to a boost replies to the boosted status.
 * - Visibility defaults to the author's preference (a locked account's
 *   default is private). quote_approval_policy defaults to the preference and
 *   is `nobody` for private and direct statuses.
 * - Quotes follow the 4.5 rules: authors may quote their own posts except
 *   direct ones; others need a public or unlisted post whose policy lets
 *   them (public, or followers when they follow). Quoting one's own private
 *   post makes the quote private (or direct). A direct quote must mention
 *   the quoted author. Local quotes are accepted at once, remote ones wait
 *   for the other server (pending). Without a link to the quoted post in the
 *   text, a `quote-inline` RE: paragraph is prepended.
 * - Idempotency-Key: the same key from the same account within an hour
 *   answers the first status; the key row is written in the same
 *   transaction, so concurrent duplicates wait for the first and reuse it.
 * - statuses_count counts every status but direct ones, as Mastodon.
 */
import { and, eq, isNull, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import type { Executor } from "../../db/connection.ts";
import { idFromTime, newId } from "../../db/ids.ts";
import {
  accounts,
  conversations,
  follows,
  polls,
  quotes,
  statuses,
  users,
} from "../../db/schema/mod.ts";
import { findVisibleStatus } from "../../db/queries/visibility.ts";
import { preparedQuery } from "../../db/queries/prepared.ts";
import { fanOutStatus } from "../timelines/fanout.ts";
import { notify, notifyMentions, notifySubscribers } from "../notifications/notify.ts";
import { countInFeaturedTags } from "../tags/featured_tags.ts";
import { resolveSettings } from "../../model/user_settings.ts";
import { textToHtml } from "../formatting/text_to_html.ts";
import { composeText, type RemoteAccountResolver, resolveMentionAccounts } from "./compose.ts";
import {
  checkAllowedMentions,
  disallowedHashtags,
  invalid,
  QUOTE_NOT_FOUND,
  refuseUnlessLocalPoster,
  REPLY_NOT_FOUND,
  StatusError,
} from "./errors.ts";
import { unusableTags } from "../../db/queries/tags.ts";
import {
  attachMedia,
  insertPoll,
  insertRemoteMedia,
  ownMedia,
  type RemoteMediaInput,
  setMentions,
  setStatusTags,
} from "./rows.ts";
import {
  checkStatusInput,
  type PollInput,
  type QuotePolicyValue,
  type Visibility,
} from "./validation.ts";
import type { Config } from "../../config.ts";
import { recordDelivery } from "../outbox/deliveries.ts";
import { requestEmailDigest } from "../email_subscriptions/digest.ts";
import type { MissingLinks } from "../outbox/status_links.ts";
import { linkLocalEmojis, linkRemoteEmojis, type RemoteEmojiInput } from "../emoji/links.ts";
import { linkKnownCard, requestLinkCard } from "../cards/request.ts";
import { claimIdempotencyKey, findIdempotentStatus } from "./idempotency.ts";
import { parseText } from "../formatting/text_to_html.ts";

export { IDEMPOTENCY_TTL_MS } from "./idempotency.ts";

export type StatusRow = typeof statuses.$inferSelect;
type AccountRow = typeof accounts.$inferSelect;

/** What a local author asks to post. */
export interface LocalStatusInput {
  local: true;
  accountId: string;
  /** The typed text (may be blank with media or a poll). */
  text: string;
  applicationId?: string | null;
  mediaIds?: string[];
  poll?: PollInput | null;
  inReplyToId?: string | null;
  sensitive?: boolean;
  spoilerText?: string;
  /** Absent: the author's default. */
  visibility?: Visibility;
  /** Absent: the author's default language, if any. */
  language?: string | null;
  quotedStatusId?: string | null;
  /** Absent: the author's default. */
  quoteApprovalPolicy?: QuotePolicyValue;
  idempotencyKey?: string | null;
  /** When publishing a scheduled status: its id (its reserved media may be used). */
  scheduledStatusId?: string | null;
  /** Looks up remote accounts mentioned but not yet known (WebFinger). */
  resolveRemoteAccount?: RemoteAccountResolver;
  /** Mastodon 4.5's `allowed_mentions`: the only accounts it may mention (absent: any). */
  allowedMentions?: string[] | null;
}

export type { RemoteMediaInput } from "./rows.ts";

/** A status that arrived from another server, already sanitized and resolved. */
export interface RemoteStatusInput {
  local: false;
  accountId: string;
  uri: string;
  url?: string | null;
  /** Sanitized HTML. */
  content: string;
  spoilerText?: string;
  sensitive?: boolean;
  visibility: Visibility;
  language?: string | null;
  inReplyToId?: string | null;
  inReplyToUri?: string | null;
  /**
   * The thread's `context` IRI, when the other server sends one and owns it
   * (federation/ checks that). Used only when the status has no stored parent.
   */
  conversationUri?: string | null;
  mentionedAccountIds?: string[];
  tagNames?: string[];
  media?: RemoteMediaInput[];
  poll?: {
    options: string[];
    tallies?: number[];
    multiple: boolean;
    expiresAt: Date | null;
    votersCount?: number;
    uri?: string | null;
  } | null;
  quotedStatusId?: string | null;
  /** accepted when the quoted author's server approved it; pending otherwise. */
  quoteState?: string;
  quoteApprovalPolicy?: QuotePolicyValue;
  /** Emoji tags of the object (kept when the text uses them). */
  emojis?: RemoteEmojiInput[];
  createdAt?: Date;
  /** The parent or quoted post it names that were not fetched (over budget): fetched later. */
  missingLinks?: MissingLinks | null;
}

export type CreateStatusInput = LocalStatusInput | RemoteStatusInput;

/** Everything checked before the transaction opens. */
interface Prepared {
  id: string;
  uri: string;
  url: string | null;
  content: string;
  text: string | null;
  visibility: Visibility;
  quotePolicy: QuotePolicyValue;
  language: string | null;
  parent: StatusRow | null;
  quoted: StatusRow | null;
  quoteState: string | null;
  mentioned: string[];
  /** Mentioned accounts that live here (they get notifications). */
  localMentioned: Set<string>;
  tagNames: string[];
  createdAt: Date;
}

async function loadAuthor(db: Executor, accountId: string) {
  const [row] = await preparedQuery(
    db,
    "status_author",
    (db) =>
      db.select({ account: accounts, settings: users.settings }).from(accounts)
        .leftJoin(users, eq(users.accountId, accounts.id))
        .where(eq(accounts.id, sql.placeholder("id"))).limit(1),
  ).execute({ id: accountId });
  if (!row || row.account.deletedAt || row.account.suspendedAt) {
    throw new StatusError(404, "Record not found");
  }
  return row;
}

/** The boosted status behind a boost, or the status itself. */
async function proper(db: Executor, row: StatusRow): Promise<StatusRow | null> {
  if (!row.reblogOfId) return row;
  const [original] = await db.select().from(statuses).where(eq(statuses.id, row.reblogOfId));
  return original && !original.deletedAt ? original : null;
}

/** Applies the 4.5 quote rules; returns the visibility the quote gets. */
async function checkQuote(
  db: Executor,
  authorId: string,
  quoted: StatusRow,
  visibility: Visibility,
  mentioned: string[],
): Promise<Visibility> {
  const own = quoted.accountId === authorId;
  if (quoted.visibility === "direct") throw invalid("Quoted post cannot be quoted");
  if (!own) {
    if (quoted.visibility === "private") throw invalid("Quoted post cannot be quoted");
    const policy = quoted.quoteApprovalPolicy;
    let allowed = policy === "public";
    if (policy === "followers") {
      const [f] = await db.select({ id: follows.id }).from(follows).where(and(
        eq(follows.accountId, authorId),
        eq(follows.targetAccountId, quoted.accountId),
      )).limit(1);
      allowed = f != null;
    }
    if (!allowed) throw invalid("Quoting this post is not allowed by its author");
  }
  let result = visibility;
  if (quoted.visibility === "private") result = visibility === "direct" ? "direct" : "private";
  if (result === "direct" && !own && !mentioned.includes(quoted.accountId)) {
    throw invalid("A direct quote must mention the author of the quoted post");
  }
  return result;
}

async function prepareLocal(ctx: AppContext, input: LocalStatusInput): Promise<Prepared> {
  const db = ctx.database.db;
  const { config } = ctx;
  const { account, settings } = await loadAuthor(db, input.accountId);
  refuseUnlessLocalPoster(account);
  const prefs = resolveSettings(settings, account);
  const mediaIds = input.mediaIds ?? [];
  const text = input.text ?? "";
  // Parsed once: the length check, the mentions, the hashtags and the HTML
  // all read this parse.
  const parsed = parseText(text);
  const spoilerText = input.spoilerText ?? "";
  const language = checkStatusInput(config, {
    text: parsed,
    spoilerText,
    mediaCount: mediaIds.length,
    poll: input.poll,
    hasPoll: input.poll != null,
    language: input.language,
  }) ?? prefs.defaultLanguage;
  let visibility: Visibility = input.visibility ?? prefs.defaultPrivacy;

  let parent: StatusRow | null = null;
  if (input.inReplyToId) {
    const seen = await findVisibleStatus(db, account.id, input.inReplyToId);
    parent = seen ? await proper(db, seen) : null;
    if (!parent) throw new StatusError(404, REPLY_NOT_FOUND);
  }

  const mentionRows = await resolveMentionAccounts(
    db,
    config.domain,
    parsed,
    input.resolveRemoteAccount,
  );
  const composed = composeText(config.origin, parsed, mentionRows);
  const unusable = await unusableTags(db, composed.tagNames);
  if (unusable.length) throw disallowedHashtags(unusable);
  const byId = new Map<string, AccountRow>([...mentionRows.values()].map((a) => [a.id, a]));
  checkAllowedMentions(input.allowedMentions, composed.mentionedAccountIds, account.id);

  let quoted: StatusRow | null = null;
  if (input.quotedStatusId) {
    const seen = await findVisibleStatus(db, account.id, input.quotedStatusId);
    quoted = seen ? await proper(db, seen) : null;
    if (!quoted) throw new StatusError(404, QUOTE_NOT_FOUND);
    visibility = await checkQuote(db, account.id, quoted, visibility, composed.mentionedAccountIds);
  }
  let content = composed.content;
  if (quoted) {
    const link = quoted.url ?? quoted.uri;
    if (!text.includes(link) && !text.includes(quoted.uri)) {
      content = `<p class="quote-inline">RE: ${textToHtml(link, { origin: config.origin })}</p>` +
        content;
    }
  }
  const quotePolicy = visibility === "private" || visibility === "direct"
    ? "nobody"
    : input.quoteApprovalPolicy ?? prefs.defaultQuotePolicy;
  const id = newId();
  const uri = `${config.origin}/users/${account.username}/statuses/${id}`;
  const url = `${config.origin}/@${account.username}/${id}`;
  return {
    id,
    uri,
    url,
    content,
    text,
    visibility,
    quotePolicy,
    language,
    parent,
    quoted,
    quoteState: quoted ? (quoted.local ? "accepted" : "pending") : null,
    mentioned: composed.mentionedAccountIds.filter((m) => m !== account.id),
    localMentioned: new Set(
      composed.mentionedAccountIds.filter((m) => byId.get(m)?.domain == null),
    ),
    tagNames: composed.tagNames,
    createdAt: new Date(),
  };
}

async function prepareRemote(ctx: AppContext, input: RemoteStatusInput): Promise<Prepared> {
  const db = ctx.database.db;
  const createdAt = input.createdAt ?? new Date();
  let parent: StatusRow | null = null;
  if (input.inReplyToId) {
    const [row] = await db.select().from(statuses).where(eq(statuses.id, input.inReplyToId));
    parent = row ?? null;
  }
  let quoted: StatusRow | null = null;
  if (input.quotedStatusId) {
    const [row] = await db.select().from(statuses).where(eq(statuses.id, input.quotedStatusId));
    quoted = row ?? null;
  }
  const mentioned = [...new Set(input.mentionedAccountIds ?? [])];
  const local = mentioned.length
    ? await db.select({ id: accounts.id }).from(accounts)
      .where(and(
        sql`${accounts.id} IN (${sql.join(mentioned.map((m) => sql`${m}::bigint`), sql`, `)})`,
        sql`${accounts.domain} IS NULL`,
      ))
    : [];
  return {
    id: idFromTime(createdAt),
    uri: input.uri,
    url: input.url ?? null,
    content: input.content,
    text: null,
    visibility: input.visibility,
    quotePolicy: input.quoteApprovalPolicy ?? "nobody",
    language: input.language ?? null,
    parent,
    quoted,
    quoteState: quoted ? input.quoteState ?? "pending" : null,
    mentioned: mentioned.filter((m) => m !== input.accountId),
    localMentioned: new Set(local.map((r) => r.id)),
    tagNames: input.tagNames ?? [],
    createdAt,
  };
}

/** Links the custom emoji the status's text, warning and poll options use. */
async function linkStatusEmojis(tx: Executor, input: CreateStatusInput, status: StatusRow) {
  const texts = [status.text ?? status.content, status.spoilerText, ...(input.poll?.options ?? [])];
  if (input.local) {
    await linkLocalEmojis(tx, { statusId: status.id }, texts, { replace: false });
  } else if (input.emojis?.length) {
    const [author] = await tx.select({ domain: accounts.domain }).from(accounts)
      .where(eq(accounts.id, input.accountId));
    if (!author?.domain) return;
    await linkRemoteEmojis(tx, { statusId: status.id }, author.domain, input.emojis, texts, {
      replace: false,
    });
  }
}

/** Signals that the transaction should end and answer an earlier status. */
class Duplicate extends Error {
  constructor(readonly statusId: string) {
    super("duplicate");
  }
}

/**
 * Posts a status (local or remote) and returns its row. For a remote input
 * whose IRI is already stored, the stored row is returned unchanged.
 * Throws {@link StatusError} for refused input.
 */
export async function createStatus(
  ctx: AppContext,
  input: CreateStatusInput,
): Promise<StatusRow> {
  const db = ctx.database.db;
  if (input.local && input.idempotencyKey) {
    const earlier = await findIdempotentStatus(db, input.accountId, input.idempotencyKey);
    if (earlier) return earlier;
  }
  if (!input.local) {
    const [known] = await db.select().from(statuses).where(eq(statuses.uri, input.uri));
    if (known) return known;
  }
  const p = input.local ? await prepareLocal(ctx, input) : await prepareRemote(ctx, input);
  let status: StatusRow;
  try {
    status = await db.transaction(async (tx) =>
      await write(tx, ctx.config.origin, input, p, ctx.config.emailSubscriptions)
    );
  } catch (error) {
    if (error instanceof Duplicate) {
      const [row] = await db.select().from(statuses).where(eq(statuses.id, error.statusId));
      if (row) return row;
    }
    throw error;
  }
  return status;
}

/** The columns a new status row is written with (each a placeholder of the prepared INSERT). */
const INSERTED_COLUMNS = [
  "id",
  "uri",
  "url",
  "accountId",
  "local",
  "visibility",
  "content",
  "text",
  "spoilerText",
  "sensitive",
  "language",
  "inReplyToId",
  "inReplyToAccountId",
  "inReplyToUri",
  "conversationId",
  "applicationId",
  "pollId",
  "quotedStatusId",
  "quoteApprovalPolicy",
  "createdAt",
] as const;
type InsertedColumn = (typeof INSERTED_COLUMNS)[number];
const INSERT_PLACEHOLDERS = Object.fromEntries(
  INSERTED_COLUMNS.map((c) => [c, sql.placeholder(c)]),
) as unknown as typeof statuses.$inferInsert;

async function write(
  tx: Executor,
  origin: string,
  input: CreateStatusInput,
  p: Prepared,
  digest: Config["emailSubscriptions"],
): Promise<StatusRow> {
  if (input.local && input.idempotencyKey) {
    const earlier = await claimIdempotencyKey(tx, input.accountId, input.idempotencyKey, p.id);
    if (earlier) throw new Duplicate(earlier);
  }
  const media = input.local
    ? await ownMedia(
      tx,
      input.accountId,
      input.mediaIds ?? [],
      null,
      input.scheduledStatusId ?? null,
    )
    : [];
  // The parent first, counted only if it is still there: a delete of it in
  // progress is waited for, one that committed since it was read (or a
  // deleted parent a remote reply names) leaves it out, and its row stays
  // locked until this commits, so a delete that comes next waits for the reply.
  let parent = p.parent;
  if (parent) {
    const [live] = await tx.update(statuses)
      .set({ repliesCount: sql`${statuses.repliesCount} + 1` })
      .where(and(eq(statuses.id, parent.id), isNull(statuses.deletedAt)))
      .returning({ conversationId: statuses.conversationId });
    if (!live && input.local) throw new StatusError(404, REPLY_NOT_FOUND);
    parent = live ? { ...parent, conversationId: live.conversationId } : null;
  }
  // A reply joins its parent's conversation and only that one; only a
  // remote status without a stored parent goes by its `context`.
  let conversationId = parent?.conversationId ?? null;
  if (!parent && !input.local && input.conversationUri) {
    await tx.insert(conversations).values({ id: newId(), uri: input.conversationUri })
      .onConflictDoNothing();
    const [c] = await tx.select({ id: conversations.id }).from(conversations)
      .where(eq(conversations.uri, input.conversationUri));
    conversationId = c.id;
  }
  if (!conversationId) {
    conversationId = newId();
    await preparedQuery(
      tx,
      "new_conversation",
      (db) => db.insert(conversations).values({ id: sql.placeholder("id") }),
    ).execute({
      id: conversationId,
    });
    if (parent) {
      await tx.update(statuses).set({ conversationId }).where(eq(statuses.id, parent.id));
    }
  }
  const pollId = input.poll ? newId() : null;
  const [status] = await preparedQuery(
    tx,
    "insert_status",
    (db) => db.insert(statuses).values(INSERT_PLACEHOLDERS).returning(),
  ).execute(
    {
      id: p.id,
      uri: p.uri,
      url: p.url,
      accountId: input.accountId,
      local: input.local,
      visibility: p.visibility,
      content: p.content,
      text: p.text,
      spoilerText: input.spoilerText ?? "",
      sensitive: (input.sensitive ?? false) || (input.spoilerText ?? "") !== "",
      language: p.language,
      inReplyToId: parent?.id ?? null,
      inReplyToAccountId: parent?.accountId ?? null,
      inReplyToUri: parent?.uri ??
        (!input.local ? input.inReplyToUri ?? p.parent?.uri ?? null : null),
      conversationId,
      applicationId: input.local ? input.applicationId ?? null : null,
      pollId,
      quotedStatusId: p.quoted?.id ?? null,
      quoteApprovalPolicy: p.quotePolicy,
      createdAt: p.createdAt,
    } satisfies Record<InsertedColumn, unknown>,
  );

  // The status row was inserted just above: nothing to replace or compare.
  await setMentions(tx, status.id, p.mentioned, true);
  await setStatusTags(tx, status.id, p.tagNames, true);
  await linkStatusEmojis(tx, input, status);
  if (input.local) {
    if (p.tagNames.length) await countInFeaturedTags(tx, status, 1);
    if (media.length) await attachMedia(tx, status.id, media.map((m) => m.id));
    if (input.poll) await insertPoll(tx, input.accountId, status.id, input.poll, { id: pollId! });
  } else {
    await insertRemoteMedia(tx, input.accountId, status.id, input.media ?? []);
    if (input.poll) {
      await tx.insert(polls).values({
        id: pollId!,
        accountId: input.accountId,
        statusId: status.id,
        uri: input.poll.uri ?? null,
        options: input.poll.options,
        tallies: input.poll.tallies ?? input.poll.options.map(() => 0),
        multiple: input.poll.multiple,
        votesCount: (input.poll.tallies ?? []).reduce((a, b) => a + b, 0),
        votersCount: input.poll.votersCount ?? 0,
        expiresAt: input.poll.expiresAt,
      });
    }
  }
  if (p.quoted) {
    await tx.insert(quotes).values({
      id: newId(),
      statusId: status.id,
      quotedStatusId: p.quoted.id,
      accountId: input.accountId,
      quotedAccountId: p.quoted.accountId,
      state: p.quoteState ?? "pending",
    });
    if (p.quoteState === "accepted") {
      await tx.update(statuses).set({ quotesCount: sql`${statuses.quotesCount} + 1` })
        .where(eq(statuses.id, p.quoted.id));
    }
  }
  const cardSettled = await linkKnownCard(tx, origin, status, media.length > 0);
  // The Create and the card job are promised with the status itself.
  if (input.local) await recordDelivery(tx, "statusCreated", status.id);
  // Its e-mail subscribers' digest, when it has any (Mastodon 4.7).
  await requestEmailDigest(tx, digest, status);
  if (!input.local && input.missingLinks) {
    await recordDelivery(tx, "statusLinksRequested", status.id, input.missingLinks);
  }
  await requestLinkCard(tx, origin, status, { hasMedia: media.length > 0, settled: cardSettled });
  await fanOutStatus(tx, status);
  // Followers who rang the bell for this account get `status`.
  await notifySubscribers(tx, status);
  // The mentioned local accounts, all at once (the rules and policies are
  // screened in one query, the notifications inserted in one statement).
  await notifyMentions(tx, status, p.mentioned.filter((id) => p.localMentioned.has(id)));
  if (p.quoted && p.quoted.local && p.quoted.accountId !== input.accountId) {
    await notify(tx, {
      type: "quote",
      accountId: p.quoted.accountId,
      fromAccountId: input.accountId,
      statusId: status.id,
    });
  }
  // Last, just before COMMIT: this UPDATE locks the author's row until the
  // transaction ends, so an author's concurrent posts wait for each other
  // only for the commit, not for the fan-out and notifications as well.
  await preparedQuery(tx, "count_new_status", (db) =>
    db.update(accounts).set({
      statusesCount: sql`${accounts.statusesCount} + ${sql.placeholder("counted")}::int`,
      lastStatusAt: sql`${sql.placeholder("at")}::timestamptz`,
    }).where(eq(accounts.id, sql.placeholder("id")))).execute({
      counted: p.visibility === "direct" ? 0 : 1,
      at: p.createdAt.toISOString(),
      id: input.accountId,
    });
  return status;
}
