/**
 * The public page of a status at `/@username/<id>` for browsers. Like the
 * profile page it names the ActivityPub object (`<link rel="alternate">`,
 * and the route sends the same as a `Link` header), so pasting the URL into
 * another server's search finds the Note.
 */
import type { accounts, statuses } from "../../db/schema.ts";
import { escapeHtml, htmlPage, safeHtml } from "./html.ts";

type Account = typeof accounts.$inferSelect;
type Status = typeof statuses.$inferSelect;

export interface StatusPageInput {
  status: Status;
  account: Account;
  /** Host (with port when not default): the account's domain. */
  domain: string;
  instanceTitle: string;
  /** The oEmbed URL of the page (public statuses). */
  oembedUrl?: string;
}

function plain(html: string): string {
  return html.replace(/<[^>]*>/g, " ").replace(/\s+/g, " ").trim()
    .replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'").replaceAll("&amp;", "&");
}

/** Renders a status that anyone may see (public or unlisted, not deleted). */
export function renderStatusPage(
  { status, account, domain, instanceTitle, oembedUrl }: StatusPageInput,
): string {
  const handle = `@${account.username}@${domain}`;
  const name = account.displayName || account.username;
  const summary = status.spoilerText
    ? `<p class="p-summary">${escapeHtml(status.spoilerText)}</p>`
    : "";
  const description = status.spoilerText || plain(status.content);
  const body = `<main class="h-entry">
<p class="p-author h-card"><a class="u-url" href="${escapeHtml(account.url ?? account.uri)}">${
    escapeHtml(name)
  }</a> <span>${escapeHtml(handle)}</span></p>
${summary}
<div class="e-content" lang="${escapeHtml(status.language ?? "")}">${safeHtml(status.content)}</div>
<p><a class="u-url u-uid" href="${
    escapeHtml(status.url ?? status.uri)
  }"><time class="dt-published" datetime="${status.createdAt.toISOString()}">${status.createdAt.toISOString()}</time></a></p>
</main>`;
  return htmlPage({
    title: `${name}: "${description.slice(0, 60)}" - ${instanceTitle}`,
    head: [
      `<link rel="alternate" type="application/activity+json" href="${escapeHtml(status.uri)}">`,
      // oEmbed discovery (routes/oembed.ts), as Mastodon's status pages have it.
      oembedUrl
        ? `<link rel="alternate" type="application/json+oembed" href="${escapeHtml(oembedUrl)}">`
        : "",
      status.url ? `<link rel="canonical" href="${escapeHtml(status.url)}">` : "",
      `<meta name="description" content="${escapeHtml(description.slice(0, 300))}">`,
    ].join("\n"),
    body,
  });
}

/** The page of a status that was deleted (410). */
export function renderDeletedStatusPage(instanceTitle: string): string {
  return htmlPage({
    title: `Deleted - ${instanceTitle}`,
    body: `<main><h1>Gone</h1><p>This post has been deleted.</p></main>`,
  });
}

/** The page of a status that does not exist or is not public (404). */
export function renderStatusNotFoundPage(instanceTitle: string): string {
  return htmlPage({
    title: `Not found - ${instanceTitle}`,
    body: `<main><h1>Not found</h1><p>There is no such post here.</p></main>`,
  });
}
