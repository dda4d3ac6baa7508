/**
 * Asking for the confirmation link again (`/auth/confirmation/new`), for a
 * sign-up whose mail got lost or whose link expired, and for a new address
 * waiting for confirmation.
 */
import type { FC } from "hono/jsx";
import { AuthLayout, CsrfField, Field } from "./layout.tsx";

export const NewConfirmationPage: FC<{ instanceTitle: string; csrfToken: string }> = (
  { instanceTitle, csrfToken },
) => (
  <AuthLayout title="Resend the confirmation link" instanceTitle={instanceTitle}>
    <form method="post" action="/auth/confirmation">
      <CsrfField token={csrfToken} />
      <Field
        name="email"
        label="E-mail address"
        type="email"
        hint="The address you signed up with, or the new address you asked for. A new link works for two days; earlier links stop working."
        autocomplete="email"
        required
        maxlength={320}
      />
      <button type="submit">Resend the link</button>
    </form>
    <nav class="more" aria-label="More">
      <a href="/auth/sign_in">Sign in</a>
      <a href="/auth/password/new">Forgot your password?</a>
    </nav>
  </AuthLayout>
);
