/**
 * Fallbacks for notifications a client cannot show (Mastodon 4.6,
 * NotificationFallbackConcern): a client lists the types it knows in
 * `supported_types[]`; a notification (or group) of a type it did not list
 * that has a fallback carries `fallback: {title, summary, description}`, a
 * line of HTML it can show instead. No `supported_types[]` at all: no
 * fallback anywhere, as Mastodon (the parameter is what opts in).
 *
 * Decisions:
 * - The types with a fallback are the ones clients did not always have:
 *   `admin.sign_up`, `admin.report`, `moderation_warning`,
 *   `added_to_collection`, `collection_update`, Rookery's `move`, and
 *   GoToSocial's `pending.favourite`, `pending.reply`, `pending.reblog`
 *   (an interaction waiting for the user's approval, issue 34). The
 *   types every client knows (mention, status, reblog, follow,
 *   follow_request, favourite, poll, update) and the quote types get none.
 * - The third member is `description`, always null, as Mastodon's
 *   serializer sends it (its documentation calls it `details`).
 * - Only names go in, as mentions (`@acct` linked to the profile), escaped.
 */
import { escapeHtml } from "../../actors/formatting/escape_html.ts";
import type { Account } from "./account.ts";
import type { NotificationJson } from "./notification.ts";
import type { GroupedNotificationsJson } from "./notification_group.ts";

/** The `fallback` member. */
export interface NotificationFallback {
  title: string;
  summary: string;
  description: null;
}

/** What a fallback's title names: the notification's account, and what it is about. */
export interface FallbackSubject {
  type: string;
  /** The account that caused it (the reporter, the new user, the curator, the one who moved). */
  account: { acct: string; url: string | null } | null;
  /** How many notifications the group holds (1 for a single one). */
  count: number;
  /** The reported account (`admin.report`). */
  target?: { acct: string; url: string | null } | null;
  /** Where the account moved (`move`). */
  movedTo?: { acct: string; url: string | null } | null;
}

function mention(account: { acct: string; url: string | null } | null | undefined): string {
  if (!account) return "someone";
  const name = `@${escapeHtml(account.acct)}`;
  return account.url ? `<a href="${escapeHtml(account.url)}">${name}</a>` : name;
}

function othersSuffix(count: number): string {
  if (count <= 1) return "";
  return count === 2 ? " and 1 other" : ` and ${count - 1} others`;
}

/** The title of a type's fallback, or null when the type has none. */
function title(subject: FallbackSubject): string | null {
  const who = mention(subject.account);
  switch (subject.type) {
    case "admin.sign_up":
      return `${who}${othersSuffix(subject.count)} signed up`;
    case "admin.report":
      return `${who} reported ${mention(subject.target)}`;
    case "moderation_warning":
      return "You have received a moderation warning";
    case "added_to_collection":
      return `${who} added you to a collection`;
    case "collection_update":
      return `${who} updated a collection you are in`;
    case "move":
      return `${who} moved to ${mention(subject.movedTo)}`;
    case "pending.favourite":
      return `${who} wants to favourite your post: it waits for your approval`;
    case "pending.reply":
      return `${who} replied to your post: the reply waits for your approval`;
    case "pending.reblog":
      return `${who} wants to boost your post: it waits for your approval`;
    default:
      return null;
  }
}

/**
 * The fallback of a notification for a client that supports `supported`
 * (null: the client sent no list, so none), or null.
 */
export function notificationFallback(
  origin: string,
  supported: ReadonlySet<string> | null,
  subject: FallbackSubject,
): NotificationFallback | null {
  if (!supported || supported.has(subject.type)) return null;
  const text = title(subject);
  if (text == null) return null;
  return {
    title: text,
    summary: "You are using an app that does not support this notification. " +
      `<a href="${escapeHtml(origin)}/">Sign in</a> on the web to see it.`,
    description: null,
  };
}

/** `supported_types[]` as a set, or null when the client did not send it. */
export function supportedTypesOf(list: readonly string[] | undefined): Set<string> | null {
  return list === undefined ? null : new Set(list);
}

/** Adds `fallback` to the v1 notifications a client cannot show (in place; returns them). */
export function withFallbacks(
  origin: string,
  supported: ReadonlySet<string> | null,
  list: NotificationJson[],
): NotificationJson[] {
  if (!supported) return list;
  for (const json of list) {
    const fallback = notificationFallback(origin, supported, {
      type: json.type,
      account: json.account,
      count: 1,
      target: json.report?.target_account,
      movedTo: json.account.moved,
    });
    if (fallback) json.fallback = fallback;
  }
  return list;
}

/** Adds `fallback` to the groups a client cannot show (in place; returns the result). */
export function withGroupFallbacks(
  origin: string,
  supported: ReadonlySet<string> | null,
  result: GroupedNotificationsJson,
): GroupedNotificationsJson {
  if (!supported) return result;
  const byId = new Map<string, { acct: string; url: string | null; moved?: Account | null }>(
    [...(result.partial_accounts ?? []), ...result.accounts].map((a) => [a.id, a]),
  );
  for (const group of result.notification_groups) {
    const account = byId.get(group.sample_account_ids[0]) ?? null;
    const fallback = notificationFallback(origin, supported, {
      type: group.type,
      account,
      count: group.notifications_count,
      target: group.report?.target_account,
      movedTo: account?.moved,
    });
    if (fallback) group.fallback = fallback;
  }
  return result;
}
