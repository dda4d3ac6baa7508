/**
 * A timeline page of the web app (Home, Local, Federated, a hashtag, a
 * list): the feed of posts (role="feed", each article its position), an
 * empty state, and the Newer/Older pager. `top` is what comes above the feed
 * (the composer on Home, toggles elsewhere).
 */
import type { Child, FC } from "hono/jsx";
import type { StatusJson } from "../../../api/entities/status.ts";
import type { AppViewer } from "./layout.tsx";
import { StatusItem } from "./status.tsx";
import { Pager, type PagerLinks } from "./pager.tsx";

export interface FeedProps {
  statuses: StatusJson[];
  viewer: AppViewer;
  here: string;
  /** The feed's accessible name ("Home timeline"). */
  label: string;
}

/** The articles of a feed (also the script's fragment of newer or older posts). */
export const FeedItems: FC<Omit<FeedProps, "label">> = ({ statuses, viewer, here }) => (
  <>
    {statuses.map((status, i) => (
      <StatusItem status={status} viewer={viewer} here={here} position={i + 1} />
    ))}
  </>
);

export const Feed: FC<FeedProps> = ({ statuses, viewer, here, label }) => (
  <div class="feed" role="feed" aria-busy="false" aria-label={label} id="feed">
    <FeedItems statuses={statuses} viewer={viewer} here={here} />
  </div>
);

export interface TimelineProps extends FeedProps {
  pager: PagerLinks;
  /** Said when the page has no post. */
  empty: Child;
  top?: Child;
}

export const Timeline: FC<TimelineProps> = (props) => (
  <>
    {props.top}
    {props.statuses.length === 0 ? <div class="feed empty" id="feed">{props.empty}</div> : (
      <Feed
        statuses={props.statuses}
        viewer={props.viewer}
        here={props.here}
        label={props.label}
      />
    )}
    <Pager links={props.pager} />
  </>
);
