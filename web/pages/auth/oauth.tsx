/**
 * The pages of the OAuth flow: the consent page, the page that shows an
 * out-of-band code, and the error page (the sign-in form is sign_in.tsx).
 * Hono JSX on the account pages' layout (auth/layout.tsx): every value is
 * escaped, no script, and the pages work with keyboards, screen readers and
 * the in-app browsers that Elk, Phanpy and native apps open.
 */
import type { FC } from "hono/jsx";
import { AuthLayout } from "./layout.tsx";
import { HiddenFields } from "../shell.tsx";

/** What each scope lets an application do, in plain words. */
export const SCOPE_DESCRIPTIONS: Record<string, string> = {
  read: "Read all of your account's data",
  "read:accounts": "See account information",
  "read:blocks": "See your blocks",
  "read:bookmarks": "See your bookmarks",
  "read:favourites": "See your favourites",
  "read:filters": "See your filters",
  "read:follows": "See whom you follow",
  "read:lists": "See your lists",
  "read:mutes": "See your mutes",
  "read:notifications": "See your notifications",
  "read:search": "Search on your behalf",
  "read:statuses": "See all posts",
  write: "Change all of your account's data",
  "write:accounts": "Change your profile",
  "write:blocks": "Block accounts and domains",
  "write:bookmarks": "Bookmark posts",
  "write:conversations": "Mute and delete conversations",
  "write:favourites": "Favourite posts",
  "write:filters": "Create filters",
  "write:follows": "Follow people",
  "write:lists": "Create lists",
  "write:media": "Upload media files",
  "write:mutes": "Mute people and conversations",
  "write:notifications": "Clear your notifications",
  "write:reports": "Report other people",
  "write:statuses": "Publish posts",
  follow: "Change whom you follow, block and mute",
  push: "Receive your push notifications",
  profile: "Read only your account's profile information",
  "admin:read": "Read all data on the server",
  "admin:write": "Change all data on the server",
};

/** A plain-words description of a scope (admin sub-scopes are described generically). */
export function describeScope(scope: string): string {
  const known = SCOPE_DESCRIPTIONS[scope];
  if (known) return known;
  const admin = /^admin:(read|write):(.+)$/.exec(scope);
  if (admin) {
    const subject = admin[2].replaceAll("_", " ");
    return admin[1] === "read"
      ? `Read sensitive information of all ${subject} (administration)`
      : `Take moderation actions on ${subject} (administration)`;
  }
  return scope;
}

/** What the consent page shows. */
export interface ConsentPageInput {
  instanceTitle: string;
  appName: string;
  appWebsite: string | null;
  username: string;
  domain: string;
  scopes: string[];
  /** The authorize parameters, carried to the decision. */
  fields: Record<string, string | undefined>;
  csrfToken: string;
}

/** The consent page: who asks for what, with Authorize and Deny. */
export const ConsentPage: FC<ConsentPageInput> = (input) => (
  <AuthLayout title="Authorization required" instanceTitle={input.instanceTitle}>
    <p>
      <strong>{input.appName}</strong> would like to access your account{" "}
      <strong>@{input.username}@{input.domain}</strong>.
    </p>
    {input.appWebsite && /^https?:\/\//i.test(input.appWebsite)
      ? (
        <p class="muted">
          Website:{" "}
          <a href={input.appWebsite} rel="noopener noreferrer nofollow" target="_blank">
            {input.appWebsite}
          </a>
        </p>
      )
      : null}
    <p>If you authorize it, it will be able to:</p>
    <ul class="scopes">
      {input.scopes.map((scope) => (
        <li>
          {describeScope(scope)} <span class="muted">({scope})</span>
        </li>
      ))}
    </ul>
    <p class="muted">Only authorize applications you trust.</p>
    <form method="post" action="/oauth/authorize">
      <HiddenFields fields={{ ...input.fields, authenticity_token: input.csrfToken }} />
      <div class="actions">
        <button type="submit" name="decision" value="approve">Authorize</button>
        <button type="submit" name="decision" value="deny" class="secondary">Deny</button>
      </div>
    </form>
    <form method="post" action="/auth/sign_out">
      <HiddenFields fields={{ authenticity_token: input.csrfToken, ...input.fields }} />
      <p class="muted">
        Not you? <button type="submit" class="link">Sign in with another account</button>
      </p>
    </form>
  </AuthLayout>
);

/** The page that shows an out-of-band authorization code. */
export const CodePage: FC<{ instanceTitle: string; code: string }> = ({ instanceTitle, code }) => (
  <AuthLayout title="Authorization code" instanceTitle={instanceTitle}>
    <p>Copy this authorization code and paste it into the application.</p>
    <label for="code">Code</label>
    <input id="code" class="code" type="text" readonly value={code} />
  </AuthLayout>
);

/** The page shown when a request cannot be answered by redirecting to the client. */
export const OAuthErrorPage: FC<{ instanceTitle: string; error: string; description: string }> = (
  { instanceTitle, error, description },
) => (
  <AuthLayout title="An error has occurred" instanceTitle={instanceTitle}>
    <div class="alert" role="alert">
      <p>{description}</p>
    </div>
    <p class="muted">
      Error code: <code>{error}</code>
    </p>
  </AuthLayout>
);
