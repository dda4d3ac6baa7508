/**
 * A post's edit history for visitors (GET /statuses/:id/history without a
 * session): what GET /api/v1/statuses/:id/history answers anyone for a
 * post they may see, on the public pages' shell. As everywhere on the
 * public pages, the stored HTML goes through the one sanitizer again.
 * Kept out of search engines: the post's own page is the one to index.
 */
import type { FC } from "hono/jsx";
import type { StatusJson } from "../../../api/entities/status.ts";
import type { StatusEditJson } from "../../../api/entities/status_edit.ts";
import { sanitizeHtml } from "../../../actors/formatting/sanitize_html.ts";
import { HistoryList } from "../status/history.tsx";
import { DisplayName } from "./status_card.tsx";
import { PublicLayout, type PublicViewer } from "./layout.tsx";

export const HistoryPage: FC<{
  status: StatusJson;
  versions: StatusEditJson[];
  instanceTitle: string;
  viewer: PublicViewer | null;
}> = ({ status, versions, instanceTitle, viewer }) => (
  <PublicLayout
    title={`Edit history of a post by ${status.account.display_name || status.account.username}`}
    instanceTitle={instanceTitle}
    viewer={viewer}
    meta={{ noindex: true }}
  >
    <h1>
      Edit history of a post by <DisplayName account={status.account} />
    </h1>
    <p>
      <a href={status.url ?? status.uri}>Back to the post</a>
    </p>
    <HistoryList versions={versions.map((v) => ({ ...v, content: sanitizeHtml(v.content) }))} />
  </PublicLayout>
);
