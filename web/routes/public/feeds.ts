/**
 * RSS 2.0 feeds, as Mastodon serves them (built with the `feed` library):
 * - GET /@username.rss: the account's public and unlisted posts, without
 *   boosts and replies, newest first (Mastodon's account feed); `?tag=` keeps
 *   those with a hashtag.
 * - GET /tags/:name.rss: public posts with the hashtag, local and remote;
 *   `?local=true` keeps this server's. With PUBLIC_PREVIEW=false, for a
 *   signed-in browser only (401 otherwise), and never cached for others.
 * Each item is the post's page (link and permalink guid), its HTML as the
 * description, its first attachment as the enclosure (RSS allows one) and
 * its hashtags as categories. A content warning goes first, as Mastodon's
 * feed has it. 20 items, what anyone may see (db/queries/visibility.ts).
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { inArray } from "drizzle-orm";
import { Feed } from "feed";
import type { ApiEnv } from "../../../api/env.ts";
import { serializeStatuses, type StatusJson } from "../../../api/entities/status.ts";
import { loadAccountEntities } from "../../../api/entities/account.ts";
import { accountStatuses, tagsByName, tagTimeline } from "../../../db/queries/timelines.ts";
import { mediaAttachments } from "../../../db/schema/mod.ts";
import { findLocalAccount } from "../../../federation/dispatchers/local_actors.ts";
import { sanitizeHtml } from "../../../actors/formatting/sanitize_html.ts";
import { htmlToText } from "../../../actors/formatting/html_to_text.ts";
import { closedToVisitor, PAGE_LIMIT } from "./public_page_kit.ts";
import { localUris } from "../../../model/uris.ts";

const FIRST_PAGE = { maxId: null, sinceId: null, minId: null, limit: PAGE_LIMIT };

function notFound(c: Context<ApiEnv>): Response {
  return c.text("Not Found", 404);
}

/** Type and size of each post's attachments, which the entity does not carry. */
async function mediaFacts(c: Context<ApiEnv>, statuses: StatusJson[]) {
  const ids = statuses.flatMap((s) => s.media_attachments.map((m) => m.id));
  if (ids.length === 0) return new Map<string, { type: string | null; size: number | null }>();
  const rows = await c.get("ctx").database.db.select({
    id: mediaAttachments.id,
    contentType: mediaAttachments.contentType,
    fileSize: mediaAttachments.fileSize,
  }).from(mediaAttachments).where(inArray(mediaAttachments.id, ids));
  return new Map(rows.map((r) => [r.id, { type: r.contentType, size: r.fileSize }]));
}

const FALLBACK_TYPES: Record<string, string> = {
  image: "image/jpeg",
  gifv: "video/mp4",
  video: "video/mp4",
  audio: "audio/mpeg",
};

async function addItems(c: Context<ApiEnv>, feed: Feed, statuses: StatusJson[]): Promise<void> {
  const facts = await mediaFacts(c, statuses);
  for (const status of statuses) {
    const link = status.url ?? status.uri;
    const text = htmlToText(status.content, { oneLine: true });
    const description = status.spoiler_text
      ? `<p>${escapeXmlText(status.spoiler_text)}</p><hr />${sanitizeHtml(status.content)}`
      : sanitizeHtml(status.content);
    const first = status.media_attachments.find((m) => m.url ?? m.remote_url);
    const fact = first ? facts.get(first.id) : undefined;
    feed.addItem({
      title: status.spoiler_text || text.slice(0, 100) || "Post",
      link,
      guid: link,
      date: new Date(status.created_at),
      description,
      category: status.tags.map((t) => ({ name: t.name })),
      enclosure: first
        ? {
          url: (first.url ?? first.remote_url)!,
          type: fact?.type ?? FALLBACK_TYPES[first.type] ?? "application/octet-stream",
          length: fact?.size ?? 0,
          ...(first.description ? { title: first.description } : {}),
        }
        : undefined,
    });
  }
}

function escapeXmlText(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/** The feed; `restricted` (for signed-in browsers only) is kept out of shared caches. */
function sendFeed(c: Context<ApiEnv>, feed: Feed, restricted = false): Response {
  return c.body(feed.rss2(), 200, {
    "Content-Type": "application/rss+xml; charset=utf-8",
    "Cache-Control": restricted ? "private, no-store" : "public, max-age=60",
  });
}

export function feedRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get("/:feed{@[^/]+\\.rss}", async (c) => {
    const ctx = c.get("ctx");
    const { config } = ctx;
    const username = c.req.param("feed").slice(1, -".rss".length);
    const account = await findLocalAccount(ctx.database.db, username);
    if (!account || account.deletedAt || account.suspendedAt) {
      return account ? c.text("Gone", 410) : notFound(c);
    }
    const [entity] = await loadAccountEntities(ctx.database.db, config, [account.id]);
    if (!entity) return notFound(c);
    let taggedId: string | null | undefined;
    const tag = c.req.query("tag");
    if (tag) {
      taggedId = tag.length <= 200
        ? [...(await tagsByName(ctx.database.db, [tag])).values()][0]?.id ?? null
        : null;
    }
    const rows = await accountStatuses(ctx.database.db, account.id, null, {
      excludeReplies: true,
      excludeReblogs: true,
      taggedId,
    }, FIRST_PAGE);
    const statuses = await serializeStatuses(ctx, rows, null);
    const profile = localUris(config.origin).profile(account.username);
    const feed = new Feed({
      title: entity.display_name || entity.username,
      description: `Public posts from @${account.username}@${config.domain}`,
      id: profile,
      link: profile,
      image: entity.avatar_static,
      updated: statuses[0] ? new Date(statuses[0].created_at) : account.createdAt,
      generator: "Rookery",
      feed: `${profile}.rss`,
      copyright: "",
    });
    await addItems(c, feed, statuses);
    return sendFeed(c, feed);
  });

  app.get("/tags/:feed{[^/]+\\.rss}", async (c) => {
    const ctx = c.get("ctx");
    const { config } = ctx;
    if (await closedToVisitor(c)) return c.text("Sign in to read this feed.", 401);
    const name = c.req.param("feed").slice(0, -".rss".length);
    const tag = name.length <= 200
      ? [...(await tagsByName(ctx.database.db, [name])).values()][0]
      : undefined;
    if (!tag) return notFound(c);
    const local = c.req.query("local");
    const rows = await tagTimeline(ctx.database.db, null, { any: [tag.id], all: [], none: [] }, {
      local: local === "true" || local === "1",
    }, FIRST_PAGE);
    const statuses = await serializeStatuses(ctx, rows, null);
    const page = localUris(config.origin).tag(tag.name);
    const feed = new Feed({
      title: `#${tag.name}`,
      description: `Public posts tagged #${tag.name}`,
      id: page,
      link: page,
      updated: statuses[0] ? new Date(statuses[0].created_at) : new Date(),
      generator: "Rookery",
      feed: `${page}.rss`,
      copyright: "",
    });
    await addItems(c, feed, statuses);
    return sendFeed(c, feed, !config.publicPreview);
  });

  return app;
}
