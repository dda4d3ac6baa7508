/**
 * The password asked again before a sensitive settings page opens
 * (actors/auth/password_challenge.ts; Mastodon's "Confirm password" page).
 */
import type { FC } from "hono/jsx";
import { CsrfField, Field, type FieldErrors } from "../auth/layout.tsx";
import { SettingsLayout, type SettingsSection, type SettingsViewer } from "./layout.tsx";

export const PasswordChallengePage: FC<{
  instanceTitle: string;
  viewer: SettingsViewer;
  section: SettingsSection;
  /** Where the form posts the password. */
  action: string;
  /** What the password opens, in a few words ("set up two-factor sign-in"). */
  purpose: string;
  errors?: FieldErrors;
  notice?: string;
}> = ({ instanceTitle, viewer, section, action, purpose, errors, notice }) => (
  <SettingsLayout
    title="Confirm your password"
    instanceTitle={instanceTitle}
    viewer={viewer}
    section={section}
  >
    {notice ? <p class="notice" role="status">{notice}</p> : null}
    <p>
      To {purpose}, type your password again. It stays confirmed on this browser for an hour.
    </p>
    <form method="post" action={action}>
      <CsrfField token={viewer.csrfToken} />
      <Field
        name="current_password"
        label="Password"
        type="password"
        errors={errors}
        required
        autocomplete="current-password"
        maxlength={1000}
      />
      <button type="submit">Continue</button>
    </form>
  </SettingsLayout>
);
