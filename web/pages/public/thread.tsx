/**
 * The page of one post at `/@username/<id>` with its thread: the visible
 * ancestors above, the public replies below, the post itself marked.
 */
import type { FC } from "hono/jsx";
import type { StatusJson } from "../../../api/entities/status.ts";
import { StatusCard } from "./status_card.tsx";
import { PublicLayout, type PublicViewer } from "./layout.tsx";
import { htmlToText } from "../../../actors/formatting/html_to_text.ts";

export interface ThreadPageProps {
  status: StatusJson;
  ancestors: StatusJson[];
  descendants: StatusJson[];
  instanceTitle: string;
  /** The oEmbed URL of the post. */
  oembedUrl: string;
  /** The author opted out of search engines. */
  noindex: boolean;
  viewer: PublicViewer | null;
}

export const ThreadPage: FC<ThreadPageProps> = (
  { status, ancestors, descendants, instanceTitle, oembedUrl, noindex, viewer },
) => {
  const name = status.account.display_name || status.account.username;
  const text = status.spoiler_text || htmlToText(status.content, { oneLine: true });
  const picture = status.media_attachments.find((m) => m.type === "image");
  return (
    <PublicLayout
      title={`${name}: "${text.slice(0, 60)}"`}
      instanceTitle={instanceTitle}
      viewer={viewer}
      meta={{
        description: text,
        url: status.url ?? status.uri,
        type: "article",
        image: picture?.preview_url ?? status.account.avatar_static,
        largeImage: picture != null && !status.sensitive,
        activityPub: status.uri,
        noindex,
        links: [{ rel: "alternate", type: "application/json+oembed", href: oembedUrl }],
      }}
    >
      <h1 class="skip">Post by {name}</h1>
      {ancestors.length
        ? (
          <section aria-label="Earlier in the thread">
            {ancestors.map((s) => <StatusCard key={s.id} status={s} inThread />)}
          </section>
        )
        : null}
      <StatusCard status={status} focus inThread />
      {descendants.length
        ? (
          <section aria-labelledby="replies">
            <h2 id="replies">Replies</h2>
            {descendants.map((s) => <StatusCard key={s.id} status={s} inThread />)}
          </section>
        )
        : null}
    </PublicLayout>
  );
};
