/**
 * The public profile page at `/@username` for browsers. It also tells
 * fetchers where the ActivityPub actor is (a `<link rel="alternate">`; the
 * route adds the same as a `Link` header), which Mastodon follows when a
 * user pastes a profile URL into its search.
 */
import type { accounts } from "../../db/schema.ts";
import { escapeHtml, htmlPage, safeHtml } from "./html.ts";

type Account = typeof accounts.$inferSelect;

export interface ProfilePageInput {
  account: Account;
  /** Host (with port when not default): the account's domain. */
  domain: string;
  instanceTitle: string;
}

/** Renders the profile of a local, not deleted account. */
export function renderProfilePage({ account, domain, instanceTitle }: ProfilePageInput): string {
  const handle = `@${account.username}@${domain}`;
  const displayName = account.displayName || account.username;
  const fields = account.fields.map((field) =>
    `<dt>${escapeHtml(field.name)}</dt><dd>${safeHtml(field.value)}</dd>`
  ).join("\n");
  const counts = [`<li>${account.statusesCount} posts</li>`];
  if (!account.hideCollections) {
    counts.push(`<li>${account.followingCount} following</li>`);
    counts.push(`<li>${account.followersCount} followers</li>`);
  }
  const avatar = account.avatarUrl && /^https?:\/\//i.test(account.avatarUrl)
    ? `<img class="u-photo" src="${escapeHtml(account.avatarUrl)}" alt="" width="96" height="96">`
    : "";
  const body = `<main class="h-card">
${avatar}
<h1 class="p-name">${escapeHtml(displayName)}</h1>
<p class="p-nickname">${escapeHtml(handle)}</p>
${account.locked ? "<p>This account approves its followers.</p>" : ""}
<div class="p-note">${safeHtml(account.note)}</div>
${fields ? `<dl>\n${fields}\n</dl>` : ""}
<ul>${counts.join("")}</ul>
<p><a class="u-url u-uid" href="${escapeHtml(account.url ?? "")}">${escapeHtml(handle)}</a></p>
</main>`;
  return htmlPage({
    title: `${displayName} (${handle}) - ${instanceTitle}`,
    head: [
      `<link rel="alternate" type="application/activity+json" href="${escapeHtml(account.uri)}">`,
      account.url ? `<link rel="canonical" href="${escapeHtml(account.url)}">` : "",
      `<meta name="description" content="${escapeHtml(stripTags(account.note))}">`,
    ].join("\n"),
    body,
  });
}

/** The page for an account that was deleted (served with 410). */
export function renderGonePage(username: string, domain: string, instanceTitle: string): string {
  const handle = `@${username}@${domain}`;
  return htmlPage({
    title: `${handle} - ${instanceTitle}`,
    body: `<main><h1>${escapeHtml(handle)}</h1><p>This account has been deleted.</p></main>`,
  });
}

/** The page for a profile that does not exist (served with 404). */
export function renderNotFoundPage(instanceTitle: string): string {
  return htmlPage({
    title: `Not found - ${instanceTitle}`,
    body: `<main><h1>Not found</h1><p>There is no such account here.</p></main>`,
  });
}

/** Plain text of stored HTML (for the description meta tag, escaped again by the caller). */
function stripTags(html: string): string {
  return html.replace(/<[^>]*>/g, " ").replace(/\s+/g, " ").trim()
    .replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'").replaceAll("&amp;", "&");
}
