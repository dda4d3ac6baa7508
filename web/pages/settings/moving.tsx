/**
 * The moving pages of the settings, as Mastodon's: "Moving from a different
 * account" (the aliases, /settings/aliases) and "Moving to a different
 * account" (/settings/migration, with the current redirect and its cancel).
 * Hono JSX escapes every value; no script.
 */
import type { FC } from "hono/jsx";
import { CsrfField, Field, type FieldErrors } from "../auth/layout.tsx";
import { SettingsLayout, type SettingsViewer } from "./layout.tsx";
import type { AliasEntry } from "../../../actors/accounts/moves.ts";

/** What every page of this file gets. */
interface Common {
  instanceTitle: string;
  viewer: SettingsViewer;
  notice?: string;
  errors?: FieldErrors;
  /** The handle typed, shown again after a refusal. */
  handle?: string;
}

const Notice: FC<{ notice?: string }> = ({ notice }) =>
  notice ? <p class="notice" role="status">{notice}</p> : null;

/** A sentence for the top of a refused form (each field also shows its own). */
const Refused: FC<{ errors?: FieldErrors }> = ({ errors }) =>
  errors && Object.keys(errors).length
    ? <p class="alert" role="alert">Nothing was changed: see below.</p>
    : null;

export const AliasesPage: FC<Common & { aliases: AliasEntry[]; selfHandle: string }> = (
  { instanceTitle, viewer, notice, errors, handle, aliases, selfHandle },
) => (
  <SettingsLayout
    title="Moving from a different account"
    instanceTitle={instanceTitle}
    viewer={viewer}
    section="aliases"
  >
    <Notice notice={notice} />
    <Refused errors={errors} />
    <p>
      To move from another account to this one, list the old account here first. Then start the move
      on the old account's server, naming <strong>@{selfHandle}</strong>{" "}
      as the new account. Listing an alias alone changes nothing and is harmless.
    </p>
    <form method="post" action="/settings/aliases" class="add-alias">
      <CsrfField token={viewer.csrfToken} />
      <Field
        name="handle"
        label="Handle of the old account"
        hint="For example @username@other.example"
        value={handle}
        errors={errors}
        required
        maxlength={300}
        autocomplete="off"
      />
      <button type="submit">Create alias</button>
    </form>
    <h2>Aliases</h2>
    {aliases.length === 0 ? <p>This account has no aliases.</p> : (
      <table class="aliases">
        <thead>
          <tr>
            <th scope="col">Account</th>
            <th scope="col">
              <span class="hint">Action</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {aliases.map((a) => (
            <tr data-alias={a.uri}>
              <td>
                {a.acct ? <strong>@{a.acct}</strong> : null}
                {a.acct ? <br /> : null}
                <code>{a.uri}</code>
              </td>
              <td>
                <form method="post" action="/settings/aliases/remove">
                  <CsrfField token={viewer.csrfToken} />
                  <input type="hidden" name="uri" value={a.uri} />
                  <button type="submit" aria-label={`Unlink ${a.acct ?? a.uri}`}>Unlink</button>
                </form>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    )}
  </SettingsLayout>
);

export const MigrationPage: FC<
  Common & { redirect: { acct: string; url: string } | null; selfUri: string }
> = ({ instanceTitle, viewer, notice, errors, handle, redirect, selfUri }) => (
  <SettingsLayout
    title="Moving to a different account"
    instanceTitle={instanceTitle}
    viewer={viewer}
    section="migration"
  >
    <Notice notice={notice} />
    <Refused errors={errors} />
    {redirect
      ? (
        <section class="redirect" aria-labelledby="redirect-title">
          <h2 id="redirect-title">Current redirect</h2>
          <p>
            This account is redirecting to{" "}
            <a href={redirect.url} rel="noopener noreferrer nofollow">@{redirect.acct}</a>. It
            cannot post while it redirects.
          </p>
          <form method="post" action="/settings/migration/cancel" class="cancel-redirect">
            <CsrfField token={viewer.csrfToken} />
            <button type="submit">Cancel redirect</button>
          </form>
          <p class="hint">
            Cancelling shows this account again as not moved and lets it post. Followers already
            moved stay with the new account.
          </p>
        </section>
      )
      : null}
    <h2>Move to another account</h2>
    <ul>
      <li>
        The new account must list this one as an alias first (on Mastodon: "Moving from a different
        account"). It is this account's address: <code>{selfUri}</code>
      </li>
      <li>Your followers are moved to the new account; your follows, posts and lists stay here.</li>
      <li>This account will show that it moved, and can no longer post.</li>
      <li>You can move again only 30 days after a move.</li>
    </ul>
    <form method="post" action="/settings/migration" class="move-account">
      <CsrfField token={viewer.csrfToken} />
      <Field
        name="handle"
        label="Handle of the new account"
        hint="For example @username@other.example"
        value={handle}
        errors={errors}
        required
        maxlength={300}
        autocomplete="off"
      />
      <Field
        name="current_password"
        label="Current password"
        type="password"
        errors={errors}
        required
        autocomplete="current-password"
        maxlength={1000}
      />
      <button type="submit">Move followers</button>
    </form>
  </SettingsLayout>
);
