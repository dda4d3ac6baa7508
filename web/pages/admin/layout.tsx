/**
 * The staff pages under /admin on the shared shell (../shell.tsx):
 * navigation by permission, the signed-in moderator, a notice after an
 * action, and the pieces every page uses (the CSRF field, a form button,
 * pagination). Hono JSX, so every value is escaped unless a component says
 * otherwise; no script on any page.
 */
import type { Child, FC } from "hono/jsx";
import { hasPermission, type Permission } from "../../../model/permissions.ts";
import { Brand, CsrfField, Shell, SignOutButton } from "../shell.tsx";

/** The hidden field that proves a form came from one of our pages (one definition: the shell's). */
export { CsrfField };

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
  { key: "roles", path: "/admin/roles", label: "Roles", permission: "manage_roles" },
  { key: "settings", path: "/admin/settings", label: "Settings", permission: "manage_settings" },
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
    <Shell
      title={`${title} - Administration - ${instanceTitle}`}
      layout="admin"
      robots="noindex"
      header={
        <>
          <Brand instanceTitle={instanceTitle} />
          <nav aria-label="Administration">
            {SECTIONS.filter((s) => hasPermission(viewer.role, s.permission)).map((s) => (
              <a href={s.path} aria-current={s.key === section ? "page" : undefined}>
                {s.label}
              </a>
            ))}
          </nav>
          <span class="who">
            @{viewer.username} ({viewer.role})
            <SignOutButton token={viewer.csrfToken} />
          </span>
        </>
      }
    >
      {message ? <p class="notice" role="status">{message}</p> : null}
      <h1>{title}</h1>
      {children}
    </Shell>
  );
};

/** The page a signed-in user sees where their role does not reach. */
export const ForbiddenPage: FC<{ instanceTitle: string }> = ({ instanceTitle }) => (
  <Shell
    title={`Forbidden - ${instanceTitle}`}
    layout="admin"
    robots="noindex"
    header={<Brand instanceTitle={instanceTitle} />}
  >
    <h1>Forbidden</h1>
    <p class="alert" role="alert">
      You are not allowed to view this page. It is for the moderators of {instanceTitle}.
    </p>
  </Shell>
);
