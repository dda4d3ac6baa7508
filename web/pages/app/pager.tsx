/**
 * Newer/Older links under a paged list of the web app, from the cursors
 * its read returned (web/routes/app/paging.ts builds the hrefs).
 */
import type { FC } from "hono/jsx";

export interface PagerLinks {
  newer: string | null;
  older: string | null;
}

export const Pager: FC<{ links: PagerLinks }> = ({ links }) =>
  links.newer || links.older
    ? (
      <nav class="pager" aria-label="Pages">
        {links.newer ? <a href={links.newer} rel="prev">Newer posts</a> : null}
        {links.older ? <a href={links.older} rel="next">Older posts</a> : null}
      </nav>
    )
    : null;
