/** The sign-in page that the OAuth flow shows to a browser without a session. */
import { escapeHtml } from "./html.ts";
import { authPage, hiddenFields } from "./oauth_pages.ts";

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

/** Renders the sign-in form, posting to POST /auth/sign_in. */
export function renderSignInPage(input: SignInPageInput): string {
  const alert = input.error
    ? `<div class="alert" role="alert" id="sign-in-error"><p>${escapeHtml(input.error)}</p></div>`
    : "";
  const described = input.error ? ` aria-describedby="sign-in-error"` : "";
  const intro = input.appName
    ? `<p><strong>${escapeHtml(input.appName)}</strong> wants to access your account on ${
      escapeHtml(input.domain)
    }. Sign in to continue.</p>`
    : `<p>Sign in to your account on ${escapeHtml(input.domain)}.</p>`;
  const body = `<h1>Sign in</h1>
${intro}
${alert}
<form method="post" action="/auth/sign_in">
${hiddenFields({ ...input.fields, authenticity_token: input.csrfToken })}
<label for="login">E-mail address or username</label>
<input id="login" name="login" type="text" autocomplete="username" autocapitalize="none" spellcheck="false" required value="${
    escapeHtml(input.login ?? "")
  }"${described}${input.login ? "" : " autofocus"}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${described}${
    input.login ? " autofocus" : ""
  }>
<div class="actions">
<button type="submit" class="primary">Sign in</button>
</div>
</form>
<nav aria-label="Account help"><p><a href="/auth/password/new">Forgot your password?</a> · <a href="/auth/confirmation/new">No confirmation link?</a> · <a href="/auth/sign_up">Sign up</a></p></nav>`;
  return authPage({ title: "Sign in", instanceTitle: input.instanceTitle, body });
}
