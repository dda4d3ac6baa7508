/**
 * One post in the web app: an <article> named by its author and time
 * (aria-labelledby), `id="status-<id>"` for anchors and fragment swaps, and
 * `data-id` the row's id (the boost's, for a boost: the cursor the script
 * pages with). The header, body and meta line come from web/pages/status/,
 * the actions from actions.tsx.
 */
import type { FC } from "hono/jsx";
import type { StatusJson } from "../../../api/entities/status.ts";
import type { AppViewer } from "./layout.tsx";
import { BoostedBy, StatusHeader, StatusMeta } from "../status/header.tsx";
import { StatusBody } from "../status/body.tsx";
import { ActionBar } from "./actions.tsx";

/** What the focused post of a thread shows more: the app it came from, who boosted and liked it. */
const FocusDetails: FC<{ status: StatusJson }> = ({ status }) => (
  <p class="details muted">
    {status.application?.name ? <span>via {status.application.name}</span> : null}
    <a href={`/statuses/${status.id}/reblogged_by`}>
      {status.reblogs_count} {status.reblogs_count === 1 ? "boost" : "boosts"}
    </a>
    <a href={`/statuses/${status.id}/favourited_by`}>
      {status.favourites_count} {status.favourites_count === 1 ? "favourite" : "favourites"}
    </a>
  </p>
);

export interface StatusItemProps {
  /** The row as the read answered it (a boost wraps the boosted post). */
  status: StatusJson;
  viewer: AppViewer;
  /** The page's own path and query: forms come back there, at this post. */
  here: string;
  /** 1-based position in a feed (aria-posinset), when in one. */
  position?: number;
  /** The focused post of a thread. */
  focus?: boolean;
  /** Sent as a fragment that replaces the article of the same id (fragments.ts). */
  replace?: boolean;
}

export const StatusItem: FC<StatusItemProps> = (
  { status, viewer, here, position, focus, replace },
) => {
  const shown = status.reblog ?? status;
  const idBase = `status-${status.id}`;
  const returnTo = `${here}#${idBase}`;
  return (
    <article
      class={`status${focus ? " focus" : ""}`}
      id={idBase}
      data-id={status.id}
      data-replace={replace ? idBase : undefined}
      aria-labelledby={`${idBase}-by ${idBase}-time`}
      aria-posinset={position}
      aria-setsize={position ? -1 : undefined}
      tabindex={-1}
    >
      {status.reblog ? <BoostedBy account={status.account} /> : null}
      <StatusHeader status={shown} idBase={idBase} />
      <StatusBody
        status={shown}
        forms={{ token: viewer.csrfToken, returnTo, viewerAccountId: viewer.accountId }}
        reading={viewer.reading}
      />
      <StatusMeta status={shown} idBase={idBase} />
      {focus ? <FocusDetails status={shown} /> : null}
      <ActionBar status={shown} viewer={viewer} returnTo={returnTo} />
    </article>
  );
};
