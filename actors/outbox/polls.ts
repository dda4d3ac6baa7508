/**
 * Deliveries about polls, recorded by the commands in their transaction:
 * - {@link PollDeliveries.pollVoted}: a local account voted in a remote
 *   poll; each chosen option goes to the poll's author as Create(Note
 *   {name: option, inReplyTo: the Question}), as Mastodon sends votes.
 * - {@link PollDeliveries.pollUpdated}: a local poll's counts changed (a vote)
 *   or it closed; Update(Question) goes to the author's followers and the
 *   remote voters, so their copies show the new results.
 * Both are no-ops when nothing crosses servers.
 */

/** A vote as the command wrote it. */
export interface PollVoteSnapshot {
  pollId: string;
  /** The voter. */
  accountId: string;
  /** The poll_votes rows written, one per chosen option. */
  votes: { id: string; choice: number }[];
}

/** Deliveries about polls. */
export interface PollDeliveries {
  /** Votes of a local account in a remote poll, to the poll's author. */
  pollVoted(vote: PollVoteSnapshot): Promise<void>;
  /**
   * Update(Question) of a local poll, built from the stored rows;
   * `updateId` (fresh, recorded with the intent) names the activity.
   */
  pollUpdated(pollId: string, updateId: string): Promise<void>;
}
