/**
 * Delivers poll activities, built from the stored rows:
 * - votes of a local account in a remote poll: one Create(Note) per chosen
 *   option to the poll's author, as Mastodon's VoteSerializer (the Note has
 *   a `name` equal to the option, `inReplyTo` the Question and no content;
 *   ids `<voter>#votes/<vote id>` and `…/activity`);
 * - Update(Question) of a local poll to the author's remote followers (not
 *   for direct statuses), the remote accounts it mentions and the remote
 *   voters, one request per shared inbox, as Mastodon's
 *   DistributePollUpdateWorker.
 *
 * {@link buildQuestion} builds the Question from the rows; the statuses
 * federation reuses it for Create(Question) and the object dispatcher.
 */
import type { Context } from "@fedify/fedify";
import {
  Collection,
  Create,
  Note,
  PUBLIC_COLLECTION,
  type Question,
  type Recipient,
} from "@fedify/vocab";
import { and, eq, inArray, isNotNull, isNull } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import { accounts, follows, mentions, polls, pollVotes, statuses } from "../../db/schema/mod.ts";
import type { PollDeliveries } from "../../actors/outbox/polls.ts";
import { instanceContext } from "../fetch/lookup.ts";
import { carryTerms, WireQuestion, WireUpdate } from "../objects/mastodon_terms.ts";
import { activityIds } from "../../model/uris.ts";

const logger = getLogger(["rookery", "federation", "outbox", "polls"]);

type AccountRow = typeof accounts.$inferSelect;
type StatusRow = typeof statuses.$inferSelect;
type PollRow = typeof polls.$inferSelect;

function toInstant(date: Date): Temporal.Instant {
  return Temporal.Instant.fromEpochMilliseconds(date.getTime());
}

function recipientOf(row: Pick<AccountRow, "uri" | "inboxUrl" | "sharedInboxUrl">): Recipient {
  return {
    id: new URL(row.uri),
    inboxId: new URL(row.inboxUrl!),
    endpoints: row.sharedInboxUrl ? { sharedInbox: new URL(row.sharedInboxUrl) } : null,
  };
}

/** What {@link buildQuestion} needs. */
export interface QuestionRows {
  status: StatusRow;
  poll: PollRow;
  author: AccountRow;
  /** IRIs of the accounts the status mentions. */
  mentionedUris: string[];
}

/**
 * The Question of a local status with a poll. Addressing follows Mastodon's
 * TagManager: public → to Public, cc followers; unlisted → to followers, cc
 * Public; private → to followers; direct → the mentioned accounts only;
 * mentioned accounts are always in cc (to, for direct). `updated` is sent
 * only for edited statuses, so a receiver treats a results update as an
 * implicit update of the poll, not as an edit.
 */
export function buildQuestion(ctx: Context<AppContext>, rows: QuestionRows): Question {
  const { status, poll, author } = rows;
  const followers = ctx.getFollowersUri(author.username);
  const mentioned = rows.mentionedUris.map((u) => new URL(u));
  const addressing = status.visibility === "public"
    ? { tos: [PUBLIC_COLLECTION], ccs: [followers, ...mentioned] }
    : status.visibility === "unlisted"
    ? { tos: [followers], ccs: [PUBLIC_COLLECTION, ...mentioned] }
    : status.visibility === "private"
    ? { tos: [followers], ccs: mentioned }
    : { tos: mentioned, ccs: [] };
  const options = poll.options.map((name, i) =>
    new Note({
      name,
      replies: new Collection({ totalItems: poll.tallies[i] ?? 0 }),
    })
  );
  const expired = poll.expiresAt != null && poll.expiresAt.getTime() <= Date.now();
  // WireQuestion: the language maps as the Note carries them (objects/mastodon_terms.ts).
  const question = new WireQuestion({
    id: new URL(status.uri),
    url: status.url ? new URL(status.url) : null,
    attribution: new URL(author.uri),
    content: status.content,
    summary: status.spoilerText || null,
    sensitive: status.sensitive,
    published: toInstant(status.createdAt),
    updated: status.editedAt ? toInstant(status.editedAt) : null,
    replyTarget: status.inReplyToUri ? new URL(status.inReplyToUri) : null,
    ...addressing,
    ...(poll.multiple ? { inclusiveOptions: options } : { exclusiveOptions: options }),
    endTime: poll.expiresAt ? toInstant(poll.expiresAt) : null,
    closed: expired && poll.expiresAt ? toInstant(poll.expiresAt) : null,
    voters: poll.votersCount,
  });
  question.mastodonTerms.set(new URL(status.uri).href, {
    language: status.language,
    content: status.content,
    summary: status.spoilerText || null,
    attachments: new Map(),
  });
  return question;
}

/** The rows behind a poll: the poll, its status and the status's author. */
async function loadPoll(
  app: AppContext,
  pollId: string,
): Promise<{ poll: PollRow; status: StatusRow; author: AccountRow } | null> {
  const [row] = await app.database.db.select({ poll: polls, status: statuses, author: accounts })
    .from(polls)
    .innerJoin(statuses, eq(statuses.id, polls.statusId))
    .innerJoin(accounts, eq(accounts.id, statuses.accountId))
    .where(eq(polls.id, pollId)).limit(1);
  return row ?? null;
}

/** Loads what {@link buildQuestion} needs for a poll, or null when it has no status. */
export async function loadQuestionRows(
  app: AppContext,
  pollId: string,
): Promise<QuestionRows | null> {
  const loaded = await loadPoll(app, pollId);
  if (!loaded) return null;
  const mentionedUris = (await app.database.db.select({ uri: accounts.uri }).from(mentions)
    .innerJoin(accounts, eq(accounts.id, mentions.accountId))
    .where(eq(mentions.statusId, loaded.status.id))).map((r) => r.uri);
  return { ...loaded, mentionedUris };
}

/** Remote followers, mentioned accounts and voters of a local poll (deduplicated). */
async function updateAudience(app: AppContext, rows: QuestionRows): Promise<Recipient[]> {
  const { db } = app.database;
  const remote = and(
    isNotNull(accounts.domain),
    isNotNull(accounts.inboxUrl),
    isNull(accounts.deletedAt),
  );
  const columns = {
    uri: accounts.uri,
    inboxUrl: accounts.inboxUrl,
    sharedInboxUrl: accounts.sharedInboxUrl,
  };
  const found = [
    ...await db.selectDistinct(columns).from(pollVotes)
      .innerJoin(accounts, eq(accounts.id, pollVotes.accountId))
      .where(and(eq(pollVotes.pollId, rows.poll.id), remote)),
    ...await db.select(columns).from(mentions)
      .innerJoin(accounts, eq(accounts.id, mentions.accountId))
      .where(and(eq(mentions.statusId, rows.status.id), remote)),
  ];
  if (rows.status.visibility !== "direct") {
    found.push(
      ...await db.select(columns).from(follows)
        .innerJoin(accounts, eq(accounts.id, follows.accountId))
        .where(and(eq(follows.targetAccountId, rows.author.id), remote)),
    );
  }
  const byUri = new Map(found.map((r) => [r.uri, r]));
  return [...byUri.values()].map(recipientOf);
}

/** The poll part of the outbox. */
export function pollDeliveries(app: AppContext): PollDeliveries {
  return {
    async pollVoted(vote) {
      const loaded = await loadPoll(app, vote.pollId);
      if (!loaded || vote.votes.length === 0) return;
      const { poll, status, author } = loaded;
      if (author.domain == null || !author.inboxUrl || author.deletedAt) return;
      const [voter] = await app.database.db.select().from(accounts)
        .where(inArray(accounts.id, [vote.accountId]));
      if (!voter || voter.domain != null) return;
      const ctx = instanceContext(app);
      const question = new URL(poll.uri ?? status.uri);
      const authorUri = new URL(author.uri);
      for (const v of vote.votes) {
        const id = activityIds.vote(voter.uri, v.id);
        const create = new Create({
          id: new URL(activityIds.activity(id)),
          actor: new URL(voter.uri),
          to: authorUri,
          object: new Note({
            id: new URL(id),
            name: poll.options[v.choice],
            attribution: new URL(voter.uri),
            replyTarget: question,
            to: authorUri,
          }),
        });
        await ctx.sendActivity({ identifier: voter.username }, recipientOf(author), create, {
          preferSharedInbox: false,
          orderingKey: voter.uri,
        });
      }
      logger.debug("Queued {n} vote(s) in {poll}.", { n: vote.votes.length, poll: question.href });
    },
    async pollUpdated(pollId, updateId) {
      const rows = await loadQuestionRows(app, pollId);
      if (!rows || rows.author.domain != null || rows.status.deletedAt) return;
      const recipients = await updateAudience(app, rows);
      if (recipients.length === 0) return;
      const ctx = instanceContext(app);
      const question = buildQuestion(ctx, rows);
      const update = carryTerms(
        new WireUpdate({
          // Named by the intent, so a relayed-twice Update is recognised as one.
          id: new URL(activityIds.update(rows.status.uri, updateId)),
          actor: new URL(rows.author.uri),
          object: question,
          tos: question.toIds,
          ccs: question.ccIds,
        }),
        question,
      );
      await ctx.sendActivity({ identifier: rows.author.username }, recipients, update, {
        preferSharedInbox: true,
        orderingKey: rows.status.uri,
      });
    },
  };
}
