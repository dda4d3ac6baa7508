/**
 * A post's edit history (GET /statuses/:id/history, design 35 §9.4), on the
 * web app's page and on the visitors' public one: each version as GET
 * /api/v1/statuses/:id/history answers it, newest first, with its warning,
 * text, poll choices and attachments (a sensitive version's folded, as in
 * posts); no actions.
 */
import type { FC } from "hono/jsx";
import { raw } from "hono/html";
import type { StatusEditJson } from "../../../api/entities/status_edit.ts";
import { emojifySanitized, emojifyText } from "../status/content.ts";
import { MediaGrid } from "../status/media.tsx";

const Version: FC<{ version: StatusEditJson; label: string }> = ({ version, label }) => (
  <article class="status version">
    <header>
      <strong>{label}</strong>{" "}
      <time datetime={version.created_at}>
        {version.created_at.slice(0, 16).replace("T", " ")} UTC
      </time>
    </header>
    {version.spoiler_text
      ? (
        <p class="cw-text" dir="auto">
          Content warning: {raw(emojifyText(version.spoiler_text, version.emojis))}
        </p>
      )
      : null}
    <div class="content" dir="auto">{raw(emojifySanitized(version.content, version.emojis))}</div>
    {version.poll
      ? (
        <ul class="poll-options">
          {version.poll.options.map((o, i) => (
            <li key={i}>{raw(emojifyText(o.title, version.emojis))}</li>
          ))}
        </ul>
      )
      : null}
    {version.media_attachments.length === 0 ? null : version.sensitive
      ? (
        <details>
          <summary>Media marked as sensitive</summary>
          <MediaGrid media={version.media_attachments} />
        </details>
      )
      : <MediaGrid media={version.media_attachments} />}
  </article>
);

/** The versions (given oldest first), shown newest first. */
export const HistoryList: FC<{ versions: StatusEditJson[] }> = ({ versions }) => (
  <ol class="history" reversed>
    {versions.map((version, i) => (
      <li>
        <Version
          version={version}
          label={i === 0 ? "Original" : i === versions.length - 1 ? "Current version" : `Edit ${i}`}
        />
      </li>
    )).reverse()}
  </ol>
);
