/**
 * The one document shell of every HTML page: <html lang>, the head
 * (charset, viewport, title, robots, the icon, the stylesheet, and a slot for what a
 * page adds, such as OpenGraph), a skip link, the site header, <main> and
 * an optional footer. The four layouts (public/, auth/, settings/, admin/)
 * and the embed page fill its slots; none writes its own <head>.
 *
 * Hono JSX escapes every value. No page has an inline script, an inline
 * style or an external font: the stylesheet is our own file (style.ts), and
 * only the web app's pages (layout `app`) load one script file of ours,
 * which is what lets the pages' CSP (web/routes/page_response.ts) stay strict.
 */
import type { Child, FC } from "hono/jsx";
import { STYLESHEET_HREF } from "./style.ts";

/** Where the site icon is served (web/routes/assets.ts). */
export const FAVICON_PATH = "/favicon.ico";

/** The kinds of page, each with a few rules of its own in the stylesheet (`layout-<kind>`). */
export type ShellLayout = "public" | "form" | "settings" | "admin" | "embed" | "app";

export interface ShellProps {
  /** The whole <title>. */
  title: string;
  layout: ShellLayout;
  lang?: string;
  /** e.g. "noindex": pages of an account or a form are not for search engines. */
  robots?: string;
  /** More of <head>: metadata for link previews, alternates. */
  head?: Child;
  /** The web app's script file (module scripts are deferred): only `app` pages pass it. */
  script?: { src: string; integrity: string };
  /** `<meta name content>` pairs for the web app's script (its stream token, its streams). */
  meta?: Record<string, string>;
  /** The contents of the site header (brand, navigation); without it, no header. */
  header?: Child;
  /** The contents of the site footer; without it, no footer. */
  footer?: Child;
  children?: Child;
}

/** `<meta name content>` of each pair. */
function metaTags(meta: Record<string, string> | undefined) {
  return Object.entries(meta ?? {}).map(([name, content]) => {
    // Hono's precompiled JSX would print a `key` as an attribute.
    // deno-lint-ignore jsx-key
    return <meta name={name} content={content} />;
  });
}

/** A whole page. */
export const Shell: FC<ShellProps> = (
  { title, layout, lang, robots, head, script, meta, header, footer, children },
) => (
  <html lang={lang ?? "en"}>
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>{title}</title>
      {robots ? <meta name="robots" content={robots} /> : null}
      <link rel="icon" href={FAVICON_PATH} />
      <link rel="stylesheet" href={STYLESHEET_HREF} />
      {metaTags(meta)}
      {script
        ? <script type="module" src={script.src} integrity={script.integrity}></script>
        : null}
      {head}
    </head>
    <body class={`layout-${layout}`}>
      {header ? <a class="skip" href="#content">Skip to content</a> : null}
      {header ? <header>{header}</header> : null}
      <main id="content">{children}</main>
      {footer ? <footer>{footer}</footer> : null}
    </body>
  </html>
);

/** The instance's name, linking home: the start of every site header. */
export const Brand: FC<{ instanceTitle: string }> = ({ instanceTitle }) => (
  <a class="brand" href="/">{instanceTitle}</a>
);

/** The hidden field that proves a form came from one of our pages. */
export const CsrfField: FC<{ token: string }> = ({ token }) => (
  <input type="hidden" name="authenticity_token" value={token} />
);

/** Hidden inputs carrying parameters from one form to the next (empty ones left out). */
export const HiddenFields: FC<{ fields: Record<string, string | undefined> }> = ({ fields }) => (
  <>
    {Object.entries(fields)
      .filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== "")
      .map(([name, value]) => {
        // Hono's precompiled JSX would print a `key` as an attribute.
        // deno-lint-ignore jsx-key
        return <input type="hidden" name={name} value={value} />;
      })}
  </>
);

/** The header's sign-out button (POST with the session's form token). */
export const SignOutButton: FC<{ token: string; redirectTo?: string }> = (
  { token, redirectTo },
) => (
  <form method="post" action="/auth/sign_out">
    <CsrfField token={token} />
    {redirectTo ? <input type="hidden" name="redirect_to" value={redirectTo} /> : null}
    <button type="submit" class="secondary">Sign out</button>
  </form>
);

/**
 * The HTML of a page, with its doctype. Our page components are synchronous,
 * which lets the OAuth flow answer without awaiting; a component that
 * awaited would be a mistake, reported here rather than sent half-rendered.
 */
export function documentHtml(page: unknown): string {
  const html = (page as { toString(): string | Promise<string> }).toString();
  if (typeof html !== "string") {
    throw new TypeError("A page component rendered asynchronously; use renderDocument");
  }
  return `<!DOCTYPE html>${html}`;
}

/** The HTML of a page, with its doctype, awaiting any asynchronous component. */
export async function renderDocument(page: unknown): Promise<string> {
  const html = await (page as { toString(): string | Promise<string> }).toString();
  return `<!DOCTYPE html>${html}`;
}
