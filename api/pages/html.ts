/**
 * Building blocks of the server-rendered HTML pages: escaping, a render-time
 * allow-list for stored HTML, and the page shell.
 */

/** Escapes text for an HTML text node or a double-quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;").replaceAll("'", "&#39;");
}

/** Tags kept from stored HTML (Mastodon's allow-list); others are dropped, their text kept. */
const ALLOWED_TAGS = new Set([
  "p",
  "br",
  "span",
  "a",
  "del",
  "pre",
  "code",
  "em",
  "strong",
  "b",
  "i",
  "u",
  "ul",
  "ol",
  "li",
  "blockquote",
]);
const VOID_TAGS = new Set(["br"]);
const ALLOWED_CLASS = /^(h-\S+|u-\S+|p-\S+|mention|hashtag|invisible|ellipsis)$/;

/**
 * Re-serializes stored HTML (a bio, a profile field value) keeping only the
 * allowed tags and safe attributes. Bios are sanitized when stored; this is
 * the second line of defence, so a page never renders a script even if a
 * row was written by something that forgot.
 */
export function safeHtml(html: string): string {
  let out = "";
  let last = 0;
  const tagPattern = /<(\/?)([a-zA-Z][a-zA-Z0-9]*)((?:[^>"']|"[^"]*"|'[^']*')*)>/g;
  for (const match of html.matchAll(tagPattern)) {
    out += safeText(html.slice(last, match.index));
    last = match.index + match[0].length;
    const [, closing, rawName, rawAttributes] = match;
    const name = rawName.toLowerCase();
    if (!ALLOWED_TAGS.has(name)) continue;
    if (closing) {
      if (!VOID_TAGS.has(name)) out += `</${name}>`;
      continue;
    }
    out += `<${name}${safeAttributes(name, rawAttributes)}>`;
  }
  return out + safeText(html.slice(last));
}

/** Text between tags is already HTML (entities stay); only markup characters are neutralized. */
function safeText(text: string): string {
  return text.replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

function safeAttributes(tag: string, raw: string): string {
  let out = "";
  const attributePattern = /([a-zA-Z-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/g;
  for (const match of raw.matchAll(attributePattern)) {
    const name = match[1].toLowerCase();
    const value = match[2] ?? match[3] ?? match[4] ?? "";
    if (name === "href" && tag === "a" && /^https?:\/\//i.test(value.trim())) {
      out += ` href="${attributeValue(value.trim())}"`;
    } else if (name === "class") {
      const classes = value.split(/\s+/).filter((c) => ALLOWED_CLASS.test(c));
      if (classes.length) out += ` class="${attributeValue(classes.join(" "))}"`;
    }
  }
  if (tag === "a") out += ` rel="nofollow noopener noreferrer" target="_blank"`;
  return out;
}

function attributeValue(value: string): string {
  return value.replaceAll('"', "&quot;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
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
