/**
 * The settings pages of a signed-in user on the shared shell (../shell.tsx):
 * the sections as the header's navigation, the signed-in account and a
 * sign-out button. A section is one entry of SETTINGS_SECTIONS; a page
 * names its own with `section`.
 */
import type { Child, FC } from "hono/jsx";
import { Brand, Shell, SignOutButton } from "../shell.tsx";

export const SETTINGS_SECTIONS = [
  { key: "profile", path: "/settings/profile", label: "Profile" },
  { key: "account", path: "/settings/account", label: "Account" },
  { key: "otp", path: "/settings/otp_authentication", label: "Two-factor sign-in" },
  { key: "applications", path: "/settings/applications", label: "Authorized apps" },
  { key: "interactions", path: "/settings/interactions", label: "Interactions" },
  {
    key: "interaction_requests",
    path: "/settings/interaction_requests",
    label: "Waiting for approval",
  },
  { key: "export", path: "/settings/export", label: "Export" },
  { key: "import", path: "/settings/import", label: "Import" },
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

/** The sections, the current one marked for screen readers and the eye. */
const SectionNav: FC<{ section: SettingsSection }> = ({ section }) => (
  <nav aria-label="Settings">
    {SETTINGS_SECTIONS.map((s) => (
      <a href={s.path} aria-current={s.key === section ? "page" : undefined}>
        {s.label}
      </a>
    ))}
  </nav>
);

export const SettingsLayout: FC<{
  title: string;
  instanceTitle: string;
  viewer: SettingsViewer;
  section: SettingsSection;
  children?: Child;
}> = ({ title, instanceTitle, viewer, section, children }) => (
  <Shell
    title={`${title} - Settings - ${instanceTitle}`}
    layout="settings"
    robots="noindex"
    header={
      <>
        <Brand instanceTitle={instanceTitle} />
        <SectionNav section={section} />
        <span class="who">
          @{viewer.username}
          <SignOutButton token={viewer.csrfToken} redirectTo="/auth/sign_in" />
        </span>
      </>
    }
  >
    <h1>{title}</h1>
    {children}
  </Shell>
);
