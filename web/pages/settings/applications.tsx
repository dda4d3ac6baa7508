/** The authorized applications and the browser sessions of the signed-in user. */
import type { FC } from "hono/jsx";
import { CsrfField } from "../auth/layout.tsx";
import { SettingsLayout, type SettingsViewer } from "./layout.tsx";
import type { AuthorizedApp, SessionEntry } from "../../../actors/oauth/authorized_apps.ts";

const when = (date: Date | null) => date ? date.toISOString().slice(0, 16).replace("T", " ") : "—";

const Notice: FC<{ notice?: string }> = ({ notice }) =>
  notice ? <p class="notice" role="status">{notice}</p> : null;

export const ApplicationsPage: FC<{
  instanceTitle: string;
  viewer: SettingsViewer;
  apps: AuthorizedApp[];
  notice?: string;
}> = ({ instanceTitle, viewer, apps, notice }) => (
  <SettingsLayout
    title="Authorized apps"
    instanceTitle={instanceTitle}
    viewer={viewer}
    section="applications"
  >
    <Notice notice={notice} />
    <p>These apps can use your account. Revoking one signs it out at once.</p>
    {apps.length === 0 ? <p>No app has access to your account.</p> : (
      <table class="apps">
        <thead>
          <tr>
            <th scope="col">App</th>
            <th scope="col">Permissions</th>
            <th scope="col">Authorized (UTC)</th>
            <th scope="col">
              <span class="hint">Action</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {apps.map((app) => (
            <tr data-app={app.id}>
              <td>
                {app.website
                  ? <a href={app.website} rel="noopener noreferrer nofollow">{app.name}</a>
                  : app.name}
              </td>
              <td>
                <code>{app.scopes.join(" ")}</code>
              </td>
              <td>{when(app.authorizedAt)}</td>
              <td>
                <form method="post" action={`/settings/applications/${app.id}/revoke`}>
                  <CsrfField token={viewer.csrfToken} />
                  <button type="submit" aria-label={`Revoke ${app.name}`}>Revoke</button>
                </form>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    )}
  </SettingsLayout>
);

export const SessionsPage: FC<{
  instanceTitle: string;
  viewer: SettingsViewer;
  sessions: SessionEntry[];
  currentId: string;
  notice?: string;
}> = ({ instanceTitle, viewer, sessions, currentId, notice }) => (
  <SettingsLayout title="Sessions" instanceTitle={instanceTitle} viewer={viewer} section="sessions">
    <Notice notice={notice} />
    <p>The browsers signed in to your account.</p>
    <table class="sessions">
      <thead>
        <tr>
          <th scope="col">Browser</th>
          <th scope="col">IP</th>
          <th scope="col">Last active (UTC)</th>
          <th scope="col">
            <span class="hint">Action</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {sessions.map((s) => (
          <tr data-session={s.id}>
            <td>{s.userAgent ?? "Unknown browser"}</td>
            <td>{s.ip ?? "—"}</td>
            <td>{when(s.lastSeenAt)}</td>
            <td>
              {s.id === currentId
                ? <strong>This browser</strong>
                : (
                  <form method="post" action={`/settings/sessions/${s.id}/end`}>
                    <CsrfField token={viewer.csrfToken} />
                    <button type="submit">Sign out</button>
                  </form>
                )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
    {sessions.length > 1
      ? (
        <form method="post" action="/settings/sessions/end_others">
          <CsrfField token={viewer.csrfToken} />
          <button type="submit">Sign out everywhere else</button>
        </form>
      )
      : null}
  </SettingsLayout>
);
