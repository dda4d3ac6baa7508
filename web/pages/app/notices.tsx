/**
 * The web app's notices and alerts after a redirect: `?notice=<key>` and
 * `?alert=<key>` name an entry of these tables, so a URL never puts text of
 * its own on the page. An unknown key shows nothing.
 */
import type { FC } from "hono/jsx";

/** What went well (shown in a `.notice`, role="status"). */
export const NOTICES: Record<string, string> = {
  posted: "Your post was published.",
  scheduled: "Your post was scheduled.",
  rescheduled: "The scheduled post was moved.",
  cancelled: "The scheduled post was cancelled.",
  edited: "Your post was edited.",
  deleted: "Your post was deleted.",
  reported: "Thank you: the report was sent to the moderators.",
  followed: "Followed.",
  unfollowed: "Unfollowed.",
  saved: "Saved.",
  cleared: "Your notifications were cleared.",
  muted: "Muted.",
  unmuted: "Unmuted.",
  blocked: "Blocked.",
  unblocked: "Unblocked.",
  list_deleted: "The list was deleted.",
};

/** What a one-button action refused (shown in an `.alert`, role="alert"). */
export const ALERTS: Record<string, string> = {
  not_allowed: "That is not allowed.",
  not_found: "That post or account is no longer here.",
  rate_limited: "Too many actions in a short time: wait a few minutes and try again.",
  vote_ended: "The poll has ended.",
  invalid: "That could not be done: check what was sent and try again.",
};

/** The notice or alert a redirect named, if it names a known one. */
export const Notices: FC<{ notice?: string | null; alert?: string | null }> = (
  { notice, alert },
) => (
  <>
    {alert && Object.hasOwn(ALERTS, alert)
      ? <p class="alert" role="alert">{ALERTS[alert]}</p>
      : null}
    {notice && Object.hasOwn(NOTICES, notice)
      ? <p class="notice" role="status">{NOTICES[notice]}</p>
      : null}
  </>
);
