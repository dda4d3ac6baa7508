/**
 * A thread in the web app: the posts above (oldest first), the focused post,
 * the reply composer, then the replies in thread order, indented by depth
 * (computed from `in_reply_to_id` on the page, capped at 4), and, while
 * the replies of a remote thread are being fetched, a status line with a
 * "Check again" link (no meta refresh; the script polls it).
 */
import type { FC } from "hono/jsx";
import type { StatusJson } from "../../../api/entities/status.ts";
import type { AsyncRefresh } from "../../../actors/statuses/reply_crawls.ts";
import type { AppViewer } from "./layout.tsx";
import { StatusItem } from "./status.tsx";
import { Composer } from "./composer.tsx";

const MAX_DEPTH = 4;

/** Each reply's depth below the focused post (1 = a direct reply), capped. */
export function replyDepths(focusId: string, replies: StatusJson[]): Map<string, number> {
  const depths = new Map<string, number>([[focusId, 0]]);
  for (const reply of replies) {
    const parent = reply.in_reply_to_id ? depths.get(reply.in_reply_to_id) : undefined;
    depths.set(reply.id, Math.min((parent ?? 0) + 1, MAX_DEPTH));
  }
  return depths;
}

/** Mentions a reply starts with: the author's and the post's, not the replier's own. */
export function replyMentions(status: StatusJson, viewer: AppViewer): string {
  const accts = [status.account.acct, ...status.mentions.map((m) => m.acct)]
    .filter((acct) => acct !== viewer.username);
  return [...new Set(accts)].map((acct) => `@${acct} `).join("");
}

function items(list: StatusJson[], viewer: AppViewer, here: string) {
  return list.map((s) => {
    // Hono's precompiled JSX would print a `key` as an attribute.
    // deno-lint-ignore jsx-key
    return <StatusItem status={s} viewer={viewer} here={here} />;
  });
}

export interface ThreadProps {
  status: StatusJson;
  ancestors: StatusJson[];
  descendants: StatusJson[];
  refresh: AsyncRefresh | null;
  retrySeconds: number;
  viewer: AppViewer;
  here: string;
  domain: string | null;
}

export const Thread: FC<ThreadProps> = (props) => {
  const { status, viewer, here } = props;
  const depths = replyDepths(status.id, props.descendants);
  return (
    <>
      {props.ancestors.length
        ? (
          <section aria-label="Earlier in the thread">
            {items(props.ancestors, viewer, here)}
          </section>
        )
        : null}
      <StatusItem status={status} viewer={viewer} here={here} focus />
      <section id="reply" aria-label="Reply">
        <Composer
          viewer={viewer}
          returnTo={here}
          values={{
            status: replyMentions(status, viewer),
            inReplyToId: status.id,
            visibility: status.visibility,
          }}
        />
      </section>
      <Replies {...props} depths={depths} />
      <RefreshLine
        refresh={props.refresh}
        retrySeconds={props.retrySeconds}
        here={here}
        domain={props.domain}
      />
    </>
  );
};

/** The replies under the focused post (also the script's fragment, `data-replace`). */
export const Replies: FC<ThreadProps & { depths: Map<string, number>; fragment?: boolean }> = (
  props,
) => (
  <section
    aria-labelledby="replies"
    id="replies-section"
    data-replace={props.fragment ? "replies-section" : undefined}
  >
    <h2 id="replies">Replies</h2>
    {props.descendants.length === 0 ? <p class="muted">No replies yet.</p> : null}
    {props.descendants.map((s) => (
      <div class={`depth-${props.depths.get(s.id) ?? 1}`}>
        <StatusItem status={s} viewer={props.viewer} here={props.here} />
      </div>
    ))}
  </section>
);

/** "Fetching replies…" while a remote thread's replies are crawled, with a way to look again. */
export const RefreshLine: FC<{
  refresh: AsyncRefresh | null;
  retrySeconds: number;
  here: string;
  domain: string | null;
  fragment?: boolean;
}> = ({ refresh, retrySeconds, here, domain, fragment }) => {
  if (!refresh || refresh.status !== "running") {
    return fragment ? <p data-remove="refresh"></p> : null;
  }
  return (
    <p
      id="refresh"
      role="status"
      data-refresh-id={refresh.id}
      data-retry={String(retrySeconds)}
      data-replace={fragment ? "refresh" : undefined}
    >
      Fetching replies{domain ? ` from ${domain}` : ""}… <a href={here}>Check again</a>
    </p>
  );
};
