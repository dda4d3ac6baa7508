/**
 * The StatusEdit entity (GET /api/v1/statuses/:id/history): one version of
 * a status, oldest first. A status never edited has one version, itself.
 */
import { asc, eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { mediaAttachments, statusEdits } from "../../db/schema/mod.ts";
import type { Account } from "./account.ts";
import { loadAccountEntities } from "./account.ts";
import {
  loadMediaByIds,
  mediaAttachmentEntity,
  type MediaAttachmentJson,
} from "./media_attachment.ts";
import type { StatusRow } from "./status.ts";
import { polls } from "../../db/schema/mod.ts";
import { type CustomEmoji, loadEmojisByShortcode } from "./custom_emoji.ts";
import { scanShortcodes } from "../../actors/emoji/shortcodes.ts";

/** The StatusEdit entity. */
export interface StatusEditJson {
  content: string;
  spoiler_text: string;
  sensitive: boolean;
  created_at: string;
  account: Account;
  poll?: { options: { title: string }[] };
  media_attachments: MediaAttachmentJson[];
  emojis: CustomEmoji[];
}

/**
 * Gives each version the custom emoji its texts name, among the author's
 * server's emoji (local ones for local statuses): one query for the whole
 * history, since older versions' links are not kept.
 */
async function withEmojis(
  ctx: AppContext,
  versions: StatusEditJson[],
): Promise<StatusEditJson[]> {
  const textsOf = (v: StatusEditJson) => [
    v.content,
    v.spoiler_text,
    ...(v.poll?.options.map((o) => o.title) ?? []),
  ];
  const codes = scanShortcodes(versions.flatMap(textsOf));
  if (codes.length === 0) return versions;
  // acct is `user@domain` for remote authors (acctOf), the bare name for local ones.
  const domain = versions[0]?.account?.acct.split("@")[1] ?? null;
  const emojis = await loadEmojisByShortcode(ctx.database.db, ctx.mediaUrls, domain, codes);
  for (const version of versions) {
    version.emojis = scanShortcodes(textsOf(version)).map((code) => emojis.get(code))
      .filter((e): e is CustomEmoji => e != null)
      .sort((x, y) => x.shortcode < y.shortcode ? -1 : x.shortcode > y.shortcode ? 1 : 0);
  }
  return versions;
}

/** The versions of a status, oldest first. */
export async function loadStatusHistory(
  ctx: AppContext,
  status: StatusRow,
): Promise<StatusEditJson[]> {
  const db = ctx.database.db;
  const [account] = await loadAccountEntities(db, ctx.mediaUrls, [status.accountId]);
  const edits = await db.select().from(statusEdits)
    .where(eq(statusEdits.statusId, status.id)).orderBy(
      asc(statusEdits.createdAt),
      asc(statusEdits.id),
    );
  if (edits.length === 0) {
    const [poll] = status.pollId
      ? await db.select({ options: polls.options }).from(polls).where(eq(polls.id, status.pollId))
      : [];
    const media = await db.select().from(mediaAttachments)
      .where(eq(mediaAttachments.statusId, status.id)).orderBy(asc(mediaAttachments.id));
    const only: StatusEditJson = {
      content: status.content,
      spoiler_text: status.spoilerText,
      sensitive: status.sensitive,
      created_at: status.createdAt.toISOString(),
      account,
      media_attachments: media.map((m) => mediaAttachmentEntity(ctx.mediaUrls, m)),
      emojis: [],
    };
    if (poll) only.poll = { options: poll.options.map((title) => ({ title })) };
    return await withEmojis(ctx, [only]);
  }
  const media = new Map(
    (await loadMediaByIds(db, edits.flatMap((e) => e.mediaAttachmentIds)))
      .map((m) => [m.id, mediaAttachmentEntity(ctx.mediaUrls, m)]),
  );
  return await withEmojis(
    ctx,
    edits.map((e) => {
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
    }),
  );
}
