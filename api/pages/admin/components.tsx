/**
 * Pieces the staff pages share (the reports pages, the accounts pages):
 * an account's handle linking to its staff page, its moderation state, a
 * time, a status as evidence, a "not found" body. They take the API's
 * entities (Admin::Account, Status) so a page shows exactly what the admin
 * API would answer, read by the same serializers.
 */
import type { FC } from "hono/jsx";
import type { AdminAccount } from "../../entities/admin_account.ts";
import type { StatusJson } from "../../entities/status.ts";
import { safeHtml } from "../html.ts";

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

/**
 * An account's moderation state as words: suspended, silenced (Mastodon's
 * "limited"), disabled (its sign-in frozen), media sensitive; "active" when
 * none applies.
 */
export function accountStates(account: AdminAccount): string[] {
  const states: string[] = [];
  if (account.suspended) states.push("suspended");
  if (account.silenced) states.push("silenced");
  if (account.disabled) states.push("disabled");
  if (account.sensitized) states.push("sensitive");
  return states;
}

/** The state badges of an account ({@link accountStates}). */
export const AccountState: FC<{ account: AdminAccount }> = ({ account }) => {
  const states = accountStates(account);
  return (
    <span class="account-state" data-state={states.join(" ") || "active"}>
      {states.length ? states.join(", ") : "active"}
    </span>
  );
};

/** A moment in UTC, readable without script: `2026-11-26 10:30 UTC`. */
export const Time: FC<{ at: string | Date }> = ({ at }) => {
  const date = typeof at === "string" ? new Date(at) : at;
  const iso = date.toISOString();
  return <time datetime={iso}>{`${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`}</time>;
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
    <div class="content" dangerouslySetInnerHTML={{ __html: safeHtml(status.content) }} />
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
