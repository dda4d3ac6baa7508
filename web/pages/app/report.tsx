/**
 * The report form (design 35 §2.4, Mastodon's report flow on one page):
 * what is wrong (the API's four categories; "breaks the rules" only when
 * the server has rules), which of the server's rules (for that one), which posts (the account's recent ones, the post
 * reported from already ticked), a comment for the moderators (at most
 * 1,000 characters, as the API), and for a remote account whether to send
 * its server an anonymous copy. The field names are the API's, posted to
 * POST /reports (web/routes/app/reports.tsx). A refused report comes back
 * here with what was chosen and the message.
 */
import type { FC } from "hono/jsx";
import type { Account } from "../../../api/entities/account.ts";
import type { StatusJson } from "../../../api/entities/status.ts";
import type { Rule } from "../../../api/entities/rule.ts";
import { htmlToText } from "../../../actors/formatting/html_to_text.ts";
import { COMMENT_MAX } from "../../../actors/moderation/report_filing.ts";
import { CsrfField } from "../shell.tsx";
import { AccountRow } from "./accounts_list.tsx";

/** Mastodon web's wording of the categories, in its order. */
const CATEGORIES: [string, string, string][] = [
  ["spam", "It's spam", "Malicious links, fake engagement, or repetitive replies"],
  ["legal", "It's illegal", "You believe it breaks the law of your or the server's country"],
  ["violation", "It breaks the server's rules", "Tick the rules it breaks below"],
  ["other", "It's something else", "Say what in the comment"],
];

/** What the form shows chosen (the query's post, or a refused report's fields). */
export interface ReportChoices {
  category: string;
  ruleIds: string[];
  statusIds: string[];
  comment: string;
  forward: boolean;
}

export interface ReportFormProps {
  account: Account;
  posts: StatusJson[];
  rules: Rule[];
  chosen: ReportChoices;
  token: string;
  returnTo: string;
  error?: string;
}

/** One of the account's posts as a checkbox: its time and the start of its text. */
const PostChoice: FC<{ status: StatusJson; checked: boolean }> = ({ status, checked }) => {
  const text = htmlToText(status.spoiler_text || status.content, { oneLine: true, maxLength: 140 });
  return (
    <label class="check">
      <input type="checkbox" name="status_ids[]" value={status.id} checked={checked} />
      <span>
        <time datetime={status.created_at}>{status.created_at.slice(0, 16).replace("T", " ")}</time>
        {" — "}
        {text || (status.media_attachments.length ? "(media)" : "(no text)")}
      </span>
    </label>
  );
};

export const ReportForm: FC<ReportFormProps> = (
  { account, posts, rules, chosen, token, returnTo, error },
) => {
  const domain = account.acct.includes("@") ? account.acct.split("@")[1] : null;
  return (
    <form method="post" action="/reports" class="report-form">
      <CsrfField token={token} />
      <input type="hidden" name="account_id" value={account.id} />
      <input type="hidden" name="return_to" value={returnTo} />
      {error ? <p class="alert" role="alert">{error}</p> : null}
      <ul class="accounts">
        <AccountRow account={account} />
      </ul>
      <p class="muted">
        The report goes to this server's moderators; @{account.acct}{" "}
        is not told who sent it. If you just do not want to see them,{" "}
        <a href={`/accounts/${account.id}/mute`}>mute</a> or{" "}
        <a href={`/accounts/${account.id}/block`}>block</a> them instead.
      </p>
      <fieldset>
        <legend>What is wrong?</legend>
        {CATEGORIES.filter(([value]) => value !== "violation" || rules.length > 0).map((
          [value, label, hint],
        ) => (
          <label class="check">
            <input type="radio" name="category" value={value} checked={chosen.category === value} />
            <span>
              {label} <span class="muted">{hint}</span>
            </span>
          </label>
        ))}
      </fieldset>
      {rules.length
        ? (
          <fieldset>
            <legend>Which rules does it break? (for "It breaks the server's rules")</legend>
            {rules.map((rule) => (
              <label class="check">
                <input
                  type="checkbox"
                  name="rule_ids[]"
                  value={rule.id}
                  checked={chosen.ruleIds.includes(rule.id)}
                />
                <span>{rule.text}</span>
              </label>
            ))}
          </fieldset>
        )
        : null}
      <fieldset>
        <legend>Which posts? (optional)</legend>
        {posts.length === 0
          ? <p class="muted">No posts to attach.</p>
          : posts.map((status) => (
            <PostChoice status={status} checked={chosen.statusIds.includes(status.id)} />
          ))}
      </fieldset>
      <label for="report-comment">Anything else the moderators should know? (optional)</label>
      <textarea id="report-comment" name="comment" maxlength={COMMENT_MAX} rows={4}>
        {chosen.comment}
      </textarea>
      {domain
        ? (
          <label class="check">
            <input type="checkbox" name="forward" value="true" checked={chosen.forward} />
            <span>
              Also send an anonymous copy to the moderators of {domain}, where the account is
            </span>
          </label>
        )
        : null}
      <button type="submit">Send the report</button>
    </form>
  );
};
