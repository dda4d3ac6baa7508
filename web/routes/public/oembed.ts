/**
 * Embedding statuses in other sites:
 * - GET /api/oembed?url=&maxwidth=&maxheight= (public) → oEmbed 1.0 `rich`
 *   answer `{type, version, title, author_name, author_url, provider_name,
 *   provider_url, cache_age, html, width, height}`; `html` is an iframe of
 *   the embed page
 * - GET /@username/<id>/embed → that page (html: pages/status_embed.tsx),
 *   which any site may frame
 *
 * Decisions, following Mastodon's OEmbedController and StatusFinder:
 * - `url` must be a status URL of this server, its page (`/@user/<id>`) or
 *   its id (`/users/user/statuses/<id>`); anything else, and a private,
 *   direct, deleted or missing status, or one of a suspended or deleted
 *   account, is 404 "Record not found" (the same answer for each, so the
 *   endpoint tells nothing about what is hidden).
 * - `width` is `maxwidth` (a positive integer, at most 4096), else 400;
 *   `height` is `maxheight`, else null. `cache_age` is a day.
 * - Only JSON: `format=xml` answers 501, as the oEmbed spec asks of a
 *   provider without that format.
 * - Open without a user token even in authorized-fetch mode (Mastodon skips
 *   its authentication requirement here): only public and unlisted statuses
 *   are shown, as on their public pages.
 */
import { type Context, Hono } from "hono";
import { isPublicVisibility } from "../../../model/visibility.ts";
import type { ApiEnv } from "../../../api/env.ts";
import { ApiError } from "../../../api/errors.ts";
import { params } from "../../../api/params.ts";
import { readString } from "../../../api/readers.ts";
import { escapeHtml } from "../../../actors/formatting/escape_html.ts";
import { StatusEmbedPage } from "../../pages/status_embed.tsx";
import { sendHtmlPage } from "../page_response.ts";
import { sendMessagePage } from "./public_page_kit.ts";
import {
  loadMediaByStatus,
  mediaAttachmentEntity,
} from "../../../api/entities/media_attachment.ts";
import { findLocalAccount } from "../../../federation/dispatchers/local_actors.ts";
import { findLocalStatus } from "../../../federation/objects/note.ts";
import { canSeeStatus } from "../../../db/queries/visibility.ts";
import { localUris } from "../../../model/uris.ts";

const DEFAULT_WIDTH = 400;
const MAX_SIZE = 4096;
const CACHE_AGE = 86_400;

/** A status anyone may see, with its author; null otherwise. */
async function publicStatus(c: Context<ApiEnv>, username: string, id: string) {
  const { db } = c.get("ctx").database;
  const account = await findLocalAccount(db, username);
  if (!account || account.deletedAt || account.suspendedAt) return null;
  const status = await findLocalStatus(db, account.username, id);
  if (!status || status.deletedAt) return null;
  if (!isPublicVisibility(status.visibility)) return null;
  if (!await canSeeStatus(db, null, status)) return null;
  return { account, status };
}

/** The username and status id a URL of this server names, or null. */
export function statusPathOf(origin: string, raw: string): { username: string; id: string } | null {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return null;
  }
  if (url.origin !== origin) return null;
  let path: string;
  try {
    path = decodeURIComponent(url.pathname).replace(/\/$/, "");
  } catch {
    return null;
  }
  const m = /^\/@([^/@]+)\/([0-9]{1,19})$/.exec(path) ??
    /^\/users\/([^/]+)\/statuses\/([0-9]{1,19})$/.exec(path);
  return m ? { username: m[1], id: m[2] } : null;
}

/** `maxwidth`/`maxheight`: a positive integer up to MAX_SIZE, else undefined. */
function size(value: string | undefined): number | undefined {
  if (value === undefined || !/^\s*[0-9]{1,6}\s*$/.test(value)) return undefined;
  const n = Number(value);
  return n > 0 && n <= MAX_SIZE ? n : undefined;
}

/** The oEmbed and embed page routes, mounted at the root of the app. */
export function oembedRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get("/api/oembed", async (c) => {
    const { config } = c.get("ctx");
    const p = await params(c);
    const format = readString(p, "format");
    if (format !== undefined && format !== "json") {
      throw new ApiError(501, "Only the json format is supported");
    }
    const target = statusPathOf(config.origin, readString(p, "url", { maxLength: 4096 }) ?? "");
    const found = target ? await publicStatus(c, target.username, target.id) : null;
    if (!found) throw new ApiError(404, "Record not found");
    const { account, status } = found;
    const width = size(readString(p, "maxwidth")) ?? DEFAULT_WIDTH;
    const height = size(readString(p, "maxheight")) ?? null;
    const embedUrl = localUris(config.origin).embed(account.username, status.id);
    const authorName = account.displayName || account.username;
    return c.json({
      type: "rich",
      version: "1.0",
      title: `Post by ${authorName}`,
      author_name: authorName,
      author_url: account.url ?? account.uri,
      provider_name: config.domain,
      provider_url: `${config.origin}/`,
      cache_age: CACHE_AGE,
      html: `<iframe src="${escapeHtml(embedUrl)}" class="mastodon-embed" ` +
        `style="max-width: 100%; border: 0" width="${width}"` +
        (height != null ? ` height="${height}"` : "") +
        ` allowfullscreen="allowfullscreen"></iframe>`,
      width,
      height,
    });
  });

  app.get("/:handle{@[^/]+}/:id{[0-9]{1,19}}/embed", async (c) => {
    const { config, database } = c.get("ctx");
    const found = await publicStatus(c, c.req.param("handle").slice(1), c.req.param("id"));
    if (!found) return await sendMessagePage(c, 404, "Not found", "There is no such post here.");
    const { account, status } = found;
    const media = (await loadMediaByStatus(database.db, [status.id])).get(status.id) ?? [];
    // Meant to be framed by any site; nothing on it runs or submits.
    return await sendHtmlPage(
      c,
      "embed",
      StatusEmbedPage({
        status,
        account,
        media: media.map((row) => mediaAttachmentEntity(config, row)),
        domain: config.domain,
        instanceTitle: config.instance.title,
      }),
    );
  });

  return app;
}
