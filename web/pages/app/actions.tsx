/**
 * The action bar under a post (design 35 §10.1; engineer B fills it in:
 * boost, favourite, bookmark, the "More" disclosure). Until then: the reply
 * link and the counts, which every post shows.
 */
import type { FC } from "hono/jsx";
import type { StatusJson } from "../../../api/entities/status.ts";
import type { AppViewer } from "./layout.tsx";
import { statusPath } from "../status/links.ts";

export interface ActionBarProps {
  /** The post acted on (the boosted one, for a boost). */
  status: StatusJson;
  viewer: AppViewer;
  /** Where the forms come back to (the page and this post's anchor). */
  returnTo: string;
}

export const ActionBar: FC<ActionBarProps> = ({ status }) => (
  <div class="actions status-actions">
    <a href={`${statusPath(status)}#reply`}>
      Reply <span class="count">{status.replies_count}</span>
    </a>
    <span>
      Boosts <span class="count">{status.reblogs_count}</span>
    </span>
    <span>
      Favourites <span class="count">{status.favourites_count}</span>
    </span>
  </div>
);
