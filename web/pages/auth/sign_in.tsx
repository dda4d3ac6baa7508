/** The sign-in page that the OAuth flow (and any page that needs a session) shows a browser. */
import type { FC } from "hono/jsx";
import { AuthLayout } from "./layout.tsx";
import { HiddenFields } from "../shell.tsx";

/** What the sign-in page shows. */
export interface SignInPageInput {
  instanceTitle: string;
  domain: string;
  /** The authorize parameters to resume with after signing in. */
  fields: Record<string, string | undefined>;
  /** The double-submit token (also in a cookie) that stops cross-site sign-ins. */
  csrfToken: string;
  /** What the user typed last time (never the password). */
  login?: string;
  /** Why the last attempt failed. */
  error?: string;
  /** The name of the application that asked, when known. */
  appName?: string;
}

/** The sign-in form, posting to POST /auth/sign_in. */
export const SignInPage: FC<SignInPageInput> = (input) => {
  const described = input.error ? "sign-in-error" : undefined;
  return (
    <AuthLayout title="Sign in" instanceTitle={input.instanceTitle}>
      {input.appName
        ? (
          <p>
            <strong>{input.appName}</strong> wants to access your account on{" "}
            {input.domain}. Sign in to continue.
          </p>
        )
        : <p>Sign in to your account on {input.domain}.</p>}
      {input.error
        ? (
          <div class="alert" role="alert" id="sign-in-error">
            <p>{input.error}</p>
          </div>
        )
        : null}
      <form method="post" action="/auth/sign_in">
        <HiddenFields fields={{ ...input.fields, authenticity_token: input.csrfToken }} />
        <label for="login">E-mail address or username</label>
        <input
          id="login"
          name="login"
          type="text"
          autocomplete="username"
          autocapitalize="none"
          spellcheck={false}
          required
          value={input.login ?? ""}
          aria-describedby={described}
          autofocus={!input.login}
        />
        <label for="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="current-password"
          required
          aria-describedby={described}
          autofocus={!!input.login}
        />
        <button type="submit">Sign in</button>
      </form>
      <nav class="more" aria-label="Account help">
        <a href="/auth/password/new">Forgot your password?</a>
        <a href="/auth/confirmation/new">No confirmation link?</a>
        <a href="/auth/sign_up">Sign up</a>
      </nav>
    </AuthLayout>
  );
};
