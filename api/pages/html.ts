/**
 * Building blocks of the server-rendered HTML pages: escaping, stored HTML
 * through the one sanitizer, and the page shell.
 */

export { escapeHtml } from "../../actors/formatting/escape_html.ts";
import { escapeHtml } from "../../actors/formatting/escape_html.ts";
import { sanitizeHtml } from "../../actors/formatting/sanitize_html.ts";

/**
 * Stored HTML (a bio, a profile field value, a status) as a page shows it:
 * through the same allow-list it was stored with. Local texts are rendered
 * by us and remote ones sanitised when stored; this is the second line of
 * defence, so a page never renders a script even if a row was written by
 * something that forgot.
 */
export function safeHtml(html: string): string {
  return sanitizeHtml(html);
}

export interface PageOptions {
  title: string;
  /** Extra markup for <head>, already escaped. */
  head?: string;
  /** The page body, already escaped. */
  body: string;
  lang?: string;
}

/** The page shell shared by the server-rendered pages. */
export function htmlPage(options: PageOptions): string {
  return `<!DOCTYPE html>
<html lang="${escapeHtml(options.lang ?? "en")}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(options.title)}</title>
${options.head ?? ""}
</head>
<body>
${options.body}
</body>
</html>
`;
}
