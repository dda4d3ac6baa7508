/**
 * The parts of a profile Mastodon 4.6/4.7 added: the avatar's and the
 * header's descriptions (alt text, at most 150 characters each, Mastodon's
 * `MAX_DESCRIPTION_LENGTH`), and whether the profile shows its media tab,
 * replies in it, and its featured tab. Checked and turned into account
 * columns for updateProfile (profile.ts); a new image without a new
 * description clears the old one, as Mastodon clears it with the file.
 */
import type { accounts } from "../../db/schema/mod.ts";
import type { Problems } from "../../model/errors.ts";

/** The longest image description. */
export const IMAGE_DESCRIPTION_LIMIT = 150;

/** What an update may say about these parts (absent: unchanged). */
export interface ProfileDisplayUpdate {
  avatarDescription?: string;
  headerDescription?: string;
  showMedia?: boolean;
  showMediaReplies?: boolean;
  showFeatured?: boolean;
}

/** Adds the problems of `input` to `problems`. */
export function checkProfileDisplay(input: ProfileDisplayUpdate, problems: Problems): void {
  for (
    const [key, value] of [
      ["avatar_description", input.avatarDescription],
      ["header_description", input.headerDescription],
    ] as const
  ) {
    if (value != null && [...value.trim()].length > IMAGE_DESCRIPTION_LIMIT) {
      problems.add(
        key,
        "ERR_TOO_LONG",
        `is too long (maximum is ${IMAGE_DESCRIPTION_LIMIT} characters)`,
      );
    }
  }
}

/**
 * The columns `input` changes, given which images the same update replaces
 * (`replaced`): a replaced image's description is the new one, or empty.
 */
export function profileDisplayChanges(
  input: ProfileDisplayUpdate,
  replaced: { avatar: boolean; header: boolean },
): Partial<typeof accounts.$inferInsert> {
  const changes: Partial<typeof accounts.$inferInsert> = {};
  const avatar = input.avatarDescription?.trim() ?? (replaced.avatar ? "" : undefined);
  const header = input.headerDescription?.trim() ?? (replaced.header ? "" : undefined);
  if (avatar !== undefined) changes.avatarDescription = avatar;
  if (header !== undefined) changes.headerDescription = header;
  if (input.showMedia != null) changes.showMedia = input.showMedia;
  if (input.showMediaReplies != null) changes.showMediaReplies = input.showMediaReplies;
  if (input.showFeatured != null) changes.showFeatured = input.showFeatured;
  return changes;
}

/** The description column that goes with an image column. */
export function descriptionColumnOf(kind: "avatar" | "header") {
  return kind === "avatar" ? "avatarDescription" as const : "headerDescription" as const;
}
