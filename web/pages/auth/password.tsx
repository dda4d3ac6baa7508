/**
 * The password reset forms: asking for a link by e-mail address
 * (`/auth/password/new`), and choosing a new password with the link's token
 * (`/auth/password/edit`).
 */
import type { FC } from "hono/jsx";
import { AuthLayout, CsrfField, Field, type FieldErrors } from "./layout.tsx";

export const NewPasswordPage: FC<{ instanceTitle: string; csrfToken: string }> = (
  { instanceTitle, csrfToken },
) => (
  <AuthLayout title="Forgot your password?" instanceTitle={instanceTitle}>
    <form method="post" action="/auth/password">
      <CsrfField token={csrfToken} />
      <Field
        name="email"
        label="E-mail address"
        type="email"
        hint="We will send a link to choose a new password to this address, if it has an account."
        autocomplete="email"
        required
        maxlength={320}
      />
      <button type="submit">Send instructions</button>
    </form>
    <nav class="more" aria-label="More">
      <a href="/auth/sign_in">Sign in</a>
      <a href="/auth/sign_up">Sign up</a>
    </nav>
  </AuthLayout>
);

export const EditPasswordPage: FC<{
  instanceTitle: string;
  csrfToken: string;
  resetToken: string;
  errors?: FieldErrors;
}> = ({ instanceTitle, csrfToken, resetToken, errors }) => (
  <AuthLayout title="Choose a new password" instanceTitle={instanceTitle}>
    {errors && Object.keys(errors).length
      ? <p class="alert" role="alert">Please review the problems below.</p>
      : null}
    <form method="post" action="/auth/password/edit">
      <CsrfField token={csrfToken} />
      <input type="hidden" name="reset_password_token" value={resetToken} />
      <Field
        name="password"
        label="New password"
        type="password"
        hint="At least 8 characters. Every device signed in to your account will be signed out."
        errors={errors}
        autocomplete="new-password"
        required
        maxlength={72}
      />
      <Field
        name="password_confirmation"
        label="Confirm new password"
        type="password"
        errors={errors}
        autocomplete="new-password"
        required
        maxlength={72}
      />
      <button type="submit">Change password</button>
    </form>
  </AuthLayout>
);
