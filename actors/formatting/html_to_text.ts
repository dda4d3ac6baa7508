/**
 * The one reading of HTML as plain text, for every place that needs text
 * where HTML was stored or sent:
 *
 * - our own stored HTML (bios and field values made by text_to_html.ts, or
 *   set by an operator; status content) as the `source` of accounts whose
 *   typed text was never kept, the text of a push notification, the text
 *   filters match: paragraphs become blank lines, `<br>` newlines, links
 *   their full URL (the hidden parts of a shortened link are text too);
 * - values a remote server sends that must be plain text (display names,
 *   field names, content warnings, poll options, media descriptions), and
 *   the descriptions of HTML pages: `oneLine`, bounded by `maxLength`.
 *
 * Tags go (what a script or style element holds goes with them), every
 * entity is decoded, and control characters become spaces. Parsing is
 * htmlparser2's, linear whatever the input, so a `<` that opens no tag
 * (`1 < 2`) stays text. The result is text: whoever puts it back into HTML
 * escapes it (Hono JSX does).
 */
import { Parser } from "htmlparser2";

/** How {@link htmlToText} shapes its result. */
export interface TextOptions {
  /** Every run of white space (line breaks too) becomes one space. */
  oneLine?: boolean;
  /** At most this many characters (code points); the input is read only so far (4 × as much). */
  maxLength?: number;
}

/** Elements whose content is not text a reader sees. */
const HIDDEN = new Set(["script", "style", "textarea", "option", "noscript", "template"]);

// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/g;
// deno-lint-ignore no-control-regex
const SPACE_RUN = /[\s\u0000-\u001f\u007f]+/g;

/** Plain text of an HTML fragment (null and undefined give ""). */
export function htmlToText(
  html: string | null | undefined,
  options: TextOptions = {},
): string {
  if (!html) return "";
  const { maxLength } = options;
  const input = maxLength == null ? html : html.slice(0, maxLength * 4);
  const raw = textOf(input);
  const text = options.oneLine ? raw.replace(SPACE_RUN, " ") : raw.replace(CONTROL, " ");
  if (maxLength == null) return text.trim();
  return [...text.trim()].slice(0, maxLength).join("").trim();
}

/** The text nodes of `html` in order, with line breaks for `<br>` and between paragraphs. */
function textOf(html: string): string {
  const parts: string[] = [];
  let hidden = 0;
  const parser = new Parser({
    onopentag(name) {
      if (HIDDEN.has(name)) hidden++;
      else if (name === "br") parts.push("\n");
      else if (name === "p") paragraphBreak(parts);
    },
    onclosetag(name) {
      if (HIDDEN.has(name) && hidden > 0) hidden--;
    },
    ontext(text) {
      if (hidden === 0) parts.push(text);
    },
  }, { decodeEntities: true });
  parser.end(html);
  return parts.join("");
}

/**
 * A paragraph after text starts after one blank line, whatever white space
 * stood between them. Each part is trimmed at most once (linear in the input).
 */
function paragraphBreak(parts: string[]): void {
  while (parts.length > 0 && !parts[parts.length - 1].trim()) parts.pop();
  if (parts.length === 0) return;
  const last = parts[parts.length - 1];
  if (/\s$/.test(last)) parts[parts.length - 1] = last.trimEnd();
  parts.push("\n\n");
}
