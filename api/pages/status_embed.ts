/**
 * The embeddable page of a status (`/@username/<id>/embed`), what the oEmbed
 * answer's iframe shows: the author, the text (behind its content warning),
 * image previews and a link to the status, on a compact page that other
 * sites may frame. Everything stored is escaped or goes through the one
 * sanitizer (html.ts).
 */
import type { accounts, statuses } from "../../db/schema.ts";
import type { MediaAttachmentJson } from "../entities/media_attachment.ts";
import { escapeHtml, htmlPage, safeHtml } from "./html.ts";

type Account = typeof accounts.$inferSelect;
type Status = typeof statuses.$inferSelect;

export interface StatusEmbedInput {
  status: Status;
  account: Account;
  media: MediaAttachmentJson[];
  /** Host (with port when not default): the account's domain. */
  domain: string;
  instanceTitle: string;
}

const STYLE = `<style>
body{margin:0;font:15px/1.4 system-ui,sans-serif;color:#222;background:#fff}
.embed{border:1px solid #ddd;border-radius:8px;padding:12px 16px;max-width:600px}
.author{display:flex;gap:8px;align-items:center}
.author img{width:40px;height:40px;border-radius:6px}
.author a{color:inherit;text-decoration:none}.handle{color:#666}
.media{display:flex;flex-wrap:wrap;gap:4px}.media img{max-width:100%;max-height:300px;border-radius:4px}
.meta{color:#666;font-size:13px}.meta a{color:inherit}
</style>`;

/** Renders the embed page of a status anyone may see. */
export function renderStatusEmbed(input: StatusEmbedInput): string {
  const { status, account, media, domain, instanceTitle } = input;
  const name = account.displayName || account.username;
  const profile = account.url ?? account.uri;
  const link = status.url ?? status.uri;
  const text = `<div class="e-content" lang="${escapeHtml(status.language ?? "")}">${
    safeHtml(status.content)
  }</div>`;
  const body = status.spoilerText
    ? `<details><summary>${escapeHtml(status.spoilerText)}</summary>${text}</details>`
    : text;
  const images = media.filter((m) => m.preview_url).map((m) =>
    `<a href="${escapeHtml(m.url ?? m.preview_url!)}" target="_blank" rel="noopener"><img src="${
      escapeHtml(m.preview_url!)
    }" alt="${escapeHtml(m.description ?? "")}"></a>`
  ).join("");
  return htmlPage({
    title: `${name} - ${instanceTitle}`,
    head: STYLE,
    body: `<article class="embed h-entry">
<p class="author p-author h-card"><a class="u-url" target="_blank" rel="noopener" href="${
      escapeHtml(profile)
    }"><strong>${escapeHtml(name)}</strong> <span class="handle">@${escapeHtml(account.username)}@${
      escapeHtml(domain)
    }</span></a></p>
${body}
${images ? `<div class="media">${images}</div>` : ""}
<p class="meta"><a class="u-url u-uid" target="_blank" rel="noopener" href="${
      escapeHtml(link)
    }"><time class="dt-published" datetime="${escapeHtml(status.createdAt.toISOString())}">${
      escapeHtml(status.createdAt.toISOString().slice(0, 16).replace("T", " "))
    } UTC</time></a> · ${escapeHtml(instanceTitle)}</p>
</article>`,
  });
}
