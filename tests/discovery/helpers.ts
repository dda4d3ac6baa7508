/**
 * Set-up of the discovery tests: statuses, remote accounts and link cards
 * written straight to the database (posting, federation and link previews
 * have tests of their own), with timestamps in the past to watch scores decay.
 */
import { idFromTime, newId } from "../../db/ids.ts";
import {
  accounts,
  previewCards,
  statuses,
  statusPreviewCards,
  statusTags,
} from "../../db/schema/mod.ts";
import { findOrCreateTags } from "../../db/queries/tags.ts";
import type { TestInstance } from "../harness.ts";

const HOUR = 3_600_000;

/** A time `hours` hours before now. */
export function hoursAgo(hours: number, now = Date.now()): Date {
  return new Date(now - hours * HOUR);
}

/** What {@link insertPost} writes. */
export interface PostOptions {
  tags?: string[];
  /** A preview card id the post links to. */
  cardId?: string;
  createdAt?: Date;
  visibility?: string;
  sensitive?: boolean;
  spoilerText?: string;
  inReplyToId?: string;
  favourites?: number;
  reblogs?: number;
}

/** Inserts a status row (local when the account is), its tags and card. */
export async function insertPost(
  instance: TestInstance,
  accountId: string,
  options: PostOptions = {},
): Promise<string> {
  const { db } = instance.rookery.ctx.database;
  const createdAt = options.createdAt ?? new Date();
  const id = options.createdAt ? idFromTime(createdAt) : newId();
  await db.insert(statuses).values({
    id,
    uri: `${instance.origin}/test-statuses/${id}`,
    accountId,
    local: true,
    visibility: options.visibility ?? "public",
    content: "<p>post</p>",
    sensitive: options.sensitive ?? false,
    spoilerText: options.spoilerText ?? "",
    inReplyToId: options.inReplyToId ?? null,
    favouritesCount: options.favourites ?? 0,
    reblogsCount: options.reblogs ?? 0,
    createdAt,
  });
  if (options.tags?.length) {
    const found = await findOrCreateTags(db, options.tags);
    await db.insert(statusTags).values(
      [...found.values()].map((t) => ({ statusId: id, tagId: t.id })),
    );
  }
  if (options.cardId) {
    await db.insert(statusPreviewCards).values({ statusId: id, previewCardId: options.cardId });
  }
  return id;
}

/** A remote account known to the instance. */
export async function insertRemoteAccount(
  instance: TestInstance,
  username: string,
  domain: string,
  values: Partial<typeof accounts.$inferInsert> = {},
): Promise<string> {
  const { db } = instance.rookery.ctx.database;
  const [row] = await db.insert(accounts).values({
    id: newId(),
    username,
    domain,
    uri: `https://${domain}/users/${username}`,
    fetchedAt: new Date(),
    ...values,
  }).returning({ id: accounts.id });
  return row.id;
}

/** A stored link preview. */
export async function insertCard(instance: TestInstance, url: string, title: string) {
  const { db } = instance.rookery.ctx.database;
  const [row] = await db.insert(previewCards).values({ id: newId(), url, title })
    .returning({ id: previewCards.id });
  return row.id;
}
