/**
 * The public pages' use of the shell (../shell.tsx): landing, about,
 * profiles, posts, tags. What it adds: metadata for link previews
 * (OpenGraph, Twitter card), the ActivityPub and RSS alternates, `noindex`
 * when the account asked for it, the site navigation and the footer's
 * links. Hono JSX escapes every value; users' stored HTML is output raw only
 * in status_card.tsx's emojify helpers, after the one sanitizer.
 */
import { type Child, createContext, type FC, useContext } from "hono/jsx";
import { Brand, Shell, SignOutButton } from "../shell.tsx";
import { localUris } from "../../../model/uris.ts";

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

const FooterLinks: FC<{ instanceTitle: string }> = ({ instanceTitle }) => {
  const documents = useContext(SiteDocuments);
  return (
    <nav aria-label="Instance">
      <a href="/about">About {instanceTitle}</a>
      {documents.privacy ? <a href="/privacy-policy">Privacy policy</a> : null}
      {documents.terms ? <a href="/terms-of-service">Terms of service</a> : null}
    </nav>
  );
};

/** What link previewers and search engines read in <head>. */
const PreviewMeta: FC<{ title: string; instanceTitle: string; meta: PageMeta }> = (
  { title, instanceTitle, meta },
) => (
  <>
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
  </>
);

/** The page shell of every public page. */
export const PublicLayout: FC<{
  title: string;
  instanceTitle: string;
  meta?: PageMeta;
  viewer?: PublicViewer | null;
  children?: Child;
}> = ({ title, instanceTitle, meta = {}, viewer, children }) => (
  <Shell
    title={title === instanceTitle ? title : `${title} - ${instanceTitle}`}
    layout="public"
    robots={meta.noindex ? "noindex, noarchive" : undefined}
    head={<PreviewMeta title={title} instanceTitle={instanceTitle} meta={meta} />}
    header={
      <>
        <Brand instanceTitle={instanceTitle} />
        <nav aria-label="Site" class="end">
          <a href="/about">About</a>
          {viewer
            ? (
              <>
                <a href={localUris("").profile(viewer.username)}>@{viewer.username}</a>
                <SignOutButton token={viewer.csrfToken} />
              </>
            )
            : <a href="/auth/sign_in">Sign in</a>}
        </nav>
      </>
    }
    footer={<FooterLinks instanceTitle={instanceTitle} />}
  >
    {children}
  </Shell>
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
