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

/** Moved to ../page_links.ts, shared with the web app; kept here for the staff pages' imports. */
export { pageLinks } from "../page_links.ts";

/** Moved to ../refusals.ts, shared with the web app; kept here for the staff pages' imports. */
export { attempt, type Refusal, refusalOf } from "../refusals.ts";
