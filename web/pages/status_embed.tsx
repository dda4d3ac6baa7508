/**
 * The embeddable page of a status (`/@username/<id>/embed`), what the oEmbed
 * answer's iframe shows: the author, the text (behind its content warning),
 * image previews and a link to the status, on a compact page that other
 * sites may frame (web/routes/page_response.ts, kind `embed`). Hono JSX
 * escapes every value; the stored content goes through the one sanitizer.
 */
import type { FC } from "hono/jsx";
import type { accounts, statuses } from "../../db/schema/mod.ts";
import type { MediaAttachmentJson } from "../../api/entities/media_attachment.ts";
import { sanitizeHtml } from "../../actors/formatting/sanitize_html.ts";
import { Shell } from "./shell.tsx";

type Account = typeof accounts.$inferSelect;
type Status = typeof statuses.$inferSelect;

export interface StatusEmbedInput {
  status: Status;
  account: Account;
  media: MediaAttachmentJson[];
  /** Host (with port when not default): the account's domain. */
  domain: string;
  instanceTitle: string;
}

/** The embed page of a status anyone may see. */
export const StatusEmbedPage: FC<StatusEmbedInput> = (
  { status, account, media, domain, instanceTitle },
) => {
  const name = account.displayName || account.username;
  // Stored HTML through the same allow-list it was stored with: a second
  // line of defence, so a row written by something that forgot never runs.
  const text = (
    <div
      class="e-content"
      lang={status.language ?? undefined}
      dangerouslySetInnerHTML={{ __html: sanitizeHtml(status.content) }}
    />
  );
  const images = media.filter((m) => m.preview_url);
  return (
    <Shell title={`${name} - ${instanceTitle}`} layout="embed">
      <article class="embed h-entry">
        <p class="author p-author h-card">
          <a class="u-url" target="_blank" rel="noopener" href={account.url ?? account.uri}>
            <strong>{name}</strong> <span class="handle">@{account.username}@{domain}</span>
          </a>
        </p>
        {status.spoilerText
          ? (
            <details>
              <summary>{status.spoilerText}</summary>
              {text}
            </details>
          )
          : text}
        {images.length
          ? (
            <div class="media">
              {images.map((m) => (
                <a href={m.url ?? m.preview_url!} target="_blank" rel="noopener">
                  <img src={m.preview_url!} alt={m.description ?? ""} />
                </a>
              ))}
            </div>
          )
          : null}
        <p class="meta">
          <a class="u-url u-uid" target="_blank" rel="noopener" href={status.url ?? status.uri}>
            <time class="dt-published" datetime={status.createdAt.toISOString()}>
              {status.createdAt.toISOString().slice(0, 16).replace("T", " ")} UTC
            </time>
          </a>{" "}
          · {instanceTitle}
        </p>
      </article>
    </Shell>
  );
};
