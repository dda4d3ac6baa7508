/**
 * The posting transaction of createStatus (create.ts), local and remote
 * alike: the status row in its thread, the rows that belong to it
 * (mentions, tags, emoji, media, poll, quote), what it sets off (its card,
 * its deliveries, the feeds, the notifications) and, last, the author's
 * counters. Everything was checked before (prepare_local.ts,
 * prepare_remote.ts); a refusal here is only what changed meanwhile.
 */
import { and, eq, isNull, sql } from "drizzle-orm";
import { type Executor, statementsPipelined } from "../../db/connection.ts";
import { newId } from "../../db/ids.ts";
import { executePrepared, preparedQuery } from "../../db/queries/prepared.ts";
import { accounts, conversations, quotes, statuses } from "../../db/schema/mod.ts";
import { linkKnownCard, requestLinkCard } from "../cards/request.ts";
import { linkTaggedCollections } from "../collections/tagged.ts";
import { linkLocalEmojis, linkRemoteEmojis } from "../emoji/links.ts";
import type { ParsedText } from "../formatting/parsed_text.ts";
import { notify, notifyMany, notifyMentions, notifySubscribers } from "../notifications/notify.ts";
import { recordDelivery } from "../outbox/deliveries.ts";
import { countInFeaturedTags } from "../tags/featured_tags.ts";
import {
  type FanOutRider,
  fanOutStatus,
  fanOutToFeeds,
  FULL_FAN_OUT,
} from "../timelines/fanout.ts";
import type { CreateStatusInput, RemoteStatusInput, StatusRow } from "./create.ts";
import { REPLY_NOT_FOUND, StatusError } from "./errors.ts";
import { claimIdempotencyKey } from "./idempotency.ts";
import {
  attachMedia,
  insertPoll,
  insertRemoteMedia,
  insertRemotePoll,
  ownMedia,
  setMentions,
  setStatusTags,
} from "./rows.ts";
import type { Visibility } from "../../model/visibility.ts";
import type { QuotePolicy } from "../../model/quote_policy.ts";
import { recordJob } from "../outbox/jobs.ts";
import { requestCopies } from "../media/remote_cache/at_receipt.ts";
import { type DigestTiming, requestEmailDigest } from "../email_subscriptions/digest.ts";
import type { StoredPolicy } from "../../model/interaction_policy.ts";
import { holdReply, replyHeld } from "./held_replies.ts";

/** Everything checked before the transaction opens. */
export interface PreparedStatus {
  id: string;
  uri: string;
  url: string | null;
  content: string;
  /** The typed text (local statuses), and its parse, which the emoji are read from. */
  text: string | null;
  parsed: ParsedText | null;
  visibility: Visibility;
  quotePolicy: QuotePolicy;
  language: string | null;
  parent: StatusRow | null;
  quoted: StatusRow | null;
  quoteState: string | null;
  mentioned: string[];
  /** Mentioned accounts that live here (they get notifications). */
  localMentioned: Set<string>;
  tagNames: string[];
  createdAt: Date;
  /** The policy stored with the status (NULL: the built-in defaults, or a remote unaware one). */
  interactionPolicy: StoredPolicy | null;
}

/** Signals that the transaction should end and answer an earlier status. */
export class Duplicate extends Error {
  constructor(readonly statusId: string) {
    super("duplicate");
  }
}

/** The parent a new status replies to (null when gone) and the conversation it joins. */
interface Thread {
  parent: StatusRow | null;
  conversationId: string;
  /** A new conversation, not written yet: its INSERT goes with the status's. */
  fresh?: boolean;
}

/**
 * The parent first, counted only if it is still there: a delete of it in
 * progress is waited for, one that committed since it was read (or a
 * deleted parent a remote reply names) leaves it out, and its row stays
 * locked until this commits, so a delete that comes next waits for the
 * reply. A reply joins its parent's conversation and only that one; only a
 * remote status without a stored parent goes by its `context`.
 */
async function joinThread(
  tx: Executor,
  input: CreateStatusInput,
  p: PreparedStatus,
  held: boolean,
): Promise<Thread> {
  let parent = p.parent;
  if (parent) {
    // A held reply counts when approved; the parent is locked all the same.
    const [live] = await tx.update(statuses)
      .set({ repliesCount: sql`${statuses.repliesCount} + ${held ? 0 : 1}::int` })
      .where(and(eq(statuses.id, parent.id), isNull(statuses.deletedAt)))
      .returning({ conversationId: statuses.conversationId });
    if (!live && input.local) throw new StatusError(404, REPLY_NOT_FOUND);
    parent = live ? { ...parent, conversationId: live.conversationId } : null;
  }
  if (parent?.conversationId) return { parent, conversationId: parent.conversationId };
  if (!parent && !input.local && input.conversationUri) {
    return { parent, conversationId: await conversationNamed(tx, input.conversationUri) };
  }
  const conversationId = newId();
  if (!parent) return { parent, conversationId, fresh: true };
  await insertConversation(tx, conversationId);
  await tx.update(statuses).set({ conversationId }).where(eq(statuses.id, parent.id));
  return { parent, conversationId };
}

/** A new conversation's row. */
function insertConversation(tx: Executor, id: string): Promise<unknown> {
  return preparedQuery(
    tx,
    "new_conversation",
    (db) => db.insert(conversations).values({ id: sql.placeholder("id") }),
  ).execute({ id });
}

/**
 * The conversation a remote `context` names, made when new, in one
 * statement. Its SELECT sees the table as the statement began: when another
 * transaction made the row meanwhile (the INSERT waited for it and did
 * nothing), the row is read again.
 */
async function conversationNamed(tx: Executor, uri: string): Promise<string> {
  const [made] = await executePrepared<{ id: string }>(
    tx,
    "conversation_named",
    () =>
      sql`WITH made AS (INSERT INTO conversations (id, uri)
          VALUES (${sql.placeholder("id")}, ${sql.placeholder("uri")})
          ON CONFLICT DO NOTHING RETURNING id)
        SELECT id::text AS id FROM made
        UNION ALL SELECT id::text FROM conversations WHERE uri = ${sql.placeholder("uri")}
        LIMIT 1`,
    { id: newId(), uri },
  );
  if (made) return made.id;
  const [c] = await tx.select({ id: conversations.id }).from(conversations)
    .where(eq(conversations.uri, uri));
  return c.id;
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
  "interactionPolicy",
  "pendingApproval",
  "approvedByUri",
  "cardLink",
  "createdAt",
] as const;
type InsertedColumn = (typeof INSERTED_COLUMNS)[number];
const INSERT_PLACEHOLDERS = Object.fromEntries(
  INSERTED_COLUMNS.map((c) => [c, sql.placeholder(c)]),
) as unknown as typeof statuses.$inferInsert;

async function insertStatusRow(
  tx: Executor,
  input: CreateStatusInput,
  p: PreparedStatus,
  { parent, conversationId }: Thread,
  pollId: string | null,
  held: boolean,
): Promise<StatusRow> {
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
      interactionPolicy: p.interactionPolicy,
      pendingApproval: held,
      approvedByUri: input.local ? null : input.approvedByUri ?? null,
      cardLink: input.local ? null : input.cardLink ?? null,
      createdAt: p.createdAt,
    } satisfies Record<InsertedColumn, unknown>,
  );
  return status;
}

/** Links the custom emoji the status's text, warning and poll options use. */
async function linkStatusEmojis(
  tx: Executor,
  input: CreateStatusInput,
  p: PreparedStatus,
  status: StatusRow,
) {
  const texts = [p.parsed ?? status.content, status.spoilerText, ...(input.poll?.options ?? [])];
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

/** The rows that belong to the new status: mentions, tags, emoji, media and poll. */
async function writeParts(
  tx: Executor,
  input: CreateStatusInput,
  p: PreparedStatus,
  status: StatusRow,
  mediaIds: string[],
  pollId: string | null,
) {
  // The status row was inserted just above: nothing to replace or compare.
  await setMentions(tx, status.id, p.mentioned, true);
  await setStatusTags(tx, status.id, p.tagNames, true);
  await linkStatusEmojis(tx, input, p, status);
  if (input.local) {
    if (p.tagNames.length) await countInFeaturedTags(tx, status, 1);
    if (mediaIds.length) await attachMedia(tx, status.id, mediaIds);
    if (input.poll) await insertPoll(tx, input.accountId, status.id, input.poll, { id: pollId! });
  } else {
    await insertRemoteMedia(tx, input.accountId, status.id, input.media ?? []);
    // Its files are copied now, not when first shown (Mastodon's way).
    await requestCopies(tx, { statusId: status.id }, input);
    if (input.poll) {
      await insertRemotePoll(tx, pollId!, status, {
        ...input.poll,
        tallies: input.poll.tallies ?? input.poll.options.map(() => 0),
        votersCount: input.poll.votersCount ?? 0,
        uri: input.poll.uri ?? null,
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
}

/** What {@link announce} needs besides the status row. */
export interface Announced {
  hasMedia: boolean;
  /** The mentioned local accounts to notify. */
  notified: string[];
  quoted: StatusRow | null;
  missingLinks?: RemoteStatusInput["missingLinks"];
  /** The feeds and the bell's subscribers were done with the row ({@link announcedWithRow}). */
  fannedOut?: boolean;
}

/**
 * What a status sets off once it stands (when written, or when a held
 * reply is approved): its card, its deliveries, the feeds, the notifications.
 */
export async function announce(tx: Executor, origin: string, status: StatusRow, a: Announced) {
  const cardSettled = await linkKnownCard(tx, origin, status, a.hasMedia);
  // The Create and the card job are promised with the status itself.
  if (status.local) await recordDelivery(tx, "statusCreated", status.id);
  if (!status.local && a.missingLinks) {
    await recordJob(tx, { job: "status_links", statusId: status.id, missing: a.missingLinks });
  }
  await requestLinkCard(tx, origin, status, { hasMedia: a.hasMedia, settled: cardSettled });
  await linkTaggedCollections(tx, origin, status);
  // The feeds, and the followers who rang the bell for this account
  // (`status`): independent, so on PostgreSQL their statements go out
  // together (one round trip on the transaction's connection, in this
  // order). On PGlite, which runs them one after the other, a status the
  // fan-out found no local follower for rings no bell either, and the
  // fan-out's probe read the bell's followers.
  if (a.fannedOut) {
    // Sent with the status's INSERT (announceWithRow).
  } else if (statementsPipelined(tx)) {
    await Promise.all([fanOutStatus(tx, status), notifySubscribers(tx, status)]);
  } else {
    const fannedOut = await fanOutStatus(tx, status);
    if (fannedOut.reached) await notifySubscribers(tx, status, fannedOut.subscribers);
  }
  // The mentioned local accounts, all at once (the rules and policies are
  // screened in one query, the notifications inserted in one statement).
  await notifyMentions(tx, status, a.notified);
  if (a.quoted && a.quoted.local && a.quoted.accountId !== status.accountId) {
    await notify(tx, {
      type: "quote",
      accountId: a.quoted.accountId,
      fromAccountId: status.accountId,
      statusId: status.id,
    });
  }
}

/**
 * The author's counter. A local author's: last, just before COMMIT: this
 * UPDATE locks the author's row until the transaction ends, so an author's
 * concurrent posts wait for each other only for the commit, not for the
 * fan-out and notifications as well. (Sent together with announce's
 * statements it saved a round trip but cost an author posting from many
 * connections a third of its rate.) A remote author's: with the status's
 * INSERT, a round trip less: its statuses arrive one at a time (one actor's
 * activities are applied in order, federation/inbox/order.ts), so holding
 * the row for the whole transaction holds up no other post of its.
 */
async function countNewStatus(tx: Executor, accountId: string, p: PreparedStatus) {
  await preparedQuery(tx, "count_new_status", (db) =>
    db.update(accounts).set({
      statusesCount: sql`${accounts.statusesCount} + ${sql.placeholder("counted")}::int`,
      lastStatusAt: sql`${sql.placeholder("at")}::timestamptz`,
    }).where(eq(accounts.id, sql.placeholder("id")))).execute({
      counted: p.visibility === "direct" ? 0 : 1,
      at: p.createdAt.toISOString(),
      id: accountId,
    });
}

/**
 * The answers of statements sent together, or the first failure in the
 * order they were sent. A failed statement aborts the transaction and those
 * after it fail too ("current transaction is aborted"); Promise.all would
 * reject with whichever failure reached it first through its callers'
 * awaits, and that may hide the cause: a unique violation of the status's
 * INSERT is how a status stored meanwhile by another worker is recognised
 * (federation/remote/statuses.ts).
 */
async function inOrder<T extends readonly unknown[]>(
  sent: T,
): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const settled = await Promise.allSettled(sent);
  for (const s of settled) if (s.status === "rejected") throw s.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value) as {
    -readonly [K in keyof T]: Awaited<T[K]>;
  };
}

/** Writes a prepared status in the caller's transaction; throws {@link Duplicate} for a key reused. */
export async function writeStatus(
  tx: Executor,
  origin: string,
  input: CreateStatusInput,
  p: PreparedStatus,
  digest: DigestTiming,
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
  const unverified = !input.local && input.unverified === true && input.missingLinks != null;
  const held = unverified || await replyHeld(tx, origin, input, p);
  const thread = await joinThread(tx, input, p, held);
  const pollId = input.poll ? newId() : null;
  // A new conversation's INSERT (no foreign key) rides with the status's: one round trip.
  // So do a remote author's counter (see countNewStatus for a local one's)
  // and, for most remote statuses, the fan-out with the other two in it (announceWithRow).
  const fannedOut = !input.local && fanOutWithRow(tx, p, held || unverified);
  const [status] = await inOrder([
    insertStatusRow(tx, input, p, thread, pollId, held),
    thread.fresh && !fannedOut ? insertConversation(tx, thread.conversationId) : null,
    input.local || fannedOut ? null : countNewStatus(tx, input.accountId, p),
    fannedOut ? announceWithRow(tx, input, p, thread) : null,
  ]);
  await writeParts(tx, input, p, status, media.map((m) => m.id), pollId);
  if (unverified) {
    // Neither side is ours: no request to anyone, only the job that checks its proof.
    await recordJob(tx, { job: "status_links", statusId: status.id, missing: input.missingLinks! });
  } else if (held) await holdReply(tx, status, thread.parent);
  else await announceNew(tx, origin, status, input, p, media.length > 0, digest, fannedOut);
  if (input.local) await countNewStatus(tx, input.accountId, p);
  return status;
}

/**
 * On PostgreSQL, whether a remote status's home and list fan-out goes right
 * behind its INSERT, in the same round trip (it runs after the INSERT on
 * the transaction's connection, so it sees the row), instead of one round
 * trip later from {@link announce}: a round trip less for a note, on the
 * line of its sender's activities, which are applied one at a time. Only
 * when the fan-out reads nothing written after the row: no mentions (a
 * direct status's followers are chosen by them, and its conversations are
 * kept after fan-out), no tags (their followers), not held or unverified
 * (no fan-out yet). What announce does before the fan-out (card, jobs,
 * collections) is no input to it.
 */
function fanOutWithRow(tx: Executor, p: PreparedStatus, held: boolean): boolean {
  return !held && statementsPipelined(tx) && p.mentioned.length === 0 &&
    p.tagNames.length === 0 && p.visibility !== "direct";
}

/** A new conversation's row, for the fan-out statement ({@link insertConversation}). */
const CONVERSATION = sql`conversation AS (INSERT INTO conversations (id)
      VALUES (${sql.placeholder("conversation")}::bigint)),`;

/** The author's counter, for the fan-out statement ({@link countNewStatus}'s UPDATE). */
const COUNTED = sql`counted AS (UPDATE accounts SET statuses_count = statuses_count + 1,
      last_status_at = ${sql.placeholder("at")}::timestamptz
    WHERE id = ${sql.placeholder("author")}::bigint),`;

/** The author's bell subscribers ({@link notifySubscribers}' query), as answer rows `b`. */
const SUBSCRIBERS = sql`SELECT 'b', f.account_id::text FROM follows f
    JOIN accounts a ON a.id = f.account_id AND a.domain IS NULL
    WHERE f.target_account_id = ${sql.placeholder("author")}::bigint AND f.notify`;

/**
 * The fan-out of a remote status ({@link fanOutWithRow}), with what else
 * the transaction would send as statements of their own: a new
 * conversation's row, the author's counter and the query for the author's
 * bell subscribers (none for a reply to someone else, as
 * notifySubscribers), who are then notified.
 */
async function announceWithRow(
  tx: Executor,
  input: CreateStatusInput,
  p: PreparedStatus,
  thread: Thread,
): Promise<void> {
  const bell = thread.parent == null || thread.parent.accountId === input.accountId;
  const fresh = thread.fresh === true;
  const rider: FanOutRider = {
    name: `remote${bell ? "_bell" : ""}${fresh ? "_conversation" : ""}`,
    ctes: fresh ? sql`${CONVERSATION} ${COUNTED}` : COUNTED,
    rows: bell ? SUBSCRIBERS : sql`SELECT 'b', NULL WHERE false`,
    values: {
      at: p.createdAt.toISOString(),
      author: input.accountId,
      ...fresh ? { conversation: thread.conversationId } : {},
    },
  };
  const rows = await fanOutToFeeds(tx, p.id, FULL_FAN_OUT, rider);
  const subscribers = rows.filter((r) => r.kind === "b").map((r) => r.id);
  await notifyMany(
    tx,
    { type: "status", fromAccountId: input.accountId, statusId: p.id },
    subscribers,
  );
}

/** A status that stands at once: announced, and its e-mail subscribers' digest (Mastodon 4.7). */
async function announceNew(
  tx: Executor,
  origin: string,
  status: StatusRow,
  input: CreateStatusInput,
  p: PreparedStatus,
  hasMedia: boolean,
  digest: DigestTiming,
  fannedOut: boolean,
): Promise<void> {
  await announce(tx, origin, status, {
    hasMedia,
    notified: p.mentioned.filter((id) => p.localMentioned.has(id)),
    quoted: p.quoted,
    missingLinks: input.local ? undefined : input.missingLinks,
    fannedOut,
  });
  await requestEmailDigest(tx, digest, status);
}
