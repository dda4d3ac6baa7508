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
 * The Question is the status's own (federation/objects/note.ts localNote),
 * as its Create and the object dispatcher carry it.
 */
import { Create, Note, type Recipient } from "@fedify/vocab";
import { and, eq, inArray } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import { accounts, follows, mentions, polls, pollVotes, statuses } from "../../db/schema/mod.ts";
import type { PollDeliveries } from "../../actors/outbox/polls.ts";
import { instanceContext } from "../fetch/lookup.ts";
import { carryTerms, WireUpdate } from "../objects/mastodon_terms.ts";
import { activityIds } from "../../model/uris.ts";
import { localNote } from "../objects/note.ts";
import { inboxColumns, recipientOf, remoteInbox } from "../objects/recipient.ts";

const logger = getLogger(["rookery", "federation", "outbox", "polls"]);

type AccountRow = typeof accounts.$inferSelect;
type StatusRow = typeof statuses.$inferSelect;
type PollRow = typeof polls.$inferSelect;

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

/** The rows behind a poll: the poll, its status and the status's author. */
type PollRows = NonNullable<Awaited<ReturnType<typeof loadPoll>>>;

/** Remote followers, mentioned accounts and voters of a local poll (deduplicated). */
async function updateAudience(app: AppContext, rows: PollRows): Promise<Recipient[]> {
  const { db } = app.database;
  const [remote, columns] = [remoteInbox, inboxColumns];
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
      const rows = await loadPoll(app, pollId);
      if (!rows || rows.author.domain != null || rows.status.deletedAt) return;
      const recipients = await updateAudience(app, rows);
      if (recipients.length === 0) return;
      const ctx = instanceContext(app);
      // The whole Question, as the Create carried it (Mastodon's UpdatePollSerializer).
      const question = await localNote(ctx, rows.status);
      if (!question) return;
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
