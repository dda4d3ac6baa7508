/**
 * The HTML of the OAuth flow: the consent page, the page that shows an
 * out-of-band code, the error page, and the small shell they share with the
 * sign-in page. Plain server-rendered HTML with an inline stylesheet and no
 * script: every value is escaped, and the pages work with keyboards, screen
 * readers and the in-app browsers that Elk, Phanpy and native apps open.
 */
import { escapeHtml, htmlPage } from "./html.ts";

/** A small stylesheet: readable, centred card, visible focus, dark mode. */
const STYLE = `<style>
:root{color-scheme:light dark;--fg:#1f232b;--bg:#f3f4f8;--card:#fff;--muted:#5b6170;--accent:#563acc;--danger:#b3261e;--border:#d6d9e0}
@media (prefers-color-scheme:dark){:root{--fg:#e8e9ee;--bg:#17191f;--card:#22252d;--muted:#a7abb6;--accent:#8c8dff;--danger:#ff8a80;--border:#3a3e49}}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:28rem;margin:2rem auto;padding:1.5rem;background:var(--card);border:1px solid var(--border);border-radius:.5rem}
h1{font-size:1.35rem;margin:0 0 1rem}
p{margin:.5rem 0}
.muted{color:var(--muted);font-size:.9rem}
label{display:block;font-weight:600;margin:1rem 0 .25rem}
input[type=text],input[type=email],input[type=password],.code{display:block;width:100%;padding:.6rem;font:inherit;color:inherit;background:var(--bg);border:1px solid var(--border);border-radius:.35rem}
.code{font-family:ui-monospace,monospace;word-break:break-all;user-select:all}
button{font:inherit;font-weight:600;padding:.6rem 1.2rem;border-radius:.35rem;border:1px solid var(--accent);cursor:pointer}
.primary{background:var(--accent);color:#fff}
.secondary{background:transparent;color:var(--accent)}
.actions{display:flex;gap:.75rem;flex-wrap:wrap;margin-top:1.5rem}
.alert{border-left:4px solid var(--danger);padding:.5rem .75rem;margin:1rem 0;color:var(--danger)}
ul.scopes{padding-left:1.2rem}
ul.scopes li{margin:.25rem 0}
a{color:var(--accent)}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.link{background:none;border:none;padding:0;color:var(--accent);text-decoration:underline;font-weight:normal}
</style>`;

/** The shell of every page of the sign-in and OAuth flow. */
export function authPage(options: { title: string; instanceTitle: string; body: string }): string {
  return htmlPage({
    title: `${options.title} - ${options.instanceTitle}`,
    head: `<meta name="robots" content="noindex">\n${STYLE}`,
    body: `<main>\n${options.body}\n</main>`,
  });
}

/** Hidden inputs carrying parameters from one form to the next. */
export function hiddenFields(fields: Record<string, string | undefined>): string {
  return Object.entries(fields)
    .filter(([, value]) => value !== undefined && value !== "")
    .map(([name, value]) =>
      `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value!)}">`
    )
    .join("\n");
}

/** What each scope lets an application do, in plain words. */
export const SCOPE_DESCRIPTIONS: Record<string, string> = {
  read: "Read all of your account's data",
  "read:accounts": "See account information",
  "read:blocks": "See your blocks",
  "read:bookmarks": "See your bookmarks",
  "read:favourites": "See your favourites",
  "read:filters": "See your filters",
  "read:follows": "See whom you follow",
  "read:lists": "See your lists",
  "read:mutes": "See your mutes",
  "read:notifications": "See your notifications",
  "read:search": "Search on your behalf",
  "read:statuses": "See all posts",
  write: "Change all of your account's data",
  "write:accounts": "Change your profile",
  "write:blocks": "Block accounts and domains",
  "write:bookmarks": "Bookmark posts",
  "write:conversations": "Mute and delete conversations",
  "write:favourites": "Favourite posts",
  "write:filters": "Create filters",
  "write:follows": "Follow people",
  "write:lists": "Create lists",
  "write:media": "Upload media files",
  "write:mutes": "Mute people and conversations",
  "write:notifications": "Clear your notifications",
  "write:reports": "Report other people",
  "write:statuses": "Publish posts",
  follow: "Change whom you follow, block and mute",
  push: "Receive your push notifications",
  profile: "Read only your account's profile information",
  "admin:read": "Read all data on the server",
  "admin:write": "Change all data on the server",
};

/** A plain-words description of a scope (admin sub-scopes are described generically). */
export function describeScope(scope: string): string {
  const known = SCOPE_DESCRIPTIONS[scope];
  if (known) return known;
  const admin = /^admin:(read|write):(.+)$/.exec(scope);
  if (admin) {
    const subject = admin[2].replaceAll("_", " ");
    return admin[1] === "read"
      ? `Read sensitive information of all ${subject} (administration)`
      : `Take moderation actions on ${subject} (administration)`;
  }
  return scope;
}

/** What the consent page shows. */
export interface ConsentPageInput {
  instanceTitle: string;
  appName: string;
  appWebsite: string | null;
  username: string;
  domain: string;
  scopes: string[];
  /** The authorize parameters, carried to the decision. */
  fields: Record<string, string | undefined>;
  csrfToken: string;
}

/** The consent page: who asks for what, with Authorize and Deny. */
export function renderConsentPage(input: ConsentPageInput): string {
  const website = input.appWebsite && /^https?:\/\//i.test(input.appWebsite)
    ? `<p class="muted">Website: <a href="${
      escapeHtml(input.appWebsite)
    }" rel="noopener noreferrer nofollow" target="_blank">${escapeHtml(input.appWebsite)}</a></p>`
    : "";
  const scopes = input.scopes.map((scope) =>
    `<li>${escapeHtml(describeScope(scope))} <span class="muted">(${escapeHtml(scope)})</span></li>`
  ).join("\n");
  const body = `<h1>Authorization required</h1>
<p><strong>${escapeHtml(input.appName)}</strong> would like to access your account
<strong>@${escapeHtml(input.username)}@${escapeHtml(input.domain)}</strong>.</p>
${website}
<p>If you authorize it, it will be able to:</p>
<ul class="scopes">
${scopes}
</ul>
<p class="muted">Only authorize applications you trust.</p>
<form method="post" action="/oauth/authorize">
${hiddenFields({ ...input.fields, authenticity_token: input.csrfToken })}
<div class="actions">
<button type="submit" name="decision" value="approve" class="primary">Authorize</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</div>
</form>
<form method="post" action="/auth/sign_out">
${hiddenFields({ authenticity_token: input.csrfToken, ...input.fields })}
<p class="muted">Not you? <button type="submit" class="link">Sign in with another account</button></p>
</form>`;
  return authPage({ title: "Authorization required", instanceTitle: input.instanceTitle, body });
}

/** The page that shows an out-of-band authorization code. */
export function renderCodePage(input: { instanceTitle: string; code: string }): string {
  const body = `<h1>Authorization code</h1>
<p>Copy this authorization code and paste it into the application.</p>
<label for="code">Code</label>
<input id="code" class="code" type="text" readonly value="${escapeHtml(input.code)}">`;
  return authPage({ title: "Authorization code", instanceTitle: input.instanceTitle, body });
}

/** The page shown when a request cannot be answered by redirecting to the client. */
export function renderOAuthErrorPage(input: {
  instanceTitle: string;
  error: string;
  description: string;
}): string {
  const body = `<h1>An error has occurred</h1>
<div class="alert" role="alert"><p>${escapeHtml(input.description)}</p></div>
<p class="muted">Error code: <code>${escapeHtml(input.error)}</code></p>`;
  return authPage({ title: "An error has occurred", instanceTitle: input.instanceTitle, body });
}
