/**
 * The one stylesheet of every HTML page (public, account, OAuth, settings,
 * staff, embed), served as a file (web/routes/assets.ts) so the pages' CSP
 * can say `style-src 'self'` and forbid inline styles: an injected `style`
 * attribute or element does nothing. The URL carries a hash of the text, so
 * browsers may keep it for a year and still see a change at once.
 *
 * Light and dark follow the system (prefers-color-scheme); both palettes
 * keep text at WCAG AA contrast (4.5:1) on every background they are used
 * on, and form borders at 3:1. Phone first: one column, wrapping headers,
 * tables that scroll sideways rather than push the page wider. No external
 * font: the system's own. Words break anywhere rather than overflow, except
 * in table cells, where that would break headers letter by letter: on a
 * phone, cells are narrower, and a table still too wide scrolls sideways
 * (axe then wants something focusable in it, as a keyboard scrolls there).
 *
 * The page shell (shell.tsx) sets `layout-<kind>` on <body>; rules that only
 * one kind of page needs are scoped to it. The text is kept in parts
 * (styles/*.ts), one per area, so parallel work edits different files.
 */
import { createHash } from "node:crypto";
import { BASE } from "./styles/base.ts";
import { STATUS } from "./styles/status.ts";
import { APP } from "./styles/app.ts";
import { COMPOSER } from "./styles/composer.ts";
import { NOTIFICATIONS } from "./styles/notifications.ts";

/** The parts in cascade order: later parts may refine earlier ones. */
export const STYLESHEET = [BASE, STATUS, APP, COMPOSER, NOTIFICATIONS].join("").trim();

/** A short hash of the text: a new stylesheet is a new URL. */
export const STYLESHEET_VERSION = createHash("sha256").update(STYLESHEET).digest("hex").slice(
  0,
  16,
);

/** Where the stylesheet is served (web/routes/assets.ts). */
export const STYLESHEET_PATH = "/assets/rookery.css";

/** What pages link to: the path with the hash, cached for a year. */
export const STYLESHEET_HREF = `${STYLESHEET_PATH}?v=${STYLESHEET_VERSION}`;
