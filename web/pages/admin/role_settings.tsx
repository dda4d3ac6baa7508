/**
 * The staff pages of Mastodon 4.7's per-role and server-wide settings:
 * /admin/roles (each role's two-factor requirement, collection limit and
 * e-mail subscriptions, one form per role) and /admin/settings (the
 * server's e-mail subscription switch). Forms post to
 * web/routes/admin/role_settings.tsx.
 */
import type { FC } from "hono/jsx";
import type { RoleSettings } from "../../../actors/roles/role_settings.ts";
import { CsrfField } from "./layout.tsx";

const ROLE_LABELS: Record<string, string> = {
  user: "Users (everyone)",
  moderator: "Moderators",
  admin: "Admins",
  owner: "Owner",
};

const Check: FC<{ id: string; name: string; label: string; checked: boolean }> = (
  { id, name, label, checked },
) => (
  <label class="check" for={id}>
    <input id={id} type="checkbox" name={name} value="true" checked={checked} /> {label}
  </label>
);

/** One role's form; `editable` false shows it without a form (a role above the viewer's). */
const RoleForm: FC<{ settings: RoleSettings; token: string; editable: boolean; max: number }> = (
  { settings, token, editable, max },
) => {
  const id = (field: string) => `role-${settings.role}-${field}`;
  const heading = <h2 id={id("title")}>{ROLE_LABELS[settings.role] ?? settings.role}</h2>;
  if (!editable) {
    return (
      <section class="card role" aria-labelledby={id("title")}>
        {heading}
        <ul>
          <li>Two-factor sign-in required: {settings.requireTwoFactor ? "yes" : "no"}</li>
          <li>Collections per account: {settings.collectionLimit}</li>
          <li>E-mail subscriptions: {settings.emailSubscriptions ? "allowed" : "not allowed"}</li>
        </ul>
      </section>
    );
  }
  return (
    <section class="card role" aria-labelledby={id("title")}>
      {heading}
      <form method="post" action={`/admin/roles/${settings.role}`}>
        <CsrfField token={token} />
        <Check
          id={id("2fa")}
          name="require_two_factor"
          label="Require two-factor sign-in"
          checked={settings.requireTwoFactor}
        />
        <label for={id("limit")}>Collections per account (0 to {max})</label>
        <input
          id={id("limit")}
          type="number"
          name="collection_limit"
          min={0}
          max={max}
          required
          value={String(settings.collectionLimit)}
        />
        <Check
          id={id("email")}
          name="email_subscriptions"
          label="Members may take e-mail subscriptions"
          checked={settings.emailSubscriptions}
        />
        <button type="submit">Save</button>
      </form>
    </section>
  );
};

export const RolesPage: FC<{
  roles: RoleSettings[];
  /** The roles the viewer may change. */
  editable: readonly string[];
  token: string;
  max: number;
}> = ({ roles, editable, token, max }) => (
  <>
    <p class="muted">
      What each role's members must do and may do. A role that requires two-factor sign-in sends its
      members without it to set it up before any settings or staff page.
    </p>
    {roles.map((r) => (
      <RoleForm settings={r} token={token} editable={editable.includes(r.role)} max={max} />
    ))}
  </>
);

export const ServerSettingsPage: FC<{
  emailSubscriptions: boolean;
  /** EMAIL_SUBSCRIPTIONS: without it the switch changes nothing. */
  operatorAllows: boolean;
  token: string;
}> = ({ emailSubscriptions, operatorAllows, token }) => (
  <form method="post" action="/admin/settings" class="card">
    <CsrfField token={token} />
    <h2>E-mail subscriptions</h2>
    {operatorAllows ? null : (
      <p class="muted">
        The server is not configured for them (EMAIL_SUBSCRIPTIONS is off): this switch has no
        effect until it is.
      </p>
    )}
    <Check
      id="setting-email-subscriptions"
      name="email_subscriptions"
      label="Let visitors subscribe by e-mail to the accounts whose role allows it"
      checked={emailSubscriptions}
    />
    <button type="submit">Save</button>
  </form>
);
