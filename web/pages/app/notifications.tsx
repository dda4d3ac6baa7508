/**
 * The web app's notifications page (design 35 §11.1): the groups of GET
 * /api/v2/notifications, each a sentence naming who did what ("Ann, Ben and
 * 3 others favourited your post") and its subject: the post itself (with
 * its action bar) for a mention, a post of someone one is notified of, a
 * quote or an edit; a link to the post otherwise. Interactions waiting for
 * the viewer's approval (`pending.*`, issue 34) say so. Each group has its
 * Dismiss button (one form, a real POST).
 */
import type { FC } from "hono/jsx";
import type { Account } from "../../../api/entities/account.ts";
import type { StatusJson } from "../../../api/entities/status.ts";
import type {
  GroupedNotificationsJson,
  NotificationGroupJson,
} from "../../../api/entities/notification_group.ts";
import type { InteractionRequestJson } from "../../../api/entities/interaction_request.ts";
import type { AppViewer } from "./layout.tsx";
import { StatusItem } from "./status.tsx";
import { Pager, type PagerLinks } from "./pager.tsx";
import { accountPath, statusPath } from "../status/links.ts";
import { CsrfField } from "../shell.tsx";
import { htmlToText } from "../../../actors/formatting/html_to_text.ts";

/** What each type says after the names; `many` when more than one account did it. */
const VERBS: Record<string, string> = {
  mention: "mentioned you",
  status: "posted",
  reblog: "boosted your post",
  follow: "followed you",
  follow_request: "asked to follow you",
  favourite: "favourited your post",
  poll: "A poll you voted in or made has ended",
  update: "edited a post you interacted with",
  quote: "quoted your post",
  quoted_update: "edited a post that quotes yours",
  "admin.sign_up": "signed up",
  "admin.report": "filed a report",
  moderation_warning: "The moderators took action on your account",
  move: "moved to a new account",
  added_to_collection: "added you to a collection",
  collection_update: "updated a collection you are in",
  "pending.favourite": "wants to favourite your post: it waits for your approval",
  "pending.reply": "replied to your post: the reply waits for your approval",
  "pending.reblog": "wants to boost your post: it waits for your approval",
};

/** Types whose subject is shown whole, with its actions (the others link to it). */
const FULL_STATUS = new Set(["mention", "status", "quote", "update", "pending.reply"]);

/** Types whose sentence names nobody (the subject is the viewer's own). */
const IMPERSONAL = new Set(["poll", "moderation_warning"]);

/** "Ann", "Ann and Ben", "Ann, Ben and 3 others": names link to the profiles. */
const Names: FC<{ accounts: Account[]; total: number }> = ({ accounts, total }) => {
  const named = accounts.slice(0, total > 3 ? 2 : 3);
  const others = total - named.length;
  return (
    <>
      {named.map((a, i) => (
        <>
          {i === 0 ? null : i === named.length - 1 && others === 0 ? " and " : ", "}
          <a href={accountPath(a)} class="name">{a.display_name || a.username}</a>
        </>
      ))}
      {others > 0 ? ` and ${others} ${others === 1 ? "other" : "others"}` : null}
    </>
  );
};

/** The sentence of a group. */
const Sentence: FC<{ group: NotificationGroupJson; accounts: Account[] }> = (
  { group, accounts },
) => {
  const verb = VERBS[group.type] ?? "sent a notification";
  if (IMPERSONAL.has(group.type)) return <p class="sentence">{verb}.</p>;
  return (
    <p class="sentence">
      <Names accounts={accounts} total={Math.max(group.notifications_count, accounts.length)} />
      {" "}
      {verb}.
    </p>
  );
};

/** The subject of a group after its sentence. */
const Subject: FC<{
  group: NotificationGroupJson;
  status?: StatusJson;
  viewer: AppViewer;
  here: string;
}> = ({ group, status, viewer, here }) => {
  if (status && FULL_STATUS.has(group.type)) {
    return <StatusItem status={status} viewer={viewer} here={here} />;
  }
  if (status) {
    return (
      <p class="subject">
        <a href={statusPath(status)}>{excerpt(status)}</a>
      </p>
    );
  }
  if (group.type === "follow_request") {
    return (
      <p class="subject">
        <a href="/follow_requests">Review follow requests</a>
      </p>
    );
  }
  if (group.type.startsWith("admin.")) {
    return (
      <p class="subject">
        <a href={group.type === "admin.report" ? "/admin/reports" : "/admin/accounts"}>
          Open in moderation
        </a>
      </p>
    );
  }
  return null;
};

/** A post's words, short: its warning when it has one, else its text. */
function excerpt(status: StatusJson): string {
  const text = status.spoiler_text || htmlToText(status.content).trim();
  return text.length > 120 ? `${text.slice(0, 119)}…` : text || "Your post";
}

/** The list of groups (#notifications, the target of the script's fragments). */
export const NotificationGroupList: FC<{
  groups: NotificationGroupJson[];
  accounts: Map<string, Account>;
  statuses: Map<string, StatusJson>;
  viewer: AppViewer;
  here: string;
}> = ({ groups, accounts, statuses, viewer, here }) => (
  <ol class="notifications" id="notifications">
    {groups.map((group) => (
      <NotificationGroupItem
        key={group.group_key}
        group={group}
        accounts={accounts}
        statuses={statuses}
        viewer={viewer}
        here={here}
      />
    ))}
  </ol>
);

/** One group: its sentence, subject and Dismiss button. */
export const NotificationGroupItem: FC<{
  group: NotificationGroupJson;
  accounts: Map<string, Account>;
  statuses: Map<string, StatusJson>;
  viewer: AppViewer;
  here: string;
}> = ({ group, accounts, statuses, viewer, here }) => {
  const id = `group-${group.group_key}`;
  const who = group.sample_account_ids
    .map((a) => accounts.get(a))
    .filter((a): a is Account => !!a);
  const status = group.status_id ? statuses.get(group.status_id) : undefined;
  return (
    <li class={`notification notification-${group.type.replace(".", "-")}`} id={id}>
      <Sentence group={group} accounts={who} />
      <Subject group={group} status={status} viewer={viewer} here={here} />
      <form method="post" action={`/notifications/${group.group_key}/dismiss`} data-enhance>
        <CsrfField token={viewer.csrfToken} />
        <input type="hidden" name="return_to" value={here} />
        <button type="submit" class="link">
          Dismiss <span class="sr-only">this notification</span>
        </button>
      </form>
    </li>
  );
};

/** What each kind of request asks, after the name. */
const ASKS: Record<string, string> = {
  favourite: "wants to favourite",
  reply: "replied to",
  reblog: "wants to boost",
};

/** The interactions with the viewer's posts that wait for their approval (issue 34). */
export const Approvals: FC<{ requests: InteractionRequestJson[]; viewer: AppViewer }> = (
  { requests, viewer },
) => (
  <section aria-labelledby="approvals">
    <h2 id="approvals">Waiting for your approval</h2>
    <ul class="approvals">
      {requests.map((r) => (
        <li id={`approval-${r.id}`}>
          <p>
            <a href={accountPath(r.account)} class="name">
              {r.account.display_name || r.account.username}
            </a>{" "}
            {ASKS[r.type] ?? "interacted with"}{" "}
            <a href={statusPath(r.status)}>{excerpt(r.status)}</a>
            {r.reply ? <>: “{excerpt(r.reply)}”</> : null}
          </p>
          <form method="post" class="actions" data-enhance>
            <CsrfField token={viewer.csrfToken} />
            <input type="hidden" name="return_to" value="/notifications" />
            <button type="submit" formaction={`/interaction_requests/${r.id}/authorize`}>
              Accept
            </button>
            <button
              type="submit"
              class="secondary"
              formaction={`/interaction_requests/${r.id}/reject`}
            >
              Reject
            </button>
          </form>
        </li>
      ))}
    </ul>
  </section>
);

export interface NotificationsPageProps {
  /** Pending interaction requests, shown above the groups when there are any. */
  approvals: InteractionRequestJson[];
  result: GroupedNotificationsJson;
  viewer: AppViewer;
  here: string;
  pager: PagerLinks;
  /** The Mentions tab is open. */
  mentions: boolean;
  /** Notifications the policy held back (notification requests), when any. */
  filtered?: { pendingRequestsCount: number; pendingNotificationsCount: number };
}

export const NotificationsPage: FC<NotificationsPageProps> = (
  { approvals, result, viewer, here, pager, mentions, filtered },
) => {
  const accounts = new Map(result.accounts.map((a) => [a.id, a]));
  const statuses = new Map(result.statuses.map((s) => [s.id, s]));
  return (
    <>
      <nav class="tabs" aria-label="Show">
        <a href="/notifications" aria-current={mentions ? undefined : "page"}>All</a>
        <a href="/notifications?types[]=mention" aria-current={mentions ? "page" : undefined}>
          Mentions
        </a>
      </nav>
      <p class="muted">
        Opening this page marks your notifications as read.{" "}
        <a href="/notifications/clear">Clear all notifications</a>{" "}
        <a href="/notifications/policy">Notification settings</a>
      </p>
      {filtered?.pendingRequestsCount
        ? (
          <p class="filtered">
            <a href="/notifications/requests">
              Filtered notifications: {filtered.pendingNotificationsCount} from{" "}
              {filtered.pendingRequestsCount}{" "}
              {filtered.pendingRequestsCount === 1 ? "person" : "people"}
            </a>
          </p>
        )
        : null}
      {approvals.length ? <Approvals requests={approvals} viewer={viewer} /> : null}
      {result.notification_groups.length === 0
        ? <p id="notifications">No notifications yet.</p>
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
