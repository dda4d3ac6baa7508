/** The page of a hashtag at `/tags/:name`: public posts with it, local and remote, newest first. */
import type { FC } from "hono/jsx";
import type { StatusJson } from "../../../api/entities/status.ts";
import { StatusCard } from "./status_card.tsx";
import { PublicLayout, type PublicViewer } from "./layout.tsx";
import { localUris } from "../../../model/uris.ts";

export interface TagPageProps {
  name: string;
  statuses: StatusJson[];
  older: string | null;
  paged: boolean;
  instanceTitle: string;
  origin: string;
  viewer: PublicViewer | null;
}

export const TagPage: FC<TagPageProps> = (
  { name, statuses, older, paged, instanceTitle, origin, viewer },
) => {
  const path = localUris("").tag(name);
  return (
    <PublicLayout
      title={`#${name}`}
      instanceTitle={instanceTitle}
      viewer={viewer}
      meta={{
        description: `Public posts tagged #${name} on ${instanceTitle}`,
        url: `${origin}${path}`,
        rss: `${origin}${path}.rss`,
      }}
    >
      <h1>#{name}</h1>
      <p>
        <a href={`${path}.rss`}>RSS feed</a>
      </p>
      {statuses.length === 0 ? <p class="muted">No public posts with this tag yet.</p> : null}
      <div class="feed">
        {statuses.map((s) => <StatusCard key={s.id} status={s} />)}
      </div>
      <nav class="pagination" aria-label="Pages">
        {paged ? <a href={path}>Newest</a> : <span />}
        {older ? <a href={older} rel="next">Older posts</a> : null}
      </nav>
    </PublicLayout>
  );
};
