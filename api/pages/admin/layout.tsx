/**
 * The shell of the staff pages under /admin: navigation by permission, the
 * signed-in moderator, a notice after an action, and the pieces every page
 * uses (the CSRF field, a form button, pagination). Hono JSX, so every value
 * is escaped unless a component says otherwise; no script on any page.
 */
import type { Child, FC } from "hono/jsx";
import { hasPermission, type Permission } from "../../../actors/permissions.ts";

/** The sections of the staff pages, each with the permission it needs. */
export const SECTIONS = [
  { key: "dashboard", path: "/admin", label: "Dashboard", permission: "view_dashboard" },
  { key: "reports", path: "/admin/reports", label: "Reports", permission: "manage_reports" },
  { key: "accounts", path: "/admin/accounts", label: "Accounts", permission: "manage_users" },
  {
    key: "domain_blocks",
    path: "/admin/domain_blocks",
    label: "Domain blocks",
    permission: "manage_federation",
  },
] as const satisfies readonly {
  key: string;
  path: string;
  label: string;
  permission: Permission;
}[];

export type SectionKey = (typeof SECTIONS)[number]["key"];

/**
 * Messages shown after an action, by key: the redirect after a form post
 * carries `?notice=<key>`, never the text itself, so a link cannot make the
 * page say something of its choosing.
 */
export const NOTICES: Record<string, string> = {};

/** Adds a section's notices (each page module registers its own). */
export function registerNotices(notices: Record<string, string>): void {
  Object.assign(NOTICES, notices);
}

/** Who is signed in, as the shell shows it. */
export interface StaffViewer {
  username: string;
  role: string;
  /** The session's form token, for every form of the page. */
  csrfToken: string;
}

const STYLE = `
:root{color-scheme:light dark;--fg:#1f232b;--bg:#f3f4f8;--card:#fff;--muted:#5b6170;--accent:#563acc;--danger:#b3261e;--ok:#1e7b34;--border:#d6d9e0}
@media (prefers-color-scheme:dark){:root{--fg:#e8e9ee;--bg:#17191f;--card:#22252d;--muted:#a7abb6;--accent:#8c8dff;--danger:#ff8a80;--ok:#7bd88f;--border:#3a3e49}}
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
header{display:flex;flex-wrap:wrap;align-items:center;gap:1rem;padding:.75rem 1.5rem;background:var(--card);border-bottom:1px solid var(--border)}
header .brand{font-weight:700;margin-right:1rem}
header nav a{margin-right:1rem;text-decoration:none}
header nav a[aria-current=page]{font-weight:700;text-decoration:underline}
header .who{margin-left:auto;color:var(--muted)}
main{max-width:72rem;margin:1.5rem auto;padding:0 1.5rem}
h1{font-size:1.4rem;margin:0 0 1rem}
h2{font-size:1.1rem;margin:1.5rem 0 .5rem}
section.card,div.card{background:var(--card);border:1px solid var(--border);border-radius:.5rem;padding:1rem;margin:0 0 1rem}
table{width:100%;border-collapse:collapse;background:var(--card)}
th,td{text-align:left;padding:.45rem .6rem;border-bottom:1px solid var(--border);vertical-align:top}
th{font-size:.85rem;color:var(--muted)}
dl.counts{display:grid;grid-template-columns:repeat(auto-fill,minmax(11rem,1fr));gap:.75rem;margin:0}
dl.counts div{background:var(--card);border:1px solid var(--border);border-radius:.5rem;padding:.75rem}
dl.counts dt{color:var(--muted);font-size:.85rem}
dl.counts dd{margin:0;font-size:1.6rem;font-weight:700}
.muted{color:var(--muted);font-size:.9rem}
.notice{border-left:4px solid var(--ok);padding:.5rem .75rem;margin:0 0 1rem;background:var(--card)}
.alert{border-left:4px solid var(--danger);padding:.5rem .75rem;margin:0 0 1rem;background:var(--card);color:var(--danger)}
form.inline{display:inline}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
input[type=text],input[type=search],select,textarea{font:inherit;color:inherit;background:var(--bg);border:1px solid var(--border);border-radius:.35rem;padding:.4rem;max-width:100%}
textarea{width:100%;min-height:4rem}
button{font:inherit;font-weight:600;padding:.35rem .9rem;border-radius:.35rem;border:1px solid var(--accent);background:var(--accent);color:#fff;cursor:pointer}
button.secondary{background:transparent;color:var(--accent)}
button.danger{background:var(--danger);border-color:var(--danger)}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;margin:.75rem 0}
.filters{display:flex;flex-wrap:wrap;gap:.75rem;align-items:end;margin:0 0 1rem}
.filters label{margin:0}
.pagination{display:flex;gap:1rem;margin:1rem 0}
a{color:var(--accent)}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
`;

/** The hidden field that proves a form came from one of our pages. */
export const CsrfField: FC<{ token: string }> = ({ token }) => (
  <input type="hidden" name="authenticity_token" value={token} />
);

/** A form that is only a button: POSTs to `action` with the CSRF token and `fields`. */
export const ActionButton: FC<{
  action: string;
  token: string;
  label: string;
  fields?: Record<string, string>;
  variant?: "primary" | "secondary" | "danger";
}> = ({ action, token, label, fields, variant }) => (
  <form method="post" action={action} class="inline">
    <CsrfField token={token} />
    {Object.entries(fields ?? {}).map(([name, value]) => (
      <input type="hidden" name={name} value={value} />
    ))}
    <button type="submit" class={variant && variant !== "primary" ? variant : undefined}>
      {label}
    </button>
  </form>
);

/** Newer/older links for a page of rows ordered by id, newest first. */
export const Pagination: FC<{ newer?: string | null; older?: string | null }> = (
  { newer, older },
) => (
  <nav class="pagination" aria-label="Pages">
    {newer ? <a href={newer} rel="prev">Newer</a> : null}
    {older ? <a href={older} rel="next">Older</a> : null}
  </nav>
);

/** The page shell of every staff page. */
export const AdminLayout: FC<{
  title: string;
  instanceTitle: string;
  viewer: StaffViewer;
  section?: SectionKey;
  notice?: string | null;
  children?: Child;
}> = ({ title, instanceTitle, viewer, section, notice, children }) => {
  const message = notice ? NOTICES[notice] : undefined;
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <title>{`${title} - Administration - ${instanceTitle}`}</title>
        <style dangerouslySetInnerHTML={{ __html: STYLE }} />
      </head>
      <body>
        <header>
          <span class="brand">{instanceTitle}</span>
          <nav aria-label="Administration">
            {SECTIONS.filter((s) => hasPermission(viewer.role, s.permission)).map((s) => (
              <a href={s.path} aria-current={s.key === section ? "page" : undefined}>
                {s.label}
              </a>
            ))}
          </nav>
          <span class="who">
            @{viewer.username} ({viewer.role}){" "}
            <form method="post" action="/auth/sign_out" class="inline">
              <CsrfField token={viewer.csrfToken} />
              <button type="submit" class="secondary">Sign out</button>
            </form>
          </span>
        </header>
        <main>
          {message ? <p class="notice" role="status">{message}</p> : null}
          <h1>{title}</h1>
          {children}
        </main>
      </body>
    </html>
  );
};

/** The page a signed-in user sees where their role does not reach. */
export const ForbiddenPage: FC<{ instanceTitle: string }> = ({ instanceTitle }) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="robots" content="noindex" />
      <title>{`Forbidden - ${instanceTitle}`}</title>
      <style dangerouslySetInnerHTML={{ __html: STYLE }} />
    </head>
    <body>
      <main>
        <h1>Forbidden</h1>
        <p class="alert" role="alert">
          You are not allowed to view this page. It is for the moderators of {instanceTitle}.
        </p>
      </main>
    </body>
  </html>
);
