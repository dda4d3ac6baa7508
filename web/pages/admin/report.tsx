/**
 * One report in full (Mastodon's admin/reports show): who filed it about
 * whom, why, the reported posts and collections, who handles it and whether it is settled,
 * with the forms staff act through: assign, resolve or reopen, change the
 * category, and take action against the reported account.
 */
import type { Child, FC } from "hono/jsx";
import type { AdminReportJson } from "../../../api/entities/admin_report.ts";
import type { ReportRow } from "../../../actors/moderation/report_filing.ts";
import { REPORT_CATEGORIES } from "../../../actors/moderation/report_filing.ts";
import type { InstanceRule } from "../../../actors/moderation/instance_rules.ts";
import { WARNING_TEXT_MAX } from "../../../actors/moderation/account_actions.ts";
import {
  AccountLink,
  AccountState,
  actionChoices,
  type ActionDraft,
  EmailNotificationBox,
  StatusCard,
  Time,
} from "./components.tsx";
import { ActionButton, CsrfField } from "./layout.tsx";
import { queueHref, Reporter } from "./reports.tsx";

/** What the report page shows. */
export interface ReportView {
  row: ReportRow;
  report: AdminReportJson;
  /** The target's unresolved reports other than this one. */
  otherOpenReports: number;
  /** The instance's rules, for the category form. */
  rules: InstanceRule[];
  /** The target's collections the report names, those still kept. */
  collections: ReportedCollection[];
}

/** A collection a report names, as its page links it. */
export interface ReportedCollection {
  id: string;
  name: string;
  uri: string;
  url: string | null;
}

/** One fact of the report: a term and its value (`pre` keeps the text's line breaks). */
const Fact: FC<{ label: string; id?: string; pre?: boolean; children?: Child }> = (
  { label, id, pre, children },
) => (
  <>
    <dt>{label}</dt>
    <dd id={id} class={pre ? "pre" : undefined}>{children}</dd>
  </>
);

const CategoryForm: FC<{ view: ReportView; token: string }> = ({ view, token }) => {
  const cited = new Set(view.row.ruleIds ?? []);
  return (
    <form method="post" action={`/admin/reports/${view.row.id}/category`}>
      <CsrfField token={token} />
      {/* Always sent (as Rails' hidden field), so unticking every rule clears them. */}
      <input type="hidden" name="rule_ids[]" value="" />
      <label for="category">Category</label>
      <select id="category" name="category">
        {REPORT_CATEGORIES.map((c) => (
          <option value={c} selected={c === view.row.category}>{c}</option>
        ))}
      </select>
      {view.rules.length
        ? (
          <fieldset>
            <legend>Rules broken (a violation cites at least one)</legend>
            {view.rules.map((rule) => (
              <label class="rule">
                <input
                  type="checkbox"
                  name="rule_ids[]"
                  value={rule.id}
                  checked={cited.has(rule.id)}
                />{" "}
                {rule.text}
              </label>
            ))}
          </fieldset>
        )
        : null}
      <div class="actions">
        <button type="submit" class="secondary">Change category</button>
      </div>
    </form>
  );
};

const ActionForm: FC<{ view: ReportView; token: string; draft: ActionDraft }> = (
  { view, token, draft },
) => {
  const local = view.report.target_account.domain == null;
  return (
    <form method="post" action={`/admin/reports/${view.row.id}/action`} id="take-action">
      <CsrfField token={token} />
      <fieldset>
        <legend>Take action against @{view.report.target_account.account.acct}</legend>
        {actionChoices(local).map((choice) => (
          <label class="choice">
            <input
              type="radio"
              name="type"
              value={choice.type}
              checked={(draft.type ?? "none") === choice.type}
            />{" "}
            {choice.label} <span class="muted">{choice.hint}</span>
          </label>
        ))}
      </fieldset>
      <label for="text">Warning text (optional, shown to the account)</label>
      <textarea id="text" name="text" maxlength={WARNING_TEXT_MAX}>{draft.text ?? ""}</textarea>
      {local
        ? <EmailNotificationBox checked={draft.sendEmail} />
        : <p class="muted">A remote account gets no e-mail.</p>}
      <div class="actions">
        <button type="submit" class="danger">Perform action</button>
      </div>
      <p class="muted">Any action but a warning resolves every open report on the account.</p>
    </form>
  );
};

/** The collections the report names (`collection_ids`), those still kept. */
const NamedCollections: FC<{ view: ReportView }> = ({ view }) => (
  <Fact label="Collections named" id="collections">
    {view.collections.length
      ? (
        <ul>
          {view.collections.map((c) => (
            <li>
              <a href={c.url ?? c.uri}>{c.name}</a>
            </li>
          ))}
        </ul>
      )
      : <span class="muted">(they are gone)</span>}
  </Fact>
);

/** Who, when, why and where the report stands. */
const ReportFacts: FC<{ view: ReportView }> = ({ view }) => {
  const { row, report } = view;
  const target = report.target_account;
  return (
    <dl class="report-facts">
      <Fact label="Reported account" id="target">
        <AccountLink account={target} /> (<AccountState account={target} />)
      </Fact>
      <Fact label="Reported by" id="reporter">
        <Reporter report={row} reporter={report.account} />
      </Fact>
      <Fact label="Filed">
        <Time at={row.createdAt} />
      </Fact>
      <Fact label="Category" id="category-value">{row.category}</Fact>
      {report.rules.length
        ? (
          <>
            <Fact label="Rules cited">
              <ul id="rules">{report.rules.map((r) => <li key={r.id}>{r.text}</li>)}</ul>
            </Fact>
          </>
        )
        : null}
      {row.collectionIds?.length ? <NamedCollections view={view} /> : null}
      <Fact label="Comment" id="comment" pre>
        {row.comment ? row.comment : <span class="muted">(none)</span>}
      </Fact>
      <Fact label="Forwarded" id="forwarded">
        {row.forwarded
          ? `yes${row.forwardToDomains.length ? ` (to ${row.forwardToDomains.join(", ")})` : ""}`
          : "no"}
      </Fact>
      <Fact label="Assigned to" id="assigned">
        {report.assigned_account
          ? <AccountLink account={report.assigned_account} />
          : <span class="muted">nobody</span>}
      </Fact>
      <Fact label="State" id="state">
        {row.actionTakenAt
          ? (
            <>
              resolved <Time at={row.actionTakenAt} />
              {report.action_taken_by_account
                ? (
                  <>
                    {" "}by <AccountLink account={report.action_taken_by_account} />
                  </>
                )
                : null}
            </>
          )
          : "unresolved"}
      </Fact>
      <Fact label="Other open reports about this account" id="other-open">
        {view.otherOpenReports > 0
          ? (
            <a href={queueHref({ resolved: false, targetAccountId: target.id })}>
              {view.otherOpenReports}
            </a>
          )
          : "0"}
      </Fact>
    </dl>
  );
};

/** Assign or unassign, resolve or reopen. */
const ReportButtons: FC<{ view: ReportView; token: string }> = ({ view, token }) => {
  const { row, report } = view;
  const base = `/admin/reports/${row.id}`;
  return (
    <div class="actions">
      {report.assigned_account
        ? (
          <ActionButton
            action={`${base}/unassign`}
            token={token}
            label="Unassign"
            variant="secondary"
          />
        )
        : <ActionButton action={`${base}/assign_to_self`} token={token} label="Assign to me" />}
      {row.actionTakenAt
        ? (
          <ActionButton
            action={`${base}/reopen`}
            token={token}
            label="Reopen"
            variant="secondary"
          />
        )
        : <ActionButton action={`${base}/resolve`} token={token} label="Mark as resolved" />}
    </div>
  );
};

/** The report; a refused form's alert is the frame's (routes/admin_web/page_frame.tsx). */
export const ReportPage: FC<{
  view: ReportView;
  token: string;
  draft?: ActionDraft;
}> = ({ view, token, draft }) => {
  const { row, report } = view;
  return (
    <>
      <p>
        <a href={queueHref({ resolved: row.actionTakenAt != null })}>Back to the reports</a>
      </p>
      <section class="card">
        <ReportFacts view={view} />
        <ReportButtons view={view} token={token} />
      </section>
      <h2>Reported posts ({report.statuses.length})</h2>
      {report.statuses.length
        ? report.statuses.map((status) => <StatusCard key={status.id} status={status} />)
        : (
          <p class="muted">
            No posts were attached{row.statusIds.length ? " (they are gone)" : ""}.
          </p>
        )}
      <h2>Category</h2>
      <div class="card">
        <CategoryForm view={view} token={token} />
      </div>
      <h2>Action</h2>
      <div class="card">
        <ActionForm view={view} token={token} draft={draft ?? {}} />
      </div>
    </>
  );
};
