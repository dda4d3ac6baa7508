/**
 * Announcements as administrators manage them (the admin command line now;
 * an admin REST API would call the same functions), following Mastodon's
 * Announcement model:
 * - the text is rendered as a post is (links, known mentions, hashtags) when
 *   it is written; links to public or unlisted posts of this server are kept
 *   as the announcement's `statuses`;
 * - `starts_at` and `ends_at` (both or neither, the end after the start) say
 *   when the event it announces happens; `all_day` shows them as dates;
 * - an announcement is published when created unless asked otherwise;
 *   people see published ones until `ends_at` has passed (Mastodon unpublishes
 *   them then), whatever `starts_at` says.
 * Publishing (at creation or later) is announced to every `user` stream
 * (`announcement`), unpublishing or deleting a published one too
 * (`announcement.delete`), in the command's transaction.
 */
import { and, asc, desc, eq, inArray, isNull, or, sql } from "drizzle-orm";
import { PUBLIC_VISIBILITIES } from "../../model/visibility.ts";
import type { Config } from "../../config.ts";
import type { Executor } from "../../db/connection.ts";
import { newId } from "../../db/ids.ts";
import { announcements, statuses } from "../../db/schema/mod.ts";
import { NotFoundError, Problems } from "../../model/errors.ts";
import { parseText } from "../formatting/parsed_text.ts";
import { textToHtml } from "../formatting/text_to_html.ts";
import { mentionTargets, resolveMentionAccounts } from "../formatting/mentions.ts";
import { publishStreamEvent } from "../streaming/bus.ts";

export type AnnouncementRow = typeof announcements.$inferSelect;

/** A generous bound on the text (Mastodon has none; apps show a few lines). */
export const ANNOUNCEMENT_TEXT_MAX = 5_000;

/** What an administrator writes. */
export interface NewAnnouncement {
  text: string;
  startsAt?: Date | null;
  endsAt?: Date | null;
  allDay?: boolean;
  /** Default true. */
  published?: boolean;
}

/** The ids of this server's statuses linked from `text` (by page URL or by id URL). */
function linkedStatusIds(origin: string, text: string): string[] {
  const escaped = origin.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const re = new RegExp(
    `${escaped}/(?:@[^/\\s]+|users/[^/\\s]+/statuses)/([0-9]{1,19})(?![0-9])`,
    "g",
  );
  return [...new Set([...text.matchAll(re)].map((m) => m[1]))];
}

function validate(input: NewAnnouncement): string {
  const text = (input.text ?? "").trim();
  const problems = new Problems();
  if (text === "") problems.add("text", "ERR_BLANK", "can't be blank");
  else if ([...text].length > ANNOUNCEMENT_TEXT_MAX) {
    problems.add(
      "text",
      "ERR_TOO_LONG",
      `is too long (maximum is ${ANNOUNCEMENT_TEXT_MAX} characters)`,
    );
  }
  const { startsAt, endsAt } = input;
  for (const [field, value] of [["starts_at", startsAt], ["ends_at", endsAt]] as const) {
    if (value != null && Number.isNaN(value.getTime())) {
      problems.add(field, "ERR_INVALID", "is not a date and time");
    }
  }
  if ((startsAt == null) !== (endsAt == null)) {
    problems.add(
      startsAt == null ? "starts_at" : "ends_at",
      "ERR_BLANK",
      "can't be blank when the other end of the time range is given",
    );
  } else if (startsAt && endsAt && !(endsAt > startsAt)) {
    problems.add("ends_at", "ERR_INVALID", "must be after the start");
  }
  if (input.allDay && startsAt == null) {
    problems.add("all_day", "ERR_INVALID", "needs a start and an end");
  }
  problems.throwIfAny();
  return text;
}

/** Creates an announcement; throws ValidationError for bad input. */
export async function createAnnouncement(
  db: Executor,
  config: Config,
  input: NewAnnouncement,
): Promise<AnnouncementRow> {
  const text = validate(input);
  const parsed = parseText(text);
  const mentions = mentionTargets(await resolveMentionAccounts(db, config.domain, [parsed]));
  const content = textToHtml(parsed, { origin: config.origin, multiline: true, mentions });
  const linked = linkedStatusIds(config.origin, text);
  // Only posts anyone may see are listed (the text still links the others).
  const visible = linked.length === 0 ? [] : await db.select({ id: statuses.id }).from(statuses)
    .where(and(
      inArray(statuses.id, linked),
      eq(statuses.local, true),
      isNull(statuses.deletedAt),
      isNull(statuses.reblogOfId),
      inArray(statuses.visibility, [...PUBLIC_VISIBILITIES]),
      eq(statuses.pendingApproval, false),
    ));
  const now = new Date();
  const published = input.published ?? true;
  return await db.transaction(async (tx) => {
    const [row] = await tx.insert(announcements).values({
      id: newId(),
      text,
      content,
      startsAt: input.startsAt ?? null,
      endsAt: input.endsAt ?? null,
      allDay: input.allDay ?? false,
      published,
      publishedAt: published ? now : null,
      mentionAccountIds: [
        ...new Set([...mentions.values()].flatMap((m) => m.accountId ? [m.accountId] : [])),
      ],
      statusIds: linked.filter((id) => visible.some((v) => v.id === id)),
      tagNames: [...new Set(parsed.hashtags.map((h) => h.tag))],
      createdAt: now,
      updatedAt: now,
    }).returning();
    if (shownNow(row)) {
      await publishStreamEvent(tx, { event: "announcement", announcementId: row.id });
    }
    return row;
  });
}

/** Whether people see the announcement now (published, not ended). */
function shownNow(row: AnnouncementRow): boolean {
  return row.published && (row.endsAt == null || row.endsAt.getTime() > Date.now());
}

/** Every announcement, newest first (for administrators). */
export async function listAnnouncements(db: Executor): Promise<AnnouncementRow[]> {
  return await db.select().from(announcements).orderBy(desc(announcements.id));
}

/** Announcements ids must be bigint snowflakes: anything else cannot match. */
function checkId(id: string): void {
  if (!/^\d{1,19}$/.test(id) || BigInt(id) >= 2n ** 63n) {
    throw new NotFoundError(`No announcement with id ${id.slice(0, 40)}`);
  }
}

/** Publishes (or unpublishes) an announcement; publishing again keeps its first date. */
export async function setAnnouncementPublished(
  db: Executor,
  id: string,
  published: boolean,
): Promise<AnnouncementRow> {
  checkId(id);
  const now = new Date();
  return await db.transaction(async (tx) => {
    const [before] = await tx.select({ published: announcements.published }).from(announcements)
      .where(eq(announcements.id, id)).for("update");
    if (!before) throw new NotFoundError(`No announcement with id ${id}`);
    const [row] = await tx.update(announcements).set({
      published,
      publishedAt: published ? sql`coalesce(${announcements.publishedAt}, now())` : null,
      updatedAt: now,
    }).where(eq(announcements.id, id)).returning();
    // Only a change people can see is announced (publishing twice is not one).
    if (published && !before.published && shownNow(row)) {
      await publishStreamEvent(tx, { event: "announcement", announcementId: row.id });
    } else if (!published && before.published) {
      await publishStreamEvent(tx, { event: "announcement.delete", announcementId: row.id });
    }
    return row;
  });
}

/** Deletes an announcement with its dismissals and reactions. */
export async function deleteAnnouncement(db: Executor, id: string): Promise<AnnouncementRow> {
  checkId(id);
  return await db.transaction(async (tx) => {
    const [row] = await tx.delete(announcements).where(eq(announcements.id, id)).returning();
    if (!row) throw new NotFoundError(`No announcement with id ${id}`);
    // An unpublished one was never shown: nobody has it to take away.
    if (row.published) {
      await publishStreamEvent(tx, { event: "announcement.delete", announcementId: row.id });
    }
    return row;
  });
}

/** The condition of an announcement people see now: published and not ended. */
export function activeAnnouncement() {
  return and(
    eq(announcements.published, true),
    or(isNull(announcements.endsAt), sql`${announcements.endsAt} > now()`),
  );
}

/**
 * The announcements `accountId` sees, in Mastodon's order (by start, else
 * publication), without those it dismissed unless `withDismissed`.
 */
export async function activeAnnouncements(
  db: Executor,
  accountId: string,
  options: { withDismissed?: boolean } = {},
): Promise<AnnouncementRow[]> {
  const notDismissed = options.withDismissed ? undefined : sql`NOT EXISTS (
    SELECT 1 FROM announcement_mutes m
    WHERE m.announcement_id = ${announcements.id} AND m.account_id = ${accountId}::bigint)`;
  return await db.select().from(announcements)
    .where(and(activeAnnouncement(), notDismissed))
    .orderBy(
      asc(
        sql`coalesce(${announcements.startsAt}, ${announcements.publishedAt}, ${announcements.createdAt})`,
      ),
      asc(announcements.id),
    );
}

/** One announcement people see now, or NotFoundError. */
export async function findActiveAnnouncement(db: Executor, id: string): Promise<AnnouncementRow> {
  const [row] = await db.select().from(announcements)
    .where(and(eq(announcements.id, id), activeAnnouncement()));
  if (!row) throw new NotFoundError();
  return row;
}
