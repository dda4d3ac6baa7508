/**
 * Two-factor sign-in settings: turning it on (the secret as text and as an
 * otpauth:// URI, confirmed by a first code), the recovery codes shown once,
 * and turning it off (password and a code).
 */
import type { FC } from "hono/jsx";
import { CsrfField } from "../auth/layout.tsx";
import { SettingsLayout, type SettingsViewer } from "./layout.tsx";

interface Common {
  instanceTitle: string;
  viewer: SettingsViewer;
  error?: string;
}

const Alert: FC<{ error?: string; id: string }> = ({ error, id }) =>
  error ? <p class="alert" role="alert" id={id}>{error}</p> : null;

export const EnableOtpPage: FC<Common & { secret: string; uri: string }> = (
  { instanceTitle, viewer, error, secret, uri },
) => (
  <SettingsLayout
    title="Two-factor sign-in"
    instanceTitle={instanceTitle}
    viewer={viewer}
    section="otp"
  >
    <p>
      Two-factor sign-in is{" "}
      <strong>off</strong>. Turn it on and signing in will ask, after your password, for a code from
      an authenticator app on your phone.
    </p>
    <h2>1. Add this account to your app</h2>
    <p>Type this key into the app (time-based, 6 digits, 30 seconds):</p>
    <p class="secret" data-otp-secret>{secret}</p>
    <p>Or, if the app takes a link, this one:</p>
    <p>
      <code data-otp-uri>{uri}</code>
    </p>
    <h2>2. Confirm with a code</h2>
    <Alert error={error} id="otp-error" />
    <form method="post" action="/settings/otp_authentication">
      <CsrfField token={viewer.csrfToken} />
      <label for="otp_attempt">Code from the app</label>
      <input
        id="otp_attempt"
        name="otp_attempt"
        type="text"
        inputmode="numeric"
        autocomplete="one-time-code"
        maxlength={20}
        required
        aria-describedby={error ? "otp-error" : undefined}
      />
      <button type="submit">Turn on two-factor sign-in</button>
    </form>
  </SettingsLayout>
);

export const RecoveryCodesPage: FC<Common & { codes: string[] }> = (
  { instanceTitle, viewer, codes },
) => (
  <SettingsLayout
    title="Two-factor sign-in is on"
    instanceTitle={instanceTitle}
    viewer={viewer}
    section="otp"
  >
    <p class="notice" role="status">
      Two-factor sign-in is now on. Keep these recovery codes somewhere safe: each works once, in
      place of a code, if you lose your phone. They are shown only now.
    </p>
    <ol class="codes" data-recovery-codes>
      {codes.map((code) => {
        // Hono's precompiled JSX would print a `key` as an attribute.
        // deno-lint-ignore jsx-key
        return <li>{code}</li>;
      })}
    </ol>
    <p>
      <a href="/settings/otp_authentication">Done</a>
    </p>
  </SettingsLayout>
);

export const DisableOtpPage: FC<Common & { recoveryCodesLeft: number; notice?: string }> = (
  { instanceTitle, viewer, error, recoveryCodesLeft, notice },
) => (
  <SettingsLayout
    title="Two-factor sign-in"
    instanceTitle={instanceTitle}
    viewer={viewer}
    section="otp"
  >
    {notice ? <p class="notice" role="status">{notice}</p> : null}
    <p>
      Two-factor sign-in is <strong>on</strong>. You have {recoveryCodesLeft} unused recovery codes.
    </p>
    <h2>Turn it off</h2>
    <Alert error={error} id="disable-error" />
    <form method="post" action="/settings/otp_authentication/disable">
      <CsrfField token={viewer.csrfToken} />
      <label for="password">Password</label>
      <input
        id="password"
        name="password"
        type="password"
        autocomplete="current-password"
        required
      />
      <label for="otp_attempt">Code from the app, or a recovery code</label>
      <input
        id="otp_attempt"
        name="otp_attempt"
        type="text"
        autocomplete="one-time-code"
        maxlength={20}
        required
      />
      <button type="submit">Turn off two-factor sign-in</button>
    </form>
  </SettingsLayout>
);
