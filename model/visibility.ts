/**
 * The visibility words of a status and who may see it, as pure rules.
 *
 * The rule every reader applies lives in SQL in db/queries/visibility.ts
 * (it has to run inside queries, over thousands of rows); {@link maySee} is
 * the same rule over one status and one viewer's standing, and
 * tests/statuses/visibility_rule_test.ts checks that the two agree on every
 * visibility × standing case. Change one, change the other.
 */

/** A status's visibility, widest first (Mastodon's `visibility` values). */
export const VISIBILITIES = ["public", "unlisted", "private", "direct"] as const;
export type Visibility = typeof VISIBILITIES[number];

/**
 * Visible to anyone, signed in or not: the statuses a profile, a replies
 * collection, a featured hashtag's count or a relation list shows
 * everyone (Mastodon's `Status#distributable?`).
 */
export const PUBLIC_VISIBILITIES = ["public", "unlisted"] as const;

/**
 * Every visibility but `direct`: what reaches followers' feeds, what a
 * boost, a pin or a default privacy may be.
 */
export const FOLLOWER_VISIBILITIES = ["public", "unlisted", "private"] as const;

/** Whether `value` is a visibility. */
export function isVisibility(value: string): value is Visibility {
  return (VISIBILITIES as readonly string[]).includes(value);
}

/** Whether a status of `visibility` is visible to anyone ({@link PUBLIC_VISIBILITIES}). */
export function isPublicVisibility(visibility: string): boolean {
  return visibility === "public" || visibility === "unlisted";
}

/** Whether `visibility` is one of {@link FOLLOWER_VISIBILITIES} (not `direct`). */
export function isFollowerVisibility(visibility: string): boolean {
  return (FOLLOWER_VISIBILITIES as readonly string[]).includes(visibility);
}

/** How a signed-in viewer stands towards a live status and its author. */
export interface ViewerStanding {
  /** The viewer wrote it. */
  author: boolean;
  /** The viewer follows the author (an accepted follow). */
  follower: boolean;
  /** The status mentions the viewer. */
  mentioned: boolean;
  /** Either blocks the other, or the viewer blocked the author's domain. */
  blocked: boolean;
  /**
   * The viewer wrote the status a held reply replies to, or a held boost
   * boosts: the one who decides (issue 34).
   */
  approver?: boolean;
}

/**
 * Whether a viewer (null: anonymous) may see a live status of `visibility`
 * (Mastodon's StatusPolicy#show?): the author always; a viewer at odds with
 * the author (a block either way, a domain block) never; public and
 * unlisted: anyone; private: followers and the mentioned; direct: the
 * mentioned. A deleted status, or one of a deleted or suspended author, is
 * seen by nobody, and a boost only with its original (the SQL checks both).
 * A reply or boost `held` for approval is seen, within those rules, only by
 * its author and the approver.
 */
export function maySee(visibility: string, viewer: ViewerStanding | null, held = false): boolean {
  if (viewer == null) return isPublicVisibility(visibility) && !held;
  if (viewer.author) return true;
  if (viewer.blocked) return false;
  if (held && !viewer.approver) return false;
  if (isPublicVisibility(visibility)) return true;
  if (visibility === "private") return viewer.follower || viewer.mentioned;
  return visibility === "direct" && viewer.mentioned;
}
