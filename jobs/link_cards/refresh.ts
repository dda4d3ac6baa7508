/**
 * The preview-card job (Mastodon's FetchLinkCardService), run by a worker
 * for a status that asked for a card (actors/cards/request.ts):
 *
 * 1. the status is read again; without media and poll (and, when remote,
 *    without a content warning) the link its author named (a `Link`
 *    attachment), else its first link that is not a mention, a hashtag or
 *    the quoted post, is chosen (actors/cards/links.ts);
 * 2. a stored card for that URL younger than two weeks is reused; otherwise,
 *    unless the page failed within the last minutes (stored.ts), it is
 *    fetched (fetch_page.ts: SSRF guard, deadline, size cap) and read
 *    (opengraph.ts); a page without a title gives no card (and is recorded
 *    as failed), and a stale card is kept when the page cannot be had;
 * 3. the card is upserted by URL (the link as the status has it) and the
 *    status linked to it, replacing any other card; with no card the link
 *    is removed.
 *
 * The write is made only if the status is still the version that was read
 * (same content and edit time, under a share lock on its row): an edit that
 * committed meanwhile queued its own job, or removed the card itself.
 */
import { and, eq, ne, type SQL, sql } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import { newId } from "../../db/ids.ts";
import {
  accounts,
  mediaAttachments,
  mentions,
  previewCards,
  statuses,
  statusPreviewCards,
} from "../../db/schema/mod.ts";
import { productUserAgent } from "../../version.ts";
import { fetchHtmlPage } from "./fetch_page.ts";
import { statusCardLink } from "../../actors/cards/links.ts";
import { extractCard, type ExtractedCard } from "./opengraph.ts";
import { mayHaveCard } from "../../actors/cards/request.ts";
import { CARD_STALE_MS, failedRecently, recordCardFailure } from "../../actors/cards/stored.ts";

const logger = getLogger(["rookery", "cards"]);

type StatusRow = typeof statuses.$inferSelect;
type CardRow = typeof previewCards.$inferSelect;

/** The User-Agent of link preview fetches. */
export function cardUserAgent(origin: string): string {
  // "Bot" as Mastodon's link crawler says it: some sites answer bots with their OpenGraph page.
  return `${productUserAgent(origin)} Bot`;
}

/** Hrefs in the status that stand for accounts or the quoted post, not pages. */
async function hrefsToSkip(ctx: AppContext, status: StatusRow): Promise<string[]> {
  const db = ctx.database.db;
  const mentioned = await db.select({ url: accounts.url, uri: accounts.uri }).from(mentions)
    .innerJoin(accounts, eq(accounts.id, mentions.accountId))
    .where(eq(mentions.statusId, status.id));
  const out = mentioned.flatMap((a) => [a.url, a.uri]);
  if (status.quotedStatusId) {
    const [quoted] = await db.select({ url: statuses.url, uri: statuses.uri }).from(statuses)
      .where(eq(statuses.id, status.quotedStatusId));
    if (quoted) out.push(quoted.url, quoted.uri);
  }
  return out.filter((h): h is string => !!h);
}

async function hasMedia(ctx: AppContext, statusId: string): Promise<boolean> {
  const rows = await ctx.database.db.select({ id: mediaAttachments.id }).from(mediaAttachments)
    .where(eq(mediaAttachments.statusId, statusId)).limit(1);
  return rows.length > 0;
}

/** Fetches and reads the page; null when it gives no card or cannot be had. */
async function fetchCard(
  ctx: AppContext,
  url: string,
  signal?: AbortSignal,
): Promise<ExtractedCard | null> {
  try {
    const page = await fetchHtmlPage(url, {
      userAgent: cardUserAgent(ctx.config.origin),
      allowPrivateAddress: ctx.config.allowPrivateAddress,
      signal,
    });
    return page ? extractCard(page.html, page.url) : null;
  } catch (error) {
    if (signal?.aborted) throw error;
    logger.debug("No preview card for {url}: {error}", { url, error });
    return null;
  }
}

/** `column` when a card's update keeps its image URL, else null. */
function sameImage(column: SQL): SQL {
  return sql`CASE WHEN preview_cards.image_remote_url IS NOT DISTINCT FROM
    excluded.image_remote_url THEN ${column} END`;
}

async function storeCard(ctx: AppContext, url: string, card: ExtractedCard): Promise<CardRow> {
  // Typed: a column renamed later is a compile error here, not a value silently dropped.
  const fields: Partial<typeof previewCards.$inferInsert> = {
    title: card.title,
    description: card.description,
    type: card.type,
    imageRemoteUrl: card.imageUrl,
    width: card.width,
    height: card.height,
    providerName: card.providerName,
    providerUrl: card.providerUrl,
    authorName: card.authorName,
    creatorHandle: card.creatorHandle,
    updatedAt: new Date(),
  };
  const [row] = await ctx.database.db.insert(previewCards).values({ id: newId(), url, ...fields })
    .onConflictDoUpdate({
      target: previewCards.url,
      set: {
        ...fields,
        // A new image: our copy of the old one is forgotten (remove-orphans
        // deletes its file) and the media proxy fetches the new one.
        imageKey: sameImage(sql.raw("preview_cards.image_key")),
        imageFileSize: sameImage(sql.raw("preview_cards.image_file_size")),
        imageCachedAt: sameImage(sql.raw("preview_cards.image_cached_at")),
      },
    }).returning();
  return row;
}

/** Links the status to `cardId` (null: to no card) if it is still the version read. */
async function linkCard(ctx: AppContext, read: StatusRow, cardId: string | null): Promise<void> {
  await ctx.database.db.transaction(async (tx) => {
    const [now] = await tx.select({
      content: statuses.content,
      cardLink: statuses.cardLink,
      editedAt: statuses.editedAt,
      deletedAt: statuses.deletedAt,
    }).from(statuses).where(eq(statuses.id, read.id)).for("share");
    if (
      !now || now.deletedAt || now.content !== read.content || now.cardLink !== read.cardLink ||
      now.editedAt?.getTime() !== read.editedAt?.getTime()
    ) return;
    await tx.delete(statusPreviewCards).where(and(
      eq(statusPreviewCards.statusId, read.id),
      cardId ? ne(statusPreviewCards.previewCardId, cardId) : undefined,
    ));
    if (cardId) {
      await tx.insert(statusPreviewCards).values({ statusId: read.id, previewCardId: cardId })
        .onConflictDoNothing();
    }
  });
}

/**
 * Gives a status the preview card of its link (or none), fetching the page
 * when no fresh card is stored. `signal` aborts a fetch when the worker stops.
 */
export async function refreshLinkCard(
  ctx: AppContext,
  statusId: string,
  signal?: AbortSignal,
): Promise<void> {
  const db = ctx.database.db;
  const [status] = await db.select().from(statuses).where(eq(statuses.id, statusId));
  if (!status || status.deletedAt) return;
  const link = mayHaveCard(status, await hasMedia(ctx, status.id))
    ? statusCardLink(status, {
      origin: ctx.config.origin,
      skipHrefs: await hrefsToSkip(ctx, status),
    })
    : null;
  if (!link) return await linkCard(ctx, status, null);
  let [card] = await db.select().from(previewCards).where(eq(previewCards.url, link));
  if (
    (!card || Date.now() - card.updatedAt.getTime() > CARD_STALE_MS) &&
    !await failedRecently(db, link)
  ) {
    const fetched = await fetchCard(ctx, link, signal);
    if (fetched) card = await storeCard(ctx, link, fetched);
    else if (!signal?.aborted) await recordCardFailure(db, link);
  }
  await linkCard(ctx, status, card?.id ?? null);
}
