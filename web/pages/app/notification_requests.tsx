/**
 * Filtered notifications (Mastodon 4.3's notification requests) and the
 * notification policy, as the API groups them: one request per sender the
 * policy filtered, with its count and last post, to accept (its
 * notifications join the others) or dismiss, one by one or ticked together;
 * a request's own page lists that sender's filtered notifications. The
 * policy page sets each of the API's conditions to accept, filter or ignore.
 * Plain forms: they work without the script (web/routes/app/notification_requests.tsx).
 */
import type { FC } from "hono/jsx";
import type { NotificationRequestJson } from "../../../api/entities/notification_request.ts";
import type { GroupedNotificationsJson } from "../../../api/entities/notification_group.ts";
import type { NotificationPolicy, PolicyParam } from "../../../actors/notifications/policy.ts";
import { POLICY_PARAMS } from "../../../actors/notifications/policy.ts";
import { htmlToText } from "../../../actors/formatting/html_to_text.ts";
import { CsrfField } from "../shell.tsx";
import { AccountRow } from "./accounts_list.tsx";
import type { AppViewer } from "./layout.tsx";
import { NotificationGroupList } from "./notifications.tsx";
import { Pager, type PagerLinks } from "./pager.tsx";

/** "3 notifications" (the API caps the count it gives at 100, as "100+"). */
function countText(count: string): string {
  return `${count} notification${count === "1" ? "" : "s"}`;
}

/** Accept and Dismiss of one request (buttons of the surrounding form). */
const RequestButtons: FC<{ request: NotificationRequestJson }> = ({ request }) => (
  <>
    <button type="submit" formaction={`/notifications/requests/${request.id}/accept`}>
      Accept <span class="sr-only">@{request.account.acct}</span>
    </button>{" "}
    <button
      type="submit"
      class="secondary"
      formaction={`/notifications/requests/${request.id}/dismiss`}
    >
      Dismiss <span class="sr-only">@{request.account.acct}</span>
    </button>
  </>
);

const RequestRow: FC<{ request: NotificationRequestJson }> = ({ request }) => {
  const last = request.last_status;
  return (
    <AccountRow account={request.account} id={`notification-request-${request.id}`}>
      <p>
        <a href={`/notifications/requests/${request.id}`}>
          {countText(request.notifications_count)}
        </a>
        {last
          ? (
            <span class="muted">
              {" — "}
              {htmlToText(last.spoiler_text || last.content, { oneLine: true, maxLength: 120 })}
            </span>
          )
          : null}
      </p>
      <label class="check">
        <input type="checkbox" name="id[]" value={request.id} />
        Select <span class="sr-only">@{request.account.acct}</span>
      </label>
      <RequestButtons request={request} />
    </AccountRow>
  );
};

export const RequestsPage: FC<{
  requests: NotificationRequestJson[];
  viewer: AppViewer;
  here: string;
  pager: PagerLinks;
  dismissed: boolean;
}> = ({ requests, viewer, here, pager, dismissed }) => (
  <>
    <nav class="tabs" aria-label="Show">
      <a href="/notifications/requests" aria-current={dismissed ? undefined : "page"}>Pending</a>
      <a
        href="/notifications/requests?dismissed=true"
        aria-current={dismissed ? "page" : undefined}
      >
        Dismissed
      </a>
    </nav>
    <p class="muted">
      Notifications from these people were held back by your{" "}
      <a href="/notifications/policy">notification settings</a>. Accept to see them among your
      notifications (and theirs from now on); dismiss to leave them here.
    </p>
    {requests.length === 0
      ? <p id="notification-requests">Nothing filtered.</p>
      : (
        <form method="post" action="/notifications/requests/accept" class="requests-form">
          <CsrfField token={viewer.csrfToken} />
          <input type="hidden" name="return_to" value={here} />
          <ul class="accounts" id="notification-requests">
            {requests.map((request) => <RequestRow key={request.id} request={request} />)}
          </ul>
          <p class="actions">
            <button type="submit">Accept selected</button>{" "}
            <button type="submit" class="secondary" formaction="/notifications/requests/dismiss">
              Dismiss selected
            </button>
          </p>
        </form>
      )}
    <Pager links={pager} />
  </>
);

/** One sender's filtered notifications, with Accept and Dismiss. */
export const RequestPage: FC<{
  request: NotificationRequestJson;
  result: GroupedNotificationsJson;
  viewer: AppViewer;
  here: string;
  pager: PagerLinks;
}> = ({ request, result, viewer, here, pager }) => {
  const accounts = new Map(result.accounts.map((a) => [a.id, a]));
  const statuses = new Map(result.statuses.map((s) => [s.id, s]));
  return (
    <>
      <form method="post" action={`/notifications/requests/${request.id}/accept`}>
        <CsrfField token={viewer.csrfToken} />
        <input type="hidden" name="return_to" value="/notifications/requests" />
        <ul class="accounts">
          <AccountRow account={request.account}>
            <p>{countText(request.notifications_count)}</p>
            <RequestButtons request={request} />
          </AccountRow>
        </ul>
      </form>
      {result.notification_groups.length === 0
        ? <p>No notifications left from them.</p>
        : (
          <NotificationGroupList
            groups={result.notification_groups}
            accounts={accounts}
            statuses={statuses}
            viewer={viewer}
            here={here}
          />
        )}
      <Pager links={pager} />
    </>
  );
};

/** Mastodon web's names and hints of the policy's conditions. */
const CONDITIONS: Record<PolicyParam, [string, string]> = {
  for_not_following: ["People you don't follow", "Everyone you do not follow"],
  for_not_followers: ["People not following you", "Including those following you for under 3 days"],
  for_new_accounts: ["New accounts", "Created within the past 30 days"],
  for_private_mentions: [
    "Unsolicited private mentions",
    "Unless it replies to your own mention, or you follow the sender",
  ],
  for_limited_accounts: ["Moderated accounts", "Limited by this server's moderators"],
};

const CHOICES: [string, string][] = [["accept", "Accept"], ["filter", "Filter"], [
  "drop",
  "Ignore",
]];

export const PolicyForm: FC<{
  policy: NotificationPolicy;
  token: string;
  summary: { pendingRequestsCount: number; pendingNotificationsCount: number };
  error?: string;
}> = ({ policy, token, summary, error }) => (
  <form method="post" action="/notifications/policy" class="policy-form">
    <CsrfField token={token} />
    {error ? <p class="alert" role="alert">{error}</p> : null}
    <p class="muted">
      Filter: their notifications wait among the{" "}
      <a href="/notifications/requests">filtered notifications</a>{" "}
      ({summary.pendingNotificationsCount} from {summary.pendingRequestsCount}{" "}
      {summary.pendingRequestsCount === 1 ? "person" : "people"} now). Ignore: they are dropped.
    </p>
    {(Object.entries(POLICY_PARAMS) as [PolicyParam, keyof NotificationPolicy][]).map((
      [param, key],
    ) => (
      <>
        <label for={`policy-${param}`}>{CONDITIONS[param][0]}</label>
        <p class="muted" id={`policy-${param}-hint`}>{CONDITIONS[param][1]}</p>
        <select
          id={`policy-${param}`}
          name={param}
          aria-describedby={`policy-${param}-hint`}
        >
          {CHOICES.map(([value, label]) => (
            <option value={value} selected={policy[key] === value}>{label}</option>
          ))}
        </select>
      </>
    ))}
    <button type="submit">Save</button>
  </form>
);
