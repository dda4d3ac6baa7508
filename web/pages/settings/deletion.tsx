/** /settings/delete: deleting one's own account, with the password as confirmation. */
import type { FC } from "hono/jsx";
import { CsrfField, Field, type FieldErrors } from "../auth/layout.tsx";
import { SettingsLayout, type SettingsViewer } from "./layout.tsx";

export const DeleteAccountPage: FC<{
  instanceTitle: string;
  viewer: SettingsViewer;
  domain: string;
  errors?: FieldErrors;
}> = ({ instanceTitle, viewer, domain, errors }) => (
  <SettingsLayout
    title="Delete account"
    instanceTitle={instanceTitle}
    viewer={viewer}
    section="delete"
  >
    {errors && Object.keys(errors).length
      ? <p class="alert" role="alert">The account was not deleted: see below.</p>
      : null}
    <p>
      <strong>This cannot be undone.</strong> Deleting your account:
    </p>
    <ul>
      <li>removes your profile, posts, follows and followers, and signs every app out;</li>
      <li>tells the servers that know your account to delete their copies of it;</li>
      <li>
        keeps the name <strong>@{viewer.username}@{domain}</strong>{" "}
        reserved: nobody can sign up with it again, not even you.
      </li>
    </ul>
    <p>
      To take your followers along, <a href="/settings/migration">move to another account</a>{" "}
      first. You can <a href="/settings/export">export your data</a> before you go.
    </p>
    <form method="post" action="/settings/delete" class="delete-account">
      <CsrfField token={viewer.csrfToken} />
      <Field
        name="password"
        label="Your password, to confirm"
        type="password"
        errors={errors}
        required
        autocomplete="current-password"
        maxlength={1000}
      />
      <button type="submit">Delete my account</button>
    </form>
  </SettingsLayout>
);
