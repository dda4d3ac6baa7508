/**
 * What every staff page shares: one call that wraps a page body in the
 * layout and sends it, the 404 page inside the layout, the redirect after a
 * form post, a list's Newer/Older links, and the mapping of a command's
 * refusals to a status and a message for the page's alert (the same
 * refusals the admin API answers with 403, 404 and 422).
 */
import type { Context } from "hono";
import type { Child } from "hono/jsx";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ApiEnv } from "../../../api/env.ts";
import { ApiError } from "../../../api/errors.ts";
import { validationErrorResponse } from "../../../api/validation_errors.ts";
import type { PageParams, PageSize } from "../../../api/pagination.ts";
import { NotFoundError, ValidationError } from "../../../model/errors.ts";
import { NotAllowedError } from "../../../actors/moderation/account_actions.ts";
import { AdminLayout, type SectionKey, SECTIONS } from "../../pages/admin/layout.tsx";
import { NotFoundBody } from "../../pages/admin/components.tsx";
import { sendStaffPage, staffViewer } from "./session.ts";

/** A page of the staff area: title, section, body, and an alert when something was refused. */
export interface FrameOptions {
  title: string;
  section: SectionKey;
  body: Child;
  alert?: string | null;
  status?: ContentfulStatusCode;
}

/**
 * Sends `body` inside the layout. The `?notice=` of a redirect is shown on
 * a page that went well only: never beside an alert, nor on an error page.
 */
export async function sendFramed(c: Context<ApiEnv>, options: FrameOptions): Promise<Response> {
  const viewer = staffViewer(c);
  return await sendStaffPage(
    c,
    <AdminLayout
      title={options.title}
      instanceTitle={c.get("ctx").config.instance.title}
      viewer={viewer}
      section={options.section}
      notice={options.alert || (options.status ?? 200) !== 200 ? null : c.req.query("notice")}
    >
      {options.alert ? <p class="alert" role="alert">{options.alert}</p> : null}
      {options.body}
    </AdminLayout>,
    options.status ?? 200,
  );
}

/** What a section's pages are about, for its 404 page ("record" for a section not named here). */
const RECORD_OF: Partial<Record<SectionKey, string>> = {
  dashboard: "page",
  reports: "report",
  accounts: "account",
  domain_blocks: "domain block",
  roles: "role",
};

/**
 * The 404 of an unknown or malformed id, inside the layout: "No such
 * report." (or account…) and a link back to the section's list.
 */
export async function sendNotFound(c: Context<ApiEnv>, section: SectionKey): Promise<Response> {
  const list = SECTIONS.find((s) => s.key === section)!;
  return await sendFramed(c, {
    title: "Not found",
    section,
    status: 404,
    body: (
      <NotFoundBody
        what={RECORD_OF[section] ?? "record"}
        back={list.path}
        backLabel={`Back to the ${list.label.toLowerCase()}`}
      />
    ),
  });
}

/** The answer to a successful form post: back to `path` with a registered notice key. */
export function redirectWithNotice(c: Context<ApiEnv>, path: string, notice: string): Response {
  const sep = path.includes("?") ? "&" : "?";
  return c.redirect(`${path}${sep}notice=${encodeURIComponent(notice)}`, 303);
}

/**
 * The Newer/Older links of a page of rows ordered by id, newest first
 * (`ids` as shown): Newer once the list was paged, Older while the page is
 * full or after going newer. `href` makes a link from a cursor, which keeps
 * a page size other than the default.
 */
export function pageLinks(
  page: PageParams,
  size: PageSize,
  ids: readonly string[],
  href: (cursor: Record<string, string>) => string,
): { newer: string | null; older: string | null } {
  if (ids.length === 0) return { newer: null, older: null };
  const limit: Record<string, string> = page.limit === size.default
    ? {}
    : { limit: String(page.limit) };
  const paged = page.maxId != null || page.minId != null || page.sinceId != null;
  return {
    newer: paged ? href({ ...limit, min_id: ids[0] }) : null,
    older: ids.length >= page.limit || page.minId != null
      ? href({ ...limit, max_id: ids.at(-1)! })
      : null,
  };
}

/** A refusal to show on the page: the status and the message. */
export interface Refusal {
  status: 403 | 404 | 413 | 422 | 400;
  message: string;
}

/**
 * What a command's error means for a page, or null when it is not a refusal
 * (then it is a real failure and goes on to the server's error handler).
 */
export function refusalOf(error: unknown): Refusal | null {
  if (error instanceof NotAllowedError) return { status: 403, message: error.message };
  if (error instanceof NotFoundError) return { status: 404, message: error.message };
  if (error instanceof ValidationError) {
    return { status: 422, message: validationErrorResponse(error).message };
  }
  if (error instanceof ApiError && [400, 403, 404, 413, 422].includes(error.status)) {
    return { status: error.status as Refusal["status"], message: error.message };
  }
  return null;
}

/** Runs a command; its refusal is returned, anything else is thrown on. */
export async function attempt(fn: () => Promise<unknown>): Promise<Refusal | null> {
  try {
    await fn();
    return null;
  } catch (error) {
    const refusal = refusalOf(error);
    if (!refusal) throw error;
    return refusal;
  }
}
