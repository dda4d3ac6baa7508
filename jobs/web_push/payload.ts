/**
 * The JSON a push message carries, as Mastodon's Web::NotificationSerializer
 * makes it: the subscription's access token (apps tell accounts apart by
 * it), the user's locale, the notification's id and type, the sender's
 * avatar as `icon`, an English title and a plain-text body of at most 140
 * characters (the content warning, else the status's text, else the
 * sender's bio).
 */
import { htmlToText } from "../../actors/formatting/html_to_text.ts";

import { DEFAULT_AVATAR_PATH } from "../../actors/media/urls.ts";

/** Mastodon's body length (Rails' `truncate(…, length: 140)`, "..." included). */
export const BODY_LENGTH = 140;

export interface PushPayload {
  access_token: string;
  preferred_locale: string;
  /** Digits; written as a JSON number (see {@link payloadJson}). */
  notification_id: string;
  notification_type: string;
  icon: string;
  title: string;
  body: string;
}

/** Mastodon's English titles (notification_mailer.<type>.subject). */
const TITLES: Record<string, (name: string) => string> = {
  mention: (name) => `You were mentioned by ${name}`,
  status: (name) => `${name} just posted`,
  reblog: (name) => `${name} boosted your post`,
  follow: (name) => `${name} is now following you`,
  follow_request: (name) => `Pending follower: ${name}`,
  favourite: (name) => `${name} favorited your post`,
  poll: (name) => `A poll by ${name} has ended`,
  update: (name) => `${name} edited a post`,
  quote: (name) => `${name} quoted your post`,
  quoted_update: (name) => `${name} edited a post you have quoted`,
  "admin.sign_up": (name) => `${name} signed up`,
  "admin.report": (name) => `${name} submitted a report`,
  // Ours: Mastodon's mailer has no subject for it (its web app's wording).
  moderation_warning: () => "Your account has received a moderation warning",
  move: (name) => `${name} has moved`,
};

/** What the payload is made of. */
export interface PayloadFacts {
  accessToken: string;
  locale: string;
  notificationId: string;
  type: string;
  sender: {
    username: string;
    displayName: string;
    avatarUrl: string | null;
    /** The bio, HTML. */
    note: string;
  };
  /** A `moderation_warning`'s text: the body instead of the person's own bio. */
  warningText?: string | null;
  /** The status shown (a boost's original), when the notification has one. */
  status: {
    spoilerText: string;
    /** The source text of a local status. */
    text: string | null;
    /** HTML. */
    content: string;
  } | null;
}

/** Rails' truncate: at most `length` characters, the cut ones replaced by "...". */
export function truncate(text: string, length = BODY_LENGTH): string {
  const chars = [...text];
  if (chars.length <= length) return text;
  return chars.slice(0, length - 3).join("") + "...";
}

/** A display name longer than this is cut in the title (push services refuse bodies over 4 KiB). */
const NAME_LENGTH = 100;

/** The payload for one subscription. */
export function pushPayload(origin: string, facts: PayloadFacts): PushPayload {
  const name = truncate(facts.sender.displayName.trim() || facts.sender.username, NAME_LENGTH);
  const status = facts.status;
  const source = facts.warningText != null ? facts.warningText : status?.spoilerText ||
    (status ? status.text ?? htmlToText(status.content) : htmlToText(facts.sender.note));
  return {
    access_token: facts.accessToken,
    preferred_locale: facts.locale,
    notification_id: facts.notificationId,
    notification_type: facts.type,
    icon: facts.sender.avatarUrl || `${origin}${DEFAULT_AVATAR_PATH}`,
    title: (TITLES[facts.type] ?? ((n: string) => `New notification from ${n}`))(name),
    body: truncate(htmlToText(source)),
  };
}

/**
 * The payload as JSON. Mastodon sends `notification_id` as a number (apps
 * with typed decoders expect one); our ids are 64-bit, beyond what a
 * JavaScript number holds, so the digits are written into the text as they
 * are rather than through a number.
 */
export function payloadJson(payload: PushPayload): string {
  const { access_token, preferred_locale, notification_id, ...rest } = payload;
  if (!/^\d{1,20}$/.test(notification_id)) throw new Error("Not a notification id");
  const head = JSON.stringify({ access_token, preferred_locale });
  const tail = JSON.stringify(rest);
  return `${head.slice(0, -1)},"notification_id":${notification_id},${tail.slice(1)}`;
}

/**
 * RFC 8030 Urgency by type: a mention is addressed to the user (high);
 * edits of posts they boosted or quoted can wait for the device (low);
 * everything else is normal.
 */
export function urgencyOf(type: string): "high" | "normal" | "low" {
  if (type === "mention") return "high";
  if (type === "update" || type === "quoted_update") return "low";
  return "normal";
}
