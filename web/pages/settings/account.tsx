/**
 * The account settings page: the e-mail address (a change waits for the new
 * address's confirmation) and the password (changing it signs out every
 * other browser and app). Each form asks for the current password. A
 * refused form shows its problems next to the fields and keeps what was
 * typed, except passwords. Hono JSX escapes every value; no script.
 */
import type { FC } from "hono/jsx";
import { CsrfField, type FieldErrors, fieldName } from "../auth/layout.tsx";
import { SettingsLayout, type SettingsViewer } from "./layout.tsx";

/** Which form a refusal belongs to, and what it sent back. */
export type AccountFormState =
  | { form: "email"; errors: FieldErrors; email: string }
  | { form: "password"; errors: FieldErrors };

/** The problems of `key` as one sentence ("Current password is invalid"), or null. */
function problemText(errors: FieldErrors | undefined, key: string): string | null {
  const problems = errors?.[key];
  if (!problems?.length) return null;
  return problems.map((p) => `${fieldName(key)} ${p.description}`).join("; ");
}

/**
 * A labelled input with its hint and error. Unlike the sign-up form's Field,
 * its id is not its name: both forms here have a `current_password`.
 */
const Input: FC<{
  id: string;
  name: string;
  label: string;
  type: string;
  value?: string;
  autocomplete: string;
  hint?: string;
  error: string | null;
  maxlength?: number;
}> = ({ id, name, label, type, value, autocomplete, hint, error, maxlength }) => (
  <div>
    <label for={id}>{label}</label>
    <input
      id={id}
      name={name}
      type={type}
      value={value}
      autocomplete={autocomplete}
      required
      maxlength={maxlength}
      aria-invalid={error ? "true" : undefined}
      aria-describedby={[hint ? `${id}-hint` : "", error ? `${id}-error` : ""]
        .filter(Boolean).join(" ") || undefined}
    />
    {hint ? <p class="hint" id={`${id}-hint`}>{hint}</p> : null}
    {error ? <p class="field-error" id={`${id}-error`}>{error}</p> : null}
  </div>
);

export const AccountPage: FC<{
  instanceTitle: string;
  viewer: SettingsViewer;
  email: string;
  pendingEmail: string | null;
  passwordMin: number;
  state?: AccountFormState;
  notice?: string;
}> = ({ instanceTitle, viewer, email, pendingEmail, passwordMin, state, notice }) => {
  const emailErrors = state?.form === "email" ? state.errors : undefined;
  const passwordErrors = state?.form === "password" ? state.errors : undefined;
  return (
    <SettingsLayout title="Account" instanceTitle={instanceTitle} viewer={viewer} section="account">
      {notice ? <p class="notice" role="status">{notice}</p> : null}
      {state
        ? (
          <p class="alert" role="alert">
            Nothing was changed: see the problems below.
          </p>
        )
        : null}

      <section aria-labelledby="email-heading">
        <h2 id="email-heading">E-mail address</h2>
        <p>
          Your address is <strong data-email>{email}</strong>.
        </p>
        {pendingEmail
          ? (
            <p class="hint" data-pending-email>
              Waiting for confirmation:{" "}
              <strong>{pendingEmail}</strong>. Follow the link mailed there to start using it; until
              then your current address stays. Enter your current address to cancel the change.
            </p>
          )
          : null}
        <form method="post" action="/settings/account/email" class="email-form">
          <CsrfField token={viewer.csrfToken} />
          <EmailFields errors={emailErrors} email={state?.form === "email" ? state.email : ""} />
          <button type="submit">Change e-mail address</button>
        </form>
      </section>

      <section aria-labelledby="password-heading">
        <h2 id="password-heading">Password</h2>
        <p>Changing your password signs out every other browser and every app.</p>
        <form method="post" action="/settings/account/password" class="password-form">
          <CsrfField token={viewer.csrfToken} />
          <PasswordFields errors={passwordErrors} passwordMin={passwordMin} />
          <button type="submit">Change password</button>
        </form>
      </section>

      <nav class="more" aria-label="More">
        <a href="/settings/otp_authentication">Two-factor sign-in</a>
        <a href="/settings/sessions">Sessions</a>
      </nav>
    </SettingsLayout>
  );
};

const EmailFields: FC<{ errors?: FieldErrors; email: string }> = ({ errors, email }) => (
  <>
    <Input
      id="email"
      name="email"
      label="New e-mail address"
      type="email"
      value={email}
      autocomplete="email"
      maxlength={320}
      error={problemText(errors, "email")}
    />
    <Input
      id="email-current-password"
      name="current_password"
      label="Current password"
      type="password"
      autocomplete="current-password"
      hint="To make sure it is you."
      error={problemText(errors, "current_password")}
    />
  </>
);

const PasswordFields: FC<{ errors?: FieldErrors; passwordMin: number }> = (
  { errors, passwordMin },
) => (
  <>
    <Input
      id="password-current-password"
      name="current_password"
      label="Current password"
      type="password"
      autocomplete="current-password"
      error={problemText(errors, "current_password")}
    />
    <Input
      id="password"
      name="password"
      label="New password"
      type="password"
      autocomplete="new-password"
      hint={`At least ${passwordMin} characters.`}
      error={problemText(errors, "password")}
    />
    <Input
      id="password_confirmation"
      name="password_confirmation"
      label="Confirm the new password"
      type="password"
      autocomplete="new-password"
      error={problemText(errors, "password_confirmation")}
    />
  </>
);
