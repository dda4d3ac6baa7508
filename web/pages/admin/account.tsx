/**
 * One account for staff (Mastodon's admin/accounts show): who it is, its
 * sign-up facts and moderation state, the actions that apply to that state,
 * the warnings it was given and the reports about it. Forms post to
 * /admin/accounts/:id/<command> (web/routes/admin/accounts.tsx).
 */
import type { Child, FC } from "hono/jsx";
import type { AdminAccount } from "../../../api/entities/admin_account.ts";
import type { AccountWarningRow } from "../../../db/queries/account_warnings.ts";
import type { ReportRow } from "../../../actors/moderation/report_filing.ts";
import type { RemoteKey } from "../../../db/schema/core.ts";
import { ActionButton, CsrfField } from "./layout.tsx";
import { lastActivity, roleName } from "./accounts.tsx";
import { WARNING_TEXT_MAX } from "../../../actors/moderation/account_actions.ts";
import {
  AccountState,
  actionChoices,
  type ActionDraft,
  EmailNotificationBox,
  handleOf,
  Time,
} from "./components.tsx";

/** What the viewer may do here, decided by the route from the role table. */
export interface AccountPageViewer {
  csrfToken: string;
  /** The viewer outranks the account's role (or it is remote): the commands apply. */
  mayAct: boolean;
  /** delete_user_data (admins). */
  mayDeleteData: boolean;
  /** manage_user_access (admins): sign-in addresses are shown. */
  seesAccess: boolean;
}

/** One fact: a value (an em dash for none) or, for more than text, `children`. */
const Fact: FC<{
  label: string;
  value?: string | number | null;
  name?: string;
  children?: Child;
}> = ({ label, value, name, children }) => (
  <tr data-fact={name}>
    <th scope="row">{label}</th>
    <td>{children ?? (value == null || value === "" ? "—" : String(value))}</td>
  </tr>
);

const Facts: FC<{ a: AdminAccount; seesAccess: boolean }> = ({ a, seesAccess }) => (
  <table class="facts">
    <Fact name="display_name" label="Display name" value={a.account.display_name} />
    <Fact name="role" label="Role" value={roleName(a)} />
    <Fact name="state" label="State">
      <AccountState account={a} />
    </Fact>
    {a.domain ? <Fact name="domain" label="Domain" value={a.domain} /> : null}
    {a.domain ? null : <Fact name="email" label="E-mail" value={a.email} />}
    {a.domain ? null : (
      <Fact
        name="confirmed"
        label="E-mail confirmed"
        value={a.confirmed ? "Yes" : "No"}
      />
    )}
    {a.approved === false
      ? <Fact name="reason" label="Reason for joining" value={a.invite_request} />
      : null}
    <Fact name="created" label="Joined">
      <Time at={a.created_at} />
    </Fact>
    <Fact name="last_active" label="Last active">
      <Time at={lastActivity(a)} />
    </Fact>
    <Fact name="statuses" label="Posts" value={a.account.statuses_count} />
    <Fact name="followers" label="Followers" value={a.account.followers_count} />
    <Fact name="following" label="Following" value={a.account.following_count} />
    {seesAccess && !a.domain ? <Fact name="ip" label="Latest IP" value={a.ip} /> : null}
  </table>
);

/** A remote actor's keys, as its document lists them. */
const Keys: FC<{ keys: RemoteKey[] }> = ({ keys }) => (
  <>
    <h2>Keys</h2>
    <ul class="keys">
      {keys.map((key) => (
        <li>
          <code>{key.id}</code> ({key.type === "other" ? "other" : key.type.toUpperCase()}, in{" "}
          <code>{key.in}</code>)
        </li>
      ))}
    </ul>
  </>
);

/** The buttons that lift a state, or decide a sign-up; only those that apply. */
const StateButtons: FC<{ a: AdminAccount; viewer: AccountPageViewer; remoteSuspension: boolean }> =
  ({ a, viewer, remoteSuspension }) => {
    const base = `/admin/accounts/${a.id}`;
    const t = viewer.csrfToken;
    return (
      <div class="actions">
        {a.approved === false
          ? (
            <>
              <ActionButton action={`${base}/approve`} token={t} label="Approve" />
              <ActionButton action={`${base}/reject`} token={t} label="Reject" variant="danger" />
            </>
          )
          : null}
        {a.disabled
          ? <ActionButton action={`${base}/enable`} token={t} label="Enable sign-in" />
          : null}
        {a.silenced
          ? <ActionButton action={`${base}/unsilence`} token={t} label="Undo limit" />
          : null}
        {a.sensitized
          ? <ActionButton action={`${base}/unsensitive`} token={t} label="Undo sensitive" />
          : null}
        {a.suspended && !remoteSuspension
          ? <ActionButton action={`${base}/unsuspend`} token={t} label="Undo suspension" />
          : null}
      </div>
    );
  };

const ActionForm: FC<{ a: AdminAccount; token: string; state: ActionDraft }> = (
  { a, token, state },
) => {
  const selected = state.type ?? "none";
  return (
    <form method="post" action={`/admin/accounts/${a.id}/action`} class="card action-form">
      <CsrfField token={token} />
      {state.reportId ? <input type="hidden" name="report_id" value={state.reportId} /> : null}
      <label for="action-type">Action</label>
      <select id="action-type" name="type">
        {actionChoices(!a.domain).map((choice) => (
          <option value={choice.type} selected={choice.type === selected}>
            {choice.label}
          </option>
        ))}
      </select>
      <label for="action-text">Warning text (shown to the person)</label>
      <textarea id="action-text" name="text" maxlength={WARNING_TEXT_MAX}>
        {state.text ?? ""}
      </textarea>
      {a.domain ? null : <EmailNotificationBox checked={state.sendEmail} />}
      <div class="actions">
        <button type="submit" class="danger">Perform action</button>
      </div>
    </form>
  );
};

const DeleteDataForm: FC<{ a: AdminAccount; token: string }> = ({ a, token }) => (
  <form method="post" action={`/admin/accounts/${a.id}/delete`} class="card delete-form">
    <CsrfField token={token} />
    <p>
      Deletes this account's posts, media and profile now instead of at the end of the grace period.
      This cannot be undone.
    </p>
    <label>
      <input type="checkbox" name="confirm" value="true" /> I understand: delete the data
    </label>
    <div class="actions">
      <button type="submit" class="danger">Delete data</button>
    </div>
  </form>
);

const Warnings: FC<{ rows: AccountWarningRow[] }> = ({ rows }) =>
  rows.length === 0 ? <p class="muted">No warnings.</p> : (
    <table class="warnings">
      <thead>
        <tr>
          <th>When</th>
          <th>Action</th>
          <th>Text</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((w) => (
          <tr data-warning={w.id}>
            <td>
              <Time at={w.createdAt} />
            </td>
            <td>{w.action}</td>
            <td>{w.text || "—"}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );

const Reports: FC<{ rows: ReportRow[] }> = ({ rows }) =>
  rows.length === 0 ? <p class="muted">No reports about this account.</p> : (
    <table class="reports">
      <thead>
        <tr>
          <th>Report</th>
          <th>Filed</th>
          <th>Category</th>
          <th>Comment</th>
          <th>State</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr data-report={r.id}>
            <td>
              <a href={`/admin/reports/${r.id}`}>#{r.id}</a>
            </td>
            <td>
              <Time at={r.createdAt} day />
            </td>
            <td>{r.category}</td>
            <td>{r.comment.length > 140 ? `${r.comment.slice(0, 140)}…` : r.comment || "—"}</td>
            <td>{r.actionTakenAt ? "Resolved" : "Open"}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );

export const AccountPage: FC<{
  a: AdminAccount;
  viewer: AccountPageViewer;
  /** The account's own server suspended it: nothing here lifts that. */
  remoteSuspension: boolean;
  /** Its data was deleted (a tombstone, kept as Mastodon keeps it): no command applies. */
  deleted: boolean;
  /** The keys a remote actor lists (each verifies its signatures). */
  keys: RemoteKey[];
  warnings: AccountWarningRow[];
  reports: ReportRow[];
  form: ActionDraft;
}> = ({ a, viewer, remoteSuspension, deleted, keys, warnings, reports, form }) => (
  <>
    <p class="muted">
      @{handleOf(a)} ·{" "}
      {/* Only web addresses are links (a remote profile URL is someone else's text). */}
      {a.account.url && /^https?:\/\//i.test(a.account.url)
        ? <a href={a.account.url}>profile</a>
        : null} · <a href="/admin/accounts">all accounts</a>
    </p>
    <Facts a={a} seesAccess={viewer.seesAccess} />
    {a.domain && keys.length ? <Keys keys={keys} /> : null}
    <h2>Moderation</h2>
    {deleted
      ? <p class="muted deleted">This account's data was deleted; nothing more can be done here.</p>
      : viewer.mayAct
      ? (
        <>
          <StateButtons a={a} viewer={viewer} remoteSuspension={remoteSuspension} />
          {a.suspended || a.approved === false
            ? null
            : <ActionForm a={a} token={viewer.csrfToken} state={form} />}
          {viewer.mayDeleteData && a.suspended && !remoteSuspension
            ? <DeleteDataForm a={a} token={viewer.csrfToken} />
            : null}
        </>
      )
      : <p class="muted">Your role does not allow acting on this account.</p>}
    <h2>Warnings</h2>
    <Warnings rows={warnings} />
    <h2>Reports</h2>
    <Reports rows={reports} />
  </>
);
