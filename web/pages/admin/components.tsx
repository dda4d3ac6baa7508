/**
 * Pieces more than one staff page shows, each defined once here: an
 * account's handle linking to its staff page, its moderation state, the
 * action choices and e-mail box of the account and report pages' action
 * forms, a time, a status as evidence, a "not found" body. They take the API's
 * entities (Admin::Account, Status) so a page shows exactly what the admin
 * API would answer, read by the same serializers.
 */
import type { FC } from "hono/jsx";
import type { AdminAccount } from "../../../api/entities/admin_account.ts";
import type { StatusJson } from "../../../api/entities/status.ts";
import { sanitizeHtml } from "../../../actors/formatting/sanitize_html.ts";

/** What a handle needs of an account: an Admin::Account or a plain row. */
export interface HandleOf {
  id: string;
  username: string;
  domain: string | null;
}

/** `user` for a local account, `user@domain` for a remote one. */
export function handleOf(account: Pick<HandleOf, "username" | "domain">): string {
  return account.domain ? `${account.username}@${account.domain}` : account.username;
}

/** An account's handle, linking to its staff page (/admin/accounts/:id). */
export const AccountLink: FC<{ account: HandleOf }> = ({ account }) => (
  <a href={`/admin/accounts/${encodeURIComponent(account.id)}`} data-account-id={account.id}>
    @{handleOf(account)}
  </a>
);

/** The moderation states an account can be in, in Mastodon's order and words. */
const STATES: readonly { key: string; label: string; of: (a: AdminAccount) => boolean | null }[] = [
  { key: "pending", label: "Pending", of: (a) => a.approved === false },
  { key: "disabled", label: "Disabled", of: (a) => a.disabled },
  { key: "suspended", label: "Suspended", of: (a) => a.suspended },
  // Mastodon's word for silenced.
  { key: "silenced", label: "Limited", of: (a) => a.silenced },
  { key: "sensitive", label: "Sensitive", of: (a) => a.sensitized },
];

/**
 * An account's moderation states: awaiting approval, its sign-in frozen
 * (disabled), suspended, limited, media forced sensitive; "Active" when
 * none applies.
 */
export function accountStates(account: AdminAccount): { key: string; label: string }[] {
  const states = STATES.filter((s) => s.of(account));
  return states.length ? states : [{ key: "active", label: "Active" }];
}

/** The states of an account in words ({@link accountStates}), their keys in `data-state`. */
export const AccountState: FC<{ account: AdminAccount }> = ({ account }) => {
  const states = accountStates(account);
  return (
    <span class="account-state" data-state={states.map((s) => s.key).join(" ")}>
      {states.map((s) => s.label).join(", ")}
    </span>
  );
};

/** What an action form sent, shown again when the action is refused. */
export interface ActionDraft {
  type?: string;
  text?: string;
  sendEmail?: boolean;
  /** The report the action answers (the account page's form, come from a report). */
  reportId?: string;
}

/** The actions against an account (the `type` of …/action), in Mastodon's order and words. */
const ACTION_CHOICES = [
  { type: "none", label: "Warning", hint: "Send a warning only." },
  { type: "sensitive", label: "Sensitive", hint: "Mark all of their media as sensitive." },
  {
    type: "disable",
    label: "Freeze",
    hint: "They can no longer sign in (local accounts only).",
  },
  { type: "silence", label: "Limit", hint: "Their posts reach only their followers." },
  { type: "suspend", label: "Suspend", hint: "Remove the account and its content." },
] as const;

/** The actions that apply to an account: freezing sign-in to a local one only. */
export function actionChoices(local: boolean): readonly (typeof ACTION_CHOICES)[number][] {
  return ACTION_CHOICES.filter((c) => local || c.type !== "disable");
}

/** The action form's box for the warning by e-mail (local accounts only; ticked unless unticked). */
export const EmailNotificationBox: FC<{ checked?: boolean }> = ({ checked }) => (
  <label class="choice">
    <input
      type="checkbox"
      name="send_email_notification"
      value="true"
      checked={checked ?? true}
    />{" "}
    Notify the account by e-mail
  </label>
);

/**
 * A moment in UTC, readable without script: `2026-11-26 10:30 UTC`, or the
 * day alone (`2026-11-26`) where a table wants it short; an em dash for
 * none. The one time format of the staff pages.
 */
export const Time: FC<{ at: string | Date | null | undefined; day?: boolean }> = (
  { at, day },
) => {
  const date = typeof at === "string" ? new Date(at) : at;
  if (date == null || Number.isNaN(date.getTime())) return <>—</>;
  const iso = date.toISOString();
  return (
    <time datetime={iso}>
      {day ? iso.slice(0, 10) : `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`}
    </time>
  );
};

/** At most `max` characters of a text, cut at a character (not a UTF-16 unit). */
export function excerpt(text: string, max = 120): string {
  const chars = [...text.replace(/\s+/g, " ").trim()];
  return chars.length > max ? `${chars.slice(0, max - 1).join("")}…` : chars.join("");
}

function mediaCount(status: StatusJson): string {
  const n = status.media_attachments.length;
  return n === 1 ? "1 attachment" : `${n} attachments`;
}

/**
 * A status as staff see it as evidence: author, time, visibility, content
 * warning, the content through the one sanitizer (it was sanitized when
 * stored; this is the second line, as on every page), the number of
 * attachments and a link to the status itself.
 */
export const StatusCard: FC<{ status: StatusJson }> = ({ status }) => (
  <section class="card status" data-status-id={status.id}>
    <p class="muted">
      <AccountLink
        account={{
          id: status.account.id,
          username: status.account.username,
          domain: status.account.acct.includes("@") ? status.account.acct.split("@")[1] : null,
        }}
      />{" "}
      · <Time at={status.created_at} /> · <span class="visibility">{status.visibility}</span> ·{" "}
      <span class="media">{mediaCount(status)}</span>
      {status.sensitive ? " · sensitive" : ""} ·{" "}
      <a href={status.url ?? status.uri} rel="noopener noreferrer">Open the post</a>
    </p>
    {status.spoiler_text ? <p class="spoiler">CW: {status.spoiler_text}</p> : null}
    <div class="content" dangerouslySetInnerHTML={{ __html: sanitizeHtml(status.content) }} />
    {status.poll
      ? (
        <ul class="poll">
          {status.poll.options.map((o, i) => <li key={i}>{o.title}</li>)}
        </ul>
      )
      : null}
  </section>
);

/** The body of a page for an unknown or malformed id (the page answers 404). */
export const NotFoundBody: FC<{ what: string; back: string; backLabel: string }> = (
  { what, back, backLabel },
) => (
  <>
    <p class="alert" role="alert">{`No such ${what}.`}</p>
    <p>
      <a href={back}>{backLabel}</a>
    </p>
  </>
);
