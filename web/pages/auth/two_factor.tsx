/** The second step of signing in when two-factor sign-in is on: the code form. */
import type { FC } from "hono/jsx";
import { AuthLayout, CsrfField } from "./layout.tsx";

export const OtpChallengePage: FC<{ instanceTitle: string; csrfToken: string; error?: string }> = (
  { instanceTitle, csrfToken, error },
) => (
  <AuthLayout title="Two-factor authentication" instanceTitle={instanceTitle}>
    {error ? <p class="alert" role="alert" id="otp-error">{error}</p> : null}
    <form method="post" action="/auth/sign_in/otp">
      <CsrfField token={csrfToken} />
      <label for="otp_attempt">Code from your authenticator app</label>
      <input
        id="otp_attempt"
        name="otp_attempt"
        type="text"
        inputmode="numeric"
        autocomplete="one-time-code"
        maxlength={20}
        required
        autofocus
        aria-describedby={error ? "otp-hint otp-error" : "otp-hint"}
      />
      <p class="hint" id="otp-hint">
        Enter the 6-digit code your app shows now. Lost your phone? Enter one of your recovery codes
        instead.
      </p>
      <button type="submit">Sign in</button>
    </form>
  </AuthLayout>
);
