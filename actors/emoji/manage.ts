/**
 * Local custom emoji, managed by the server's administrators (the admin
 * command line now; an admin REST API would call the same functions).
 *
 * Mastodon's rules: a shortcode is two or more ASCII letters, digits or
 * underscores, unique among local emoji (case matters, as in Mastodon); the
 * image is a PNG, GIF or WebP under 256 KB. An unlisted emoji works in text
 * but is left out of GET /api/v1/custom_emojis (the picker).
 */
import { and, asc, eq, isNull } from "drizzle-orm";
import type { Config } from "../../config.ts";
import type { Executor } from "../../db/connection.ts";
import { newId } from "../../db/ids.ts";
import { customEmojis } from "../../db/schema/mod.ts";
import { NotFoundError, Problems } from "../../model/errors.ts";
import { MAX_SHORTCODE_LENGTH, SHORTCODE_PATTERN } from "../../model/emoji_shortcodes.ts";
import {
  type EmojiImage,
  EmojiImageRejected,
  processEmojiImage,
  writeEmojiFiles,
} from "./images.ts";
import { mediaStore } from "../media/store.ts";
import { discardMediaFiles, flushDiscardedMedia } from "../media/discarded.ts";
import type { Db } from "../../db/connection.ts";
import { localUris } from "../../model/uris.ts";

export type CustomEmojiRow = typeof customEmojis.$inferSelect;

/** The longest category name accepted. */
export const CATEGORY_MAX = 64;

/** What an administrator adds. */
export interface NewLocalEmoji {
  shortcode: string;
  image: Uint8Array;
  category?: string | null;
  /** False: usable in text, left out of the picker. Default true. */
  visibleInPicker?: boolean;
}

function isUniqueViolation(error: unknown): boolean {
  for (let e: any = error; e; e = e.cause) if (e.code === "23505") return true;
  return false;
}

const TAKEN = ["shortcode", "ERR_TAKEN", "has already been taken"] as const;

async function localByShortcode(db: Executor, shortcode: string) {
  const [row] = await db.select().from(customEmojis)
    .where(and(eq(customEmojis.shortcode, shortcode), isNull(customEmojis.domain))).limit(1);
  return row ?? null;
}

/**
 * Adds a local emoji: checks everything (all problems at once, as a
 * ValidationError), stores both files, then the row. Files of a refused
 * insert are deleted again.
 */
export async function addLocalEmoji(
  db: Executor,
  config: Pick<Config, "origin" | "dataDir">,
  input: NewLocalEmoji,
): Promise<CustomEmojiRow> {
  const problems = new Problems();
  const shortcode = input.shortcode.trim().replace(/^:(.*):$/, "$1");
  if (!SHORTCODE_PATTERN.test(shortcode)) {
    problems.add(
      "shortcode",
      "ERR_INVALID",
      "is invalid (two or more letters, digits or underscores)",
    );
  } else if (shortcode.length > MAX_SHORTCODE_LENGTH) {
    problems.add(
      "shortcode",
      "ERR_TOO_LONG",
      `is too long (maximum is ${MAX_SHORTCODE_LENGTH} characters)`,
    );
  } else if (await localByShortcode(db, shortcode)) {
    problems.add(...TAKEN);
  }
  const category = input.category?.trim() || null;
  if (category && [...category].length > CATEGORY_MAX) {
    problems.add("category", "ERR_TOO_LONG", `is too long (maximum is ${CATEGORY_MAX} characters)`);
  }
  let image: EmojiImage | null = null;
  try {
    image = await processEmojiImage(input.image);
  } catch (error) {
    if (!(error instanceof EmojiImageRejected)) throw error;
    problems.add("image", error.reason === "size" ? "ERR_TOO_LARGE" : "ERR_INVALID", error.message);
  }
  problems.throwIfAny();

  const id = newId();
  const store = mediaStore(config);
  const files = await writeEmojiFiles(store, id, image!);
  try {
    const [row] = await db.insert(customEmojis).values({
      id,
      shortcode,
      domain: null,
      uri: localUris(config.origin).emoji(id),
      ...files,
      contentType: image!.contentType,
      category,
      visibleInPicker: input.visibleInPicker ?? true,
    }).returning();
    return row;
  } catch (error) {
    await store.delete([files.filePath, files.staticPath]);
    if (isUniqueViolation(error)) {
      const taken = new Problems();
      taken.add(...TAKEN);
      taken.throwIfAny();
    }
    throw error;
  }
}

/** Local emoji, by category then shortcode (disabled ones included). */
export async function listLocalEmojis(db: Executor): Promise<CustomEmojiRow[]> {
  return await db.select().from(customEmojis).where(isNull(customEmojis.domain))
    .orderBy(asc(customEmojis.category), asc(customEmojis.shortcode));
}

/**
 * Removes a local emoji and its files (from the media store once the row's
 * deletion committed: `db` is not a transaction). Statuses and profiles
 * that used it keep their text; their `emojis` lists lose it (the links
 * cascade).
 */
export async function removeLocalEmoji(
  db: Db,
  config: Pick<Config, "dataDir" | "origin">,
  shortcode: string,
): Promise<CustomEmojiRow> {
  const code = shortcode.trim().replace(/^:(.*):$/, "$1");
  const row = SHORTCODE_PATTERN.test(code)
    ? await db.transaction(async (tx) => {
      const [gone] = await tx.delete(customEmojis)
        .where(and(eq(customEmojis.shortcode, code), isNull(customEmojis.domain))).returning();
      if (gone) await discardMediaFiles(tx, [gone.filePath, gone.staticPath]);
      return gone;
    })
    : undefined;
  if (!row) {
    const named = SHORTCODE_PATTERN.test(code) ? `:${code.slice(0, 64)}:` : "with that shortcode";
    throw new NotFoundError(`No local emoji ${named}`);
  }
  await flushDiscardedMedia(db, config);
  return row;
}
