/**
 * `archetype`: a playful, coarse label for how the account posted during
 * the year, decided as Mastodon's AnnualReport::Archetype decides it: fewer
 * posts than an average active user makes in a year → lurker; then, in
 * this order, mostly boosts → booster, polls in more than a tenth of the
 * standalone posts → pollster, mostly replies → replier; else oracle.
 */
import type { PostCounts } from "./type_distribution.ts";

/** The archetypes, as Mastodon names them. */
export type Archetype = "lurker" | "booster" | "pollster" | "replier" | "oracle";

/** Mastodon's figure: posts (replies and boosts included) per active user in 2023. */
export const AVERAGE_PER_YEAR = 113;
const SCORE_MULTIPLIER = 2;
const SCORE_REDUCER = 0.1;

/** The archetype of a year with these counts. */
export function archetypeOf(counts: PostCounts): Archetype {
  const { standalone, replies, reblogs, polls } = counts;
  if (standalone + replies + reblogs < AVERAGE_PER_YEAR) return "lurker";
  if (reblogs > standalone * SCORE_MULTIPLIER) return "booster";
  // Standalone posts include those with a poll.
  if (polls > standalone * SCORE_REDUCER) return "pollster";
  if (replies > standalone * SCORE_MULTIPLIER) return "replier";
  return "oracle";
}

/** The source's part of the report. */
export function archetype(counts: PostCounts): Record<string, unknown> {
  return { archetype: archetypeOf(counts) };
}
