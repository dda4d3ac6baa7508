/**
 * The web app's pages on the shared shell (../shell.tsx): the main
 * navigation (Home, Notifications, Local, Federated, Search, New post and a
 * "More" disclosure), the signed-in account with its sign-out button, the
 * notices of a redirect, the page's h1, and a polite live region the
 * script announces in. Everything works without the script; `script` and
 * `meta` are the slots it is loaded through (layout `app`, its own CSP).
 */
import type { Child, FC } from "hono/jsx";
import { Brand, Shell, SignOutButton } from "../shell.tsx";
import { Notices } from "./notices.tsx";
import { APP_SCRIPT_TAG } from "./script.ts";

/** Who is signed in, as every app page needs it. */
export interface AppViewer {
  accountId: string;
  username: string;
  role: string;
  csrfToken: string;
  /** The session's streaming-only web token, for the script (null: no live updates). */
  streamToken?: string | null;
  /** Notifications newer than their marker: "Notifications" carries the unread mark. */
  unreadNotifications?: boolean;
  /** How posts are shown to them (their preferences), where the page read them. */
  reading?: ReadingPreferences;
}

/** The reading preferences of Mastodon's: media display and content warnings. */
export interface ReadingPreferences {
  /** `default`: hide sensitive media; `show_all`; `hide_all`. */
  displayMedia: "default" | "show_all" | "hide_all";
  /** Open content warnings at once. */
  expandSpoilers: boolean;
}

/** The entries of the main navigation, by key (`current` marks one). */
export type AppNavKey =
  | "home"
  | "notifications"
  | "local"
  | "federated"
  | "search"
  | "new"
  | "conversations"
  | "bookmarks"
  | "favourites"
  | "lists"
  | "followed_tags"
  | "follow_requests"
  | "scheduled"
  | "profile"
  | "shortcuts";

const MAIN_NAV: { key: AppNavKey; path: string; label: string }[] = [
  { key: "home", path: "/", label: "Home" },
  { key: "notifications", path: "/notifications", label: "Notifications" },
  { key: "local", path: "/public/local", label: "Local" },
  { key: "federated", path: "/public", label: "Federated" },
  { key: "search", path: "/search", label: "Search" },
  { key: "new", path: "/statuses/new", label: "New post" },
];

const MORE_NAV: { key: AppNavKey; path: string; label: string }[] = [
  { key: "conversations", path: "/conversations", label: "Conversations" },
  { key: "bookmarks", path: "/bookmarks", label: "Bookmarks" },
  { key: "favourites", path: "/favourites", label: "Favourites" },
  { key: "lists", path: "/lists", label: "Lists" },
  { key: "followed_tags", path: "/followed_tags", label: "Followed hashtags" },
  { key: "follow_requests", path: "/follow_requests", label: "Follow requests" },
  { key: "scheduled", path: "/scheduled_statuses", label: "Scheduled posts" },
  { key: "shortcuts", path: "/keyboard_shortcuts", label: "Keyboard shortcuts" },
];

/** A link of the navigation; `unread` is the mark the script also sets live (rookery.js). */
const NavLink: FC<{ path: string; label: string; current: boolean; unread?: boolean }> = (
  { path, label, current, unread },
) => (
  <a
    href={path}
    aria-current={current ? "page" : undefined}
    class={unread ? "unread" : undefined}
    aria-label={unread ? `${label}, new` : undefined}
  >
    {label}
  </a>
);

/** The links of one part of the navigation. */
function navLinks(items: typeof MAIN_NAV, current?: AppNavKey, unread = false) {
  return items.map((item) => {
    return (
      // No `key`: Hono's precompiled JSX would print it as an attribute.
      <NavLink
        path={item.path}
        label={item.label}
        current={item.key === current}
        unread={unread && item.key === "notifications"}
      />
    );
  });
}

const AppNav: FC<{ viewer: AppViewer; current?: AppNavKey }> = ({ viewer, current }) => (
  <nav aria-label="Main">
    {navLinks(MAIN_NAV, current, viewer.unreadNotifications)}
    <details class="more-nav">
      <summary>More</summary>
      <div>
        {navLinks(MORE_NAV, current)}
        <NavLink
          path={`/@${viewer.username}`}
          label="Profile"
          current={current === "profile"}
        />
        <a href="/settings/profile">Settings</a>
        {viewer.role === "user" ? null : <a href="/admin">Moderation</a>}
      </div>
    </details>
  </nav>
);

export interface AppLayoutProps {
  /** The page's h1, and the start of its <title>. */
  title: string;
  instanceTitle: string;
  viewer: AppViewer;
  current?: AppNavKey;
  /** `?notice=` / `?alert=` keys of a redirect (notices.tsx). */
  notice?: string | null;
  alert?: string | null;
  /**
   * What the page's live updates subscribe to (streaming API names and
   * parameters); every page watches the notifications for the nav dot.
   */
  streams?: { stream: string; tag?: string; list?: string }[];
  children?: Child;
}

/** The metas the script reads: the web token, the streams, who is signed in. */
function scriptMeta(props: AppLayoutProps): Record<string, string> {
  const meta: Record<string, string> = { "rookery-username": props.viewer.username };
  if (props.viewer.streamToken) {
    meta["rookery-stream-token"] = props.viewer.streamToken;
    meta["rookery-streams"] = JSON.stringify(
      props.streams ?? [{ stream: "user:notification" }],
    );
  }
  return meta;
}

export const AppLayout: FC<AppLayoutProps> = (props) => (
  <Shell
    title={`${props.title} - ${props.instanceTitle}`}
    layout="app"
    robots="noindex"
    script={APP_SCRIPT_TAG}
    meta={scriptMeta(props)}
    header={
      <>
        <Brand instanceTitle={props.instanceTitle} />
        <AppNav viewer={props.viewer} current={props.current} />
        <span class="who">
          @{props.viewer.username}
          <SignOutButton token={props.viewer.csrfToken} redirectTo="/auth/sign_in" />
        </span>
      </>
    }
  >
    <Notices notice={props.notice} alert={props.alert} />
    <h1>{props.title}</h1>
    {props.children}
    <div id="announcer" class="sr-only" role="status" aria-live="polite"></div>
  </Shell>
);
