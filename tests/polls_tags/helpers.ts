/**
 * Shared set-up for the poll, scheduled status and tag tests: statuses and
 * tags written directly, and raw SQL (users, API calls and waits come from
 * tests/fixtures).
 */
import { sql } from "drizzle-orm";
import { idFromTime, newId } from "../../db/ids.ts";
import { polls, statuses, statusTags } from "../../db/schema/mod.ts";
import { findOrCreateTags } from "../../db/queries/tags.ts";
import type { TestInstance } from "../harness.ts";

/** Inserts a local status row directly (tests of readers need no posting pipeline). */
export async function insertStatus(
  instance: TestInstance,
  accountId: string,
  options: {
    visibility?: string;
    tags?: string[];
    createdAt?: Date;
    deleted?: boolean;
    poll?: { options: string[]; multiple?: boolean; expiresAt?: Date | null };
  } = {},
): Promise<{ statusId: string; pollId: string | null }> {
  const { db } = instance.rookery.ctx.database;
  const createdAt = options.createdAt ?? new Date();
  const id = options.createdAt ? idFromTime(createdAt) : newId();
  const pollId = options.poll ? newId() : null;
  await db.insert(statuses).values({
    id,
    uri: `${instance.origin}/statuses/${id}`,
    url: `${instance.origin}/statuses/${id}`,
    accountId,
    local: true,
    visibility: options.visibility ?? "public",
    content: "<p>test</p>",
    text: "test",
    pollId,
    createdAt,
    deletedAt: options.deleted ? new Date() : null,
  });
  if (options.tags?.length) {
    const found = await findOrCreateTags(db, options.tags);
    await db.insert(statusTags).values(
      [...found.values()].map((t) => ({ statusId: id, tagId: t.id })),
    );
  }
  if (options.poll) {
    await db.insert(polls).values({
      id: pollId!,
      accountId,
      statusId: id,
      options: options.poll.options,
      tallies: options.poll.options.map(() => 0),
      multiple: options.poll.multiple ?? false,
      expiresAt: options.poll.expiresAt === undefined
        ? new Date(Date.now() + 86_400_000)
        : options.poll.expiresAt,
    });
  }
  return { statusId: id, pollId };
}

/** Runs raw SQL on the instance's database. */
export async function rows<T = Record<string, unknown>>(
  instance: TestInstance,
  query: ReturnType<typeof sql>,
): Promise<T[]> {
  return await instance.rookery.ctx.database.rows<T>(query);
}
