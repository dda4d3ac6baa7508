/**
 * The scheduled posts page (GET /scheduled_statuses, design 35 §2.2): each
 * post's text, warning, attachments and time, a form to move it (a
 * `datetime-local` in UTC) and one to cancel it. Plain forms: no script.
 */
import type { FC } from "hono/jsx";
import type { ScheduledStatusJson } from "../../../api/entities/scheduled_status.ts";
import { CsrfField } from "../shell.tsx";

/** The `datetime-local` value of an ISO time, in UTC. */
function localValue(iso: string): string {
  return iso.slice(0, 16);
}

const ScheduledItem: FC<{ item: ScheduledStatusJson; token: string }> = ({ item, token }) => {
  const params = item.params as { text?: unknown; spoiler_text?: unknown; visibility?: unknown };
  const text = typeof params.text === "string" ? params.text : "";
  const warning = typeof params.spoiler_text === "string" ? params.spoiler_text : "";
  const base = `/scheduled_statuses/${item.id}`;
  return (
    <li class="scheduled" id={`scheduled-${item.id}`}>
      <p>
        <time datetime={item.scheduled_at}>
          {item.scheduled_at.slice(0, 16).replace("T", " ")} UTC
        </time>
        {typeof params.visibility === "string" ? ` · ${params.visibility}` : null}
      </p>
      {warning ? <p class="cw-text">Content warning: {warning}</p> : null}
      <p class="content" dir="auto">{text}</p>
      {item.media_attachments.length
        ? <p class="muted">{item.media_attachments.length} attachment(s)</p>
        : null}
      <form method="post" action={`${base}/update`} class="inline">
        <CsrfField token={token} />
        <label for={`at-${item.id}`}>New time (UTC)</label>
        <input
          id={`at-${item.id}`}
          type="datetime-local"
          name="scheduled_local"
          value={localValue(item.scheduled_at)}
          required
        />
        <button type="submit">Reschedule</button>
      </form>
      <form method="post" action={`${base}/delete`} class="inline">
        <CsrfField token={token} />
        <button type="submit" class="danger">Cancel this post</button>
      </form>
    </li>
  );
};

export const ScheduledList: FC<{ items: ScheduledStatusJson[]; token: string }> = (
  { items, token },
) =>
  items.length === 0 ? <p class="empty">No scheduled posts.</p> : (
    <ul class="scheduled-list">
      {items.map((item) => <ScheduledItem key={item.id} item={item} token={token} />)}
    </ul>
  );
