/** The favourites, replies and boosts of the signed-in user's posts that wait for approval. */
import type { FC } from "hono/jsx";
import { raw } from "hono/html";
import { CsrfField } from "../auth/layout.tsx";
import { SettingsLayout, type SettingsViewer } from "./layout.tsx";

/** One waiting interaction as the page shows it. */
export interface RequestEntry {
  id: string;
  type: string;
  /** `user` or `user@domain` of who interacts. */
  acct: string;
  /** The post interacted with: its page and its sanitized HTML. */
  targetUrl: string;
  targetContent: string;
  /** The held reply's sanitized HTML (replies only). */
  replyContent: string | null;
}

const WHAT: Record<string, string> = {
  favourite: "wants to favourite",
  reply: "wants to reply to",
  reblog: "wants to boost",
};

export const InteractionRequestsPage: FC<{
  instanceTitle: string;
  viewer: SettingsViewer;
  requests: RequestEntry[];
  notice?: string;
}> = ({ instanceTitle, viewer, requests, notice }) => (
  <SettingsLayout
    title="Waiting for approval"
    instanceTitle={instanceTitle}
    viewer={viewer}
    section="interaction_requests"
  >
    {notice ? <p class="notice" role="status">{notice}</p> : null}
    <p>
      Favourites, replies and boosts of your posts that your interaction policies ask you to
      approve. Until you do, only you and their author see them.
    </p>
    {requests.length === 0 ? <p>Nothing is waiting for your approval.</p> : (
      <ul class="requests">
        {requests.map((r) => (
          <li data-request={r.id}>
            <p>
              <strong>@{r.acct}</strong> {WHAT[r.type] ?? r.type}{" "}
              <a href={r.targetUrl}>your post</a>:
            </p>
            <blockquote>{raw(r.targetContent)}</blockquote>
            {r.replyContent != null ? <blockquote>{raw(r.replyContent)}</blockquote> : null}
            <form method="post" action={`/settings/interaction_requests/${r.id}/authorize`}>
              <CsrfField token={viewer.csrfToken} />
              <button type="submit" aria-label={`Approve @${r.acct}`}>Approve</button>
            </form>
            <form method="post" action={`/settings/interaction_requests/${r.id}/reject`}>
              <CsrfField token={viewer.csrfToken} />
              <button type="submit" aria-label={`Reject @${r.acct}`}>Reject</button>
            </form>
          </li>
        ))}
      </ul>
    )}
  </SettingsLayout>
);
