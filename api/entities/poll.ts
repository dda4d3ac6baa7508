/**
 * The Poll entity (Mastodon 4.5) from `polls` rows and the viewer's votes.
 *
 * Decisions, as Mastodon's REST::PollSerializer:
 * - `voters_count` is null for single-choice polls (the inventory's rule;
 *   there it equals `votes_count`).
 * - With `hide_totals`, option counts are null for everyone, the author
 *   too, until the poll ends (Mastodon's `show_totals_now?`); the totals
 *   (`votes_count`, `voters_count`) stay, as Mastodon shows them.
 * - `voted` and `own_votes` appear only for a signed-in viewer; the author
 *   counts as having voted.
 */
import { and, eq } from "drizzle-orm";
import { anyId } from "../../db/queries/any_id.ts";
import type { MediaUrls } from "../../actors/media/urls.ts";
import type { Executor } from "../../db/connection.ts";
import { polls, pollVotes } from "../../db/schema/mod.ts";
import { type CustomEmoji, emojisUsedIn, loadStatusEmojis } from "./custom_emoji.ts";
import { mayHaveEmoji } from "../../actors/emoji/shortcodes.ts";
import { pollExpired, pollShowsTotals } from "../../actors/polls/totals.ts";

export type PollRow = typeof polls.$inferSelect;

/** The Poll entity. */
export interface PollJson {
  id: string;
  expires_at: string | null;
  expired: boolean;
  multiple: boolean;
  votes_count: number;
  voters_count: number | null;
  options: { title: string; votes_count: number | null }[];
  emojis: CustomEmoji[];
  voted?: boolean;
  own_votes?: number[];
}

/**
 * Serializes a poll. `viewer` is null for anonymous requests; `ownVotes` are
 * the viewer's chosen option indexes; `emojis` those its options use.
 */
export function pollEntity(
  poll: PollRow,
  viewer: { accountId: string } | null,
  ownVotes: number[] = [],
  emojis: CustomEmoji[] = [],
): PollJson {
  const now = new Date();
  const expired = pollExpired(poll, now);
  const isAuthor = viewer?.accountId === poll.accountId;
  const hidden = !pollShowsTotals(poll, now);
  const entity: PollJson = {
    id: poll.id,
    expires_at: poll.expiresAt ? poll.expiresAt.toISOString() : null,
    expired,
    multiple: poll.multiple,
    votes_count: poll.votesCount,
    voters_count: poll.multiple ? poll.votersCount : null,
    options: poll.options.map((title, i) => ({
      title,
      votes_count: hidden ? null : poll.tallies[i] ?? 0,
    })),
    emojis,
  };
  if (viewer) {
    entity.voted = isAuthor || ownVotes.length > 0;
    entity.own_votes = [...ownVotes].sort((a, b) => a - b);
  }
  return entity;
}

/** Polls by id and the viewer's votes in them: two queries at most. */
export async function loadPolls(
  db: Executor,
  pollIds: readonly string[],
  viewer: { accountId: string } | null,
): Promise<{ polls: Map<string, PollRow>; votes: Map<string, number[]> }> {
  const ids = [...new Set(pollIds)];
  const result = { polls: new Map<string, PollRow>(), votes: new Map<string, number[]>() };
  if (ids.length === 0) return result;
  for (
    const row of await db.select().from(polls).where(anyId(polls.id, ids))
      .prepare("polls_by_id").execute()
  ) {
    result.polls.set(row.id, row);
  }
  if (viewer) {
    const votes = await db.select({ pollId: pollVotes.pollId, choice: pollVotes.choice })
      .from(pollVotes)
      .where(and(anyId(pollVotes.pollId, ids), eq(pollVotes.accountId, viewer.accountId)))
      .prepare("poll_own_votes").execute();
    for (const v of votes) {
      const list = result.votes.get(v.pollId) ?? [];
      list.push(v.choice);
      result.votes.set(v.pollId, list);
    }
  }
  return result;
}

/**
 * Loads and serializes polls by id (for GET /api/v1/polls/:id and the like).
 * With `urls`, options' custom emoji are loaded too (one more query, only
 * when some option could name one).
 */
export async function loadPollEntities(
  db: Executor,
  pollIds: readonly string[],
  viewer: { accountId: string } | null,
  urls?: MediaUrls,
): Promise<Map<string, PollJson>> {
  const { polls: rows, votes } = await loadPolls(db, pollIds, viewer);
  const withEmoji = urls
    ? [...rows.values()].filter((p) => p.statusId && mayHaveEmoji(p.options))
    : [];
  const emojis = urls
    ? await loadStatusEmojis(db, urls, withEmoji.map((p) => p.statusId!))
    : new Map();
  const out = new Map<string, PollJson>();
  for (const [id, row] of rows) {
    const used = row.statusId ? emojisUsedIn(emojis.get(row.statusId), row.options) : [];
    out.set(id, pollEntity(row, viewer, votes.get(id) ?? [], used));
  }
  return out;
}
