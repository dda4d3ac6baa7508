/**
 * The StatusEdit entity (GET /api/v1/statuses/:id/history): one version of
 * a status, oldest first. A status never edited has one version, itself.
 */
import { asc, eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { statusEdits } from "../../db/schema.ts";
import type { Account } from "./account.ts";
import { loadAccountEntities } from "./account.ts";
import {
  loadMediaByIds,
  mediaAttachmentEntity,
  type MediaAttachmentJson,
} from "./media_attachment.ts";
import type { StatusRow } from "./status.ts";
import { polls } from "../../db/schema.ts";

/** The StatusEdit entity. */
export interface StatusEditJson {
  content: string;
  spoiler_text: string;
  sensitive: boolean;
  created_at: string;
  account: Account;
  poll?: { options: { title: string }[] };
  media_attachments: MediaAttachmentJson[];
  emojis: unknown[];
}

/** The versions of a status, oldest first. */
export async function loadStatusHistory(
  ctx: AppContext,
  status: StatusRow,
): Promise<StatusEditJson[]> {
  const db = ctx.database.db;
  const [account] = await loadAccountEntities(db, ctx.config, [status.accountId]);
  const edits = await db.select().from(statusEdits)
    .where(eq(statusEdits.statusId, status.id)).orderBy(
      asc(statusEdits.createdAt),
      asc(statusEdits.id),
    );
  if (edits.length === 0) {
    const [poll] = status.pollId
      ? await db.select({ options: polls.options }).from(polls).where(eq(polls.id, status.pollId))
      : [];
    const media = await db.query.mediaAttachments.findMany({
      where: (m, { eq }) => eq(m.statusId, status.id),
      orderBy: (m, { asc }) => [asc(m.id)],
    });
    const only: StatusEditJson = {
      content: status.content,
      spoiler_text: status.spoilerText,
      sensitive: status.sensitive,
      created_at: status.createdAt.toISOString(),
      account,
      media_attachments: media.map((m) => mediaAttachmentEntity(ctx.config, m)),
      emojis: [],
    };
    if (poll) only.poll = { options: poll.options.map((title) => ({ title })) };
    return [only];
  }
  const media = new Map(
    (await loadMediaByIds(db, edits.flatMap((e) => e.mediaAttachmentIds)))
      .map((m) => [m.id, mediaAttachmentEntity(ctx.config, m)]),
  );
  return edits.map((e) => {
    const json: StatusEditJson = {
      content: e.content,
      spoiler_text: e.spoilerText,
      sensitive: e.sensitive,
      created_at: e.createdAt.toISOString(),
      account,
      media_attachments: e.mediaAttachmentIds.map((id) => media.get(id))
        .filter((m): m is MediaAttachmentJson => m != null),
      emojis: [],
    };
    if (e.pollOptions) json.poll = { options: e.pollOptions.map((title) => ({ title })) };
    return json;
  });
}
