/**
 * Voting in a poll: the command behind POST /api/v1/polls/:id/votes, and the
 * one federation/ calls when a remote account's vote arrives.
 *
 * One transaction per vote locks the poll row (SELECT … FOR UPDATE), checks
 * the rules, writes the poll_votes rows and updates tallies, votes_count and
 * voters_count together, so concurrent votes never lose a count. The same
 * transaction records the deliveries: a vote in a remote poll goes to its
 * author (`pollVoted`) and a local poll's new results to the author's
 * followers (`pollUpdated`).
 *
 * The rules and messages are Mastodon's VoteValidator and PollPolicy:
 * - the status must be visible to the voter (404 otherwise);
 * - a block either way between voter and author → 403;
 * - "The poll has already ended", "The chosen vote option does not exist",
 *   "You cannot vote in your own polls", "You have already voted on this
 *   poll", all collected into one 422 in that order. Through the API a
 *   second vote is refused whatever the choices (the spec's states table);
 *   several choices on a single-choice poll, or the same choice twice, count
 *   as voting again.
 * - Remote votes arrive one option per activity, so {@link recordRemoteVote}
 *   only refuses an option the account already chose (Mastodon's rule for
 *   multiple-choice polls).
 */
import { and, eq, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import type { Executor } from "../../db/connection.ts";
import { newId } from "../../db/ids.ts";
import { accounts, blocks, polls, pollVotes } from "../../db/schema/mod.ts";
import { canSeeStatus } from "../../db/queries/visibility.ts";
import { NotFoundError } from "../../model/errors.ts";
import { recordDelivery } from "../outbox/deliveries.ts";
import { activityIds } from "../../model/uris.ts";

export type PollRow = typeof polls.$inferSelect;

/** Mastodon's messages for refused votes. */
export const VOTE_ERRORS = {
  expired: "The poll has already ended",
  invalidChoice: "The chosen vote option does not exist",
  selfVote: "You cannot vote in your own polls",
  alreadyVoted: "You have already voted on this poll",
  blocked: "This action is not allowed",
} as const;

/** A refused vote: 422 with the reasons, or 403 when a block stands between the accounts. */
export class VoteRefusedError extends Error {
  constructor(readonly status: 403 | 422, readonly reasons: string[]) {
    super(reasons.join(", "));
  }
}

/** A vote as asked for. */
export interface VoteInput {
  accountId: string;
  pollId: string;
  /** Option indexes, from 0. */
  choices: number[];
}

interface Locked {
  poll: PollRow;
  voter: { id: string; uri: string; domain: string | null };
  authorLocal: boolean;
  previous: number[];
}

/** Locks the poll and loads what the rules need; 404 when the voter may not see it. */
async function lockPoll(tx: Executor, accountId: string, pollId: string): Promise<Locked> {
  const [poll] = await tx.select().from(polls).where(eq(polls.id, pollId)).for("update");
  if (!poll || !poll.statusId) throw new NotFoundError();
  if (!await canSeeStatus(tx, accountId, { id: poll.statusId })) throw new NotFoundError();
  const people = await tx.select({ id: accounts.id, uri: accounts.uri, domain: accounts.domain })
    .from(accounts).where(sql`${accounts.id} IN (${accountId}::bigint, ${poll.accountId}::bigint)`);
  const voter = people.find((a) => a.id === accountId);
  const author = people.find((a) => a.id === poll.accountId);
  if (!voter || !author) throw new NotFoundError();
  const [blocked] = await tx.select({ id: blocks.id }).from(blocks).where(sql`
    (${blocks.accountId} = ${accountId}::bigint AND ${blocks.targetAccountId} = ${poll.accountId}::bigint)
    OR (${blocks.accountId} = ${poll.accountId}::bigint AND ${blocks.targetAccountId} = ${accountId}::bigint)`)
    .limit(1);
  if (blocked) throw new VoteRefusedError(403, [VOTE_ERRORS.blocked]);
  const previous = (await tx.select({ choice: pollVotes.choice }).from(pollVotes)
    .where(and(eq(pollVotes.pollId, pollId), eq(pollVotes.accountId, accountId))))
    .map((r) => r.choice);
  return { poll, voter, authorLocal: author.domain == null, previous };
}

function pollEnded(poll: PollRow, now: Date): boolean {
  return poll.closedAt != null || (poll.expiresAt != null && poll.expiresAt <= now);
}

/** Writes the votes and the new counts; returns the updated poll and the vote rows. */
async function writeVotes(
  tx: Executor,
  locked: Locked,
  choices: number[],
  uris: (id: string) => string | null,
): Promise<{ poll: PollRow; votes: { id: string; choice: number }[] }> {
  const { poll, voter, previous } = locked;
  const votes = choices.map((choice) => ({ id: newId(), choice }));
  await tx.insert(pollVotes).values(votes.map((v) => ({
    id: v.id,
    pollId: poll.id,
    accountId: voter.id,
    choice: v.choice,
    uri: uris(v.id),
  })));
  const tallies = poll.options.map((_, i) =>
    (poll.tallies[i] ?? 0) + choices.filter((c) => c === i).length
  );
  const [updated] = await tx.update(polls).set({
    tallies,
    votesCount: poll.votesCount + choices.length,
    votersCount: poll.votersCount + (previous.length === 0 ? 1 : 0),
  }).where(eq(polls.id, poll.id)).returning();
  return { poll: updated, votes };
}

/** Records, with the vote, what federation/ is to deliver about it. */
async function deliverVote(
  tx: Executor,
  locked: Locked,
  votes: { id: string; choice: number }[],
): Promise<void> {
  if (!locked.authorLocal && locked.voter.domain == null) {
    await recordDelivery(tx, "pollVoted", {
      pollId: locked.poll.id,
      accountId: locked.voter.id,
      votes,
    });
  } else if (locked.authorLocal) {
    await recordDelivery(tx, "pollUpdated", locked.poll.id, newId());
  }
}

/**
 * Votes in a poll through the API. Throws {@link NotFoundError} or
 * {@link VoteRefusedError}; returns the poll row as it is after the vote.
 */
export async function votePoll(ctx: AppContext, input: VoteInput): Promise<PollRow> {
  const now = new Date();
  return await ctx.database.db.transaction(async (tx) => {
    const locked = await lockPoll(tx, input.accountId, input.pollId);
    const { poll, voter, previous } = locked;
    const reasons: string[] = [];
    if (pollEnded(poll, now)) reasons.push(VOTE_ERRORS.expired);
    if (
      input.choices.length === 0 ||
      input.choices.some((c) => !Number.isInteger(c) || c < 0 || c >= poll.options.length)
    ) {
      reasons.push(VOTE_ERRORS.invalidChoice);
    }
    if (poll.accountId === voter.id) reasons.push(VOTE_ERRORS.selfVote);
    const repeated = previous.length > 0 || new Set(input.choices).size < input.choices.length ||
      (!poll.multiple && input.choices.length > 1);
    if (repeated) reasons.push(VOTE_ERRORS.alreadyVoted);
    if (reasons.length) throw new VoteRefusedError(422, reasons);
    const written = await writeVotes(
      tx,
      locked,
      input.choices,
      (id) => voter.domain == null && !locked.authorLocal ? activityIds.vote(voter.uri, id) : null,
    );
    await deliverVote(tx, locked, written.votes);
    return written.poll;
  });
}

/** A vote that arrived from another server: one option, with the activity's IRI. */
export interface RemoteVoteInput {
  accountId: string;
  pollId: string;
  choice: number;
  uri: string | null;
}

/**
 * Records a remote account's vote for one option of a local poll (votes
 * for several options arrive as several activities). A repeated activity,
 * an ended poll or an unknown option is refused with {@link VoteRefusedError}.
 */
export async function recordRemoteVote(ctx: AppContext, input: RemoteVoteInput): Promise<PollRow> {
  const now = new Date();
  return await ctx.database.db.transaction(async (tx) => {
    const locked = await lockPoll(tx, input.accountId, input.pollId);
    const { poll, previous } = locked;
    const reasons: string[] = [];
    if (pollEnded(poll, now)) reasons.push(VOTE_ERRORS.expired);
    if (
      !Number.isInteger(input.choice) || input.choice < 0 || input.choice >= poll.options.length
    ) {
      reasons.push(VOTE_ERRORS.invalidChoice);
    }
    if (poll.accountId === input.accountId) reasons.push(VOTE_ERRORS.selfVote);
    if (
      previous.includes(input.choice) || (!poll.multiple && previous.length > 0)
    ) {
      reasons.push(VOTE_ERRORS.alreadyVoted);
    }
    if (reasons.length) throw new VoteRefusedError(422, reasons);
    const written = await writeVotes(tx, locked, [input.choice], () => input.uri);
    await deliverVote(tx, locked, written.votes);
    return written.poll;
  });
}
