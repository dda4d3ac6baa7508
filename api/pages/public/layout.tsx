/**
 * The shell of the public pages (landing, about, profiles, posts, tags):
 * metadata for link previews (OpenGraph, Twitter card), the ActivityPub
 * alternate, `noindex` when the account asked for it, and our own small
 * stylesheet (light and dark, phone-sized first). Hono JSX escapes every
 * value; users' stored HTML is output raw only in status_card.tsx's emojify
 * helpers, after the one sanitizer. No script, no external font.
 */
import { type Child, createContext, type FC, useContext } from "hono/jsx";

const STYLE = `
:root{color-scheme:light dark;--fg:#1f232b;--bg:#f3f4f8;--card:#fff;--muted:#545a68;--accent:#4f33c2;--border:#cfd3dc}
@media (prefers-color-scheme:dark){:root{--fg:#e8e9ee;--bg:#17191f;--card:#22252d;--muted:#b0b4bf;--accent:#a9a9ff;--border:#3a3e49}}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg);overflow-wrap:anywhere}
a{color:var(--accent)}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:.5rem;top:.5rem;background:var(--card);padding:.25rem .5rem}
body>header{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1rem;padding:.6rem 1rem;background:var(--card);border-bottom:1px solid var(--border)}
body>header .brand{font-weight:700;text-decoration:none;color:var(--fg);margin-right:auto}
body>header nav{display:flex;flex-wrap:wrap;gap:.25rem 1rem}
main{max-width:42rem;margin:1rem auto;padding:0 .75rem}
footer{max-width:42rem;margin:2rem auto;padding:0 .75rem;color:var(--muted);font-size:.9rem}
footer nav{display:flex;flex-wrap:wrap;gap:.25rem 1rem}
h1{font-size:1.4rem;margin:.25rem 0}
h2{font-size:1.15rem;margin:1.25rem 0 .5rem}
.card{background:var(--card);border:1px solid var(--border);border-radius:.5rem;padding:1rem;margin:0 0 .75rem}
.muted{color:var(--muted)}
.profile .banner{display:block;width:100%;height:9rem;object-fit:cover;border-radius:.5rem .5rem 0 0;background:var(--border)}
.profile .head{display:flex;gap:1rem;align-items:center;margin-top:-2.5rem;padding:0 .5rem}
.profile .avatar{width:5rem;height:5rem;border-radius:.5rem;border:3px solid var(--card);background:var(--card)}
.profile .head div{margin-top:2.5rem}
dl.fields{display:grid;grid-template-columns:minmax(6rem,auto) 1fr;gap:0;margin:.75rem 0;border:1px solid var(--border);border-radius:.35rem}
dl.fields dt,dl.fields dd{margin:0;padding:.4rem .6rem;border-bottom:1px solid var(--border)}
dl.fields dt{font-weight:600;color:var(--muted)}
dl.fields dd.verified{background:color-mix(in srgb,#1e7b34 12%,transparent)}
ul.counts{display:flex;flex-wrap:wrap;gap:1rem;list-style:none;padding:0;margin:.5rem 0}
ul.counts strong{font-size:1.1rem}
nav.tabs{display:flex;gap:.25rem;border-bottom:1px solid var(--border);margin:1rem 0 .75rem;overflow-x:auto}
nav.tabs a{padding:.5rem .75rem;text-decoration:none;white-space:nowrap}
nav.tabs a[aria-current=page]{font-weight:700;border-bottom:3px solid var(--accent)}
article.status{background:var(--card);border:1px solid var(--border);border-radius:.5rem;padding:.75rem 1rem;margin:0 0 .75rem}
article.status.focus{border:2px solid var(--accent)}
article.status .boosted{margin:0 0 .4rem;color:var(--muted);font-size:.9rem}
article.status .author{display:flex;gap:.6rem;align-items:center}
article.status .author img{width:2.75rem;height:2.75rem;border-radius:.35rem}
article.status .author a{text-decoration:none;color:var(--fg)}
article.status .author .name{font-weight:700}
article.status .content p{margin:.5rem 0}
article.status .media{display:grid;grid-template-columns:repeat(auto-fit,minmax(9rem,1fr));gap:.4rem;margin:.5rem 0}
article.status .media img,article.status .media video{width:100%;max-height:22rem;object-fit:cover;border-radius:.35rem;background:var(--border)}
article.status footer{margin:.4rem 0 0;padding:0;font-size:.9rem;display:flex;flex-wrap:wrap;gap:.25rem 1rem}
details summary{cursor:pointer;font-weight:600}
img.emoji{width:1.2em;height:1.2em;vertical-align:middle;object-fit:contain}
.pagination{display:flex;justify-content:space-between;margin:1rem 0}
.figures{display:flex;gap:1rem;flex-wrap:wrap;list-style:none;padding:0}
.figures li{background:var(--card);border:1px solid var(--border);border-radius:.5rem;padding:.5rem 1rem}
.figures strong{display:block;font-size:1.4rem}
.thumbnail{width:100%;max-height:16rem;object-fit:cover;border-radius:.5rem}
.button{display:inline-block;padding:.45rem 1rem;border-radius:.35rem;border:1px solid var(--accent);font-weight:600;text-decoration:none;margin:.25rem .5rem .25rem 0}
.button.primary{background:var(--accent);color:var(--card)}
button{font:inherit;font-weight:600;padding:.35rem .9rem;border-radius:.35rem;border:1px solid var(--accent);background:transparent;color:var(--accent);cursor:pointer}
ol.rules li{margin:.4rem 0}
table{width:100%;border-collapse:collapse}
th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid var(--border);vertical-align:top}
`;

/** What a page tells link previewers, search engines and fetchers about itself. */
export interface PageMeta {
  /** Plain text for the description, OpenGraph and Twitter card. */
  description?: string;
  /** The canonical URL of the page. */
  url?: string;
  /** og:type: "website", "profile" or "article". */
  type?: string;
  /** A picture for the preview (avatar, first image, thumbnail). */
  image?: string | null;
  /** `summary_large_image` when the picture is the point (media), else `summary`. */
  largeImage?: boolean;
  /** The ActivityPub document of the page. */
  activityPub?: string;
  /** An RSS feed of the page. */
  rss?: string;
  /** The account asked search engines to stay away. */
  noindex?: boolean;
  /** Extra <link>s (oEmbed discovery). */
  links?: { rel: string; type: string; href: string }[];
}

/** Who is looking, for the header: a signed-in browser session, or nobody. */
export interface PublicViewer {
  username: string;
  csrfToken: string;
}

/** Which of the operator's documents exist, for the footer's links (set by the route helper). */
export const SiteDocuments = createContext({ privacy: false, terms: false });

const Footer: FC<{ instanceTitle: string }> = ({ instanceTitle }) => {
  const documents = useContext(SiteDocuments);
  return (
    <footer>
      <nav aria-label="Instance">
        <a href="/about">About {instanceTitle}</a>
        {documents.privacy ? <a href="/privacy-policy">Privacy policy</a> : null}
        {documents.terms ? <a href="/terms-of-service">Terms of service</a> : null}
      </nav>
    </footer>
  );
};

/** The page shell of every public page. */
export const PublicLayout: FC<{
  title: string;
  instanceTitle: string;
  meta?: PageMeta;
  viewer?: PublicViewer | null;
  children?: Child;
}> = ({ title, instanceTitle, meta = {}, viewer, children }) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>{title === instanceTitle ? title : `${title} - ${instanceTitle}`}</title>
      {meta.noindex ? <meta name="robots" content="noindex, noarchive" /> : null}
      {meta.description != null
        ? <meta name="description" content={meta.description.slice(0, 300)} />
        : null}
      {meta.url ? <link rel="canonical" href={meta.url} /> : null}
      {meta.activityPub
        ? <link rel="alternate" type="application/activity+json" href={meta.activityPub} />
        : null}
      {meta.rss ? <link rel="alternate" type="application/rss+xml" href={meta.rss} /> : null}
      {
        // deno-lint-ignore jsx-key -- Hono would print a key as an attribute
        (meta.links ?? []).map((l) => <link rel={l.rel} type={l.type} href={l.href} />)
      }
      <meta property="og:site_name" content={instanceTitle} />
      <meta property="og:type" content={meta.type ?? "website"} />
      <meta property="og:title" content={title} />
      {meta.url ? <meta property="og:url" content={meta.url} /> : null}
      {meta.description != null
        ? <meta property="og:description" content={meta.description.slice(0, 300)} />
        : null}
      {meta.image ? <meta property="og:image" content={meta.image} /> : null}
      <meta name="twitter:card" content={meta.largeImage ? "summary_large_image" : "summary"} />
      <meta name="twitter:title" content={title} />
      {meta.description != null
        ? <meta name="twitter:description" content={meta.description.slice(0, 200)} />
        : null}
      {meta.image ? <meta name="twitter:image" content={meta.image} /> : null}
      <style dangerouslySetInnerHTML={{ __html: STYLE }} />
    </head>
    <body>
      <a class="skip" href="#content">Skip to content</a>
      <header>
        <a class="brand" href="/">{instanceTitle}</a>
        <nav aria-label="Site">
          <a href="/about">About</a>
          {viewer
            ? (
              <>
                <a href={`/@${viewer.username}`}>@{viewer.username}</a>
                <form method="post" action="/auth/sign_out" style="display:inline">
                  <input type="hidden" name="authenticity_token" value={viewer.csrfToken} />
                  <button type="submit">Sign out</button>
                </form>
              </>
            )
            : <a href="/auth/sign_in">Sign in</a>}
        </nav>
      </header>
      <main id="content">{children}</main>
      <Footer instanceTitle={instanceTitle} />
    </body>
  </html>
);

/** A page that says there is nothing (404) or nothing any more (410). */
export const MessagePage: FC<{ instanceTitle: string; title: string; message: string }> = (
  { instanceTitle, title, message },
) => (
  <PublicLayout title={title} instanceTitle={instanceTitle} meta={{ noindex: true }}>
    <h1>{title}</h1>
    <p>{message}</p>
  </PublicLayout>
);

/** Plain text of stored HTML, for descriptions (escaped again when rendered). */
export function plainText(html: string): string {
  return html.replace(/<br\s*\/?>|<\/p>/gi, " ").replace(/<[^>]*>/g, "").replace(/\s+/g, " ")
    .trim().replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'").replaceAll("&amp;", "&");
}
