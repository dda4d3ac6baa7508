/**
 * Following hashtags. Following puts posts with the tag into the home
 * timeline (the timelines fan-out reads tag_follows); both commands are
 * idempotent, as Mastodon since 4.1, and create the tag when it is new, so a
 * client may follow a tag nobody has used yet.
 */
import { and, eq } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { tagFollows } from "../../db/schema/mod.ts";
import { newId } from "../../db/ids.ts";
import {
  findOrCreateTags,
  isValidTagName,
  normalizeTagName,
  type TagRow,
} from "../../db/queries/tags.ts";
import { NotFoundError } from "../../model/errors.ts";

/**
 * The tag named `name`, created when missing. An invalid name is a
 * {@link NotFoundError}, as Mastodon answers 404 for a name its hashtag
 * pattern does not match.
 */
export async function tagForWriting(db: Executor, name: string): Promise<TagRow> {
  const normalized = normalizeTagName(name);
  if (!isValidTagName(normalized)) throw new NotFoundError();
  const found = await findOrCreateTags(db, [normalized]);
  const tag = found.get(normalized.toLowerCase());
  if (!tag) throw new NotFoundError();
  return tag;
}

/** Follows a hashtag (idempotent). */
export async function followTag(db: Executor, accountId: string, name: string): Promise<TagRow> {
  return await db.transaction(async (tx) => {
    const tag = await tagForWriting(tx, name);
    await tx.insert(tagFollows).values({ id: newId(), accountId, tagId: tag.id })
      .onConflictDoNothing();
    return tag;
  });
}

/** Stops following a hashtag (idempotent). */
export async function unfollowTag(db: Executor, accountId: string, name: string): Promise<TagRow> {
  return await db.transaction(async (tx) => {
    const tag = await tagForWriting(tx, name);
    await tx.delete(tagFollows)
      .where(and(eq(tagFollows.accountId, accountId), eq(tagFollows.tagId, tag.id)));
    return tag;
  });
}
