/**
 * The shell of the settings pages of a signed-in user: the sections, the
 * signed-in account and a sign-out button. Shares the account pages'
 * stylesheet (api/pages/auth/layout.tsx); no script.
 */
import type { Child, FC } from "hono/jsx";
import { CsrfField, STYLE } from "../auth/layout.tsx";

export const SETTINGS_SECTIONS = [
  { key: "profile", path: "/settings/profile", label: "Profile" },
  { key: "account", path: "/settings/account", label: "Account" },
  { key: "otp", path: "/settings/otp_authentication", label: "Two-factor sign-in" },
  { key: "applications", path: "/settings/applications", label: "Authorized apps" },
  { key: "sessions", path: "/settings/sessions", label: "Sessions" },
  { key: "archive", path: "/settings/archive", label: "Archive" },
  { key: "aliases", path: "/settings/aliases", label: "Account aliases" },
  { key: "migration", path: "/settings/migration", label: "Move account" },
  { key: "delete", path: "/settings/delete", label: "Delete account" },
] as const;

export type SettingsSection = (typeof SETTINGS_SECTIONS)[number]["key"];

export interface SettingsViewer {
  username: string;
  csrfToken: string;
}

const EXTRA = `
main{max-width:44rem}
header{display:flex;flex-wrap:wrap;gap:1rem;align-items:center}
header nav a{font-weight:400;margin-right:1rem;color:var(--accent);text-decoration:underline}
header nav a[aria-current=page]{font-weight:700}
header .who{margin-left:auto;color:var(--muted)}
header form{display:inline}
header form button{width:auto;margin:0;padding:.2rem .7rem}
table{width:100%;border-collapse:collapse}
th,td{text-align:left;padding:.45rem .4rem;border-bottom:1px solid var(--border);vertical-align:top}
td button{width:auto;margin:0;padding:.25rem .8rem}
code,.secret{font-family:ui-monospace,monospace;word-break:break-all}
ol.codes{font-family:ui-monospace,monospace;font-size:1.1rem}
`;

export const SettingsLayout: FC<{
  title: string;
  instanceTitle: string;
  viewer: SettingsViewer;
  section: SettingsSection;
  children?: Child;
}> = ({ title, instanceTitle, viewer, section, children }) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="robots" content="noindex" />
      <title>{`${title} - Settings - ${instanceTitle}`}</title>
      <style dangerouslySetInnerHTML={{ __html: STYLE + EXTRA }} />
    </head>
    <body>
      <header>
        <a href="/">{instanceTitle}</a>
        <nav aria-label="Settings">
          {SETTINGS_SECTIONS.map((s) => (
            <a href={s.path} aria-current={s.key === section ? "page" : undefined}>
              {s.label}
            </a>
          ))}
        </nav>
        <span class="who">
          @{viewer.username}{" "}
          <form method="post" action="/auth/sign_out">
            <CsrfField token={viewer.csrfToken} />
            <input type="hidden" name="redirect_to" value="/auth/sign_in" />
            <button type="submit">Sign out</button>
          </form>
        </span>
      </header>
      <main>
        <h1>{title}</h1>
        {children}
      </main>
    </body>
  </html>
);
