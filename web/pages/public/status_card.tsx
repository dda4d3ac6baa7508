/**
 * A post as the public pages show it, from the Status entity the API
 * serializes (api/entities/status.ts), so a page shows exactly what a
 * client would: the same media, emoji, content warning and boost. A boost
 * is shown as the boosted post under a "boosted" line.
 */
import type { FC } from "hono/jsx";
import { raw } from "hono/html";
import type { StatusJson } from "../../../api/entities/status.ts";
import type { Account, CustomEmoji } from "../../../api/entities/account.ts";
import { sanitizeHtml } from "../../../actors/formatting/sanitize_html.ts";
import { emojifySanitized, emojifyText } from "../status/content.ts";

export { emojifyText };

/** Stored HTML, sanitized again for the public pages, with its custom emoji as pictures. */
export function emojifyHtml(html: string, emojis: readonly CustomEmoji[]): string {
  return emojifySanitized(sanitizeHtml(html), emojis);
}

/** A display name with its custom emoji. */
export const DisplayName: FC<{ account: Account }> = ({ account }) => (
  <>{raw(emojifyText(account.display_name || account.username, account.emojis))}</>
);

/** The local page of a post of ours, or the original's address for a remote one. */
function pageOf(status: StatusJson): string {
  return status.url ?? status.uri;
}

function profileOf(account: Account): string {
  return account.url ?? account.uri;
}

const Media: FC<{ status: StatusJson }> = ({ status }) => {
  if (status.media_attachments.length === 0) return null;
  const items = status.media_attachments.map((m) => {
    const url = m.url ?? m.remote_url;
    if (!url) return null;
    const alt = m.description ?? "";
    if (m.type === "video" || m.type === "gifv") {
      return (
        <video
          src={url}
          poster={m.preview_url ?? undefined}
          controls
          preload="none"
          aria-label={alt || "Video"}
          loop={m.type === "gifv"}
        />
      );
    }
    if (m.type === "audio") {
      // deno-lint-ignore jsx-key -- Hono would print a key as an attribute
      return <audio src={url} controls preload="none" aria-label={alt || "Audio"} />;
    }
    if (m.type === "image") {
      return (
        <a href={url}>
          <img src={m.preview_url ?? url} alt={alt} loading="lazy" />
        </a>
      );
    }
    // deno-lint-ignore jsx-key -- Hono would print a key as an attribute
    return <a href={url}>{alt || "Attachment"}</a>;
  });
  const media = <div class="media">{items}</div>;
  // Sensitive media stays folded until the reader opens it, as clients do.
  return status.sensitive && !status.spoiler_text
    ? (
      <details>
        <summary>Sensitive media</summary>
        {media}
      </details>
    )
    : media;
};

/** A poll's options with their counts, or without them while the author hides them. */
const PollOptions: FC<{ poll: NonNullable<StatusJson["poll"]> }> = ({ poll }) => {
  const hidden = poll.options.some((o) => o.votes_count == null);
  return (
    <>
      <ul aria-label="Poll">
        {poll.options.map((o) => (
          <li>
            {o.title}
            {o.votes_count == null ? null : (
              <>
                {" "}
                <span class="muted">
                  ({o.votes_count} {o.votes_count === 1 ? "vote" : "votes"})
                </span>
              </>
            )}
          </li>
        ))}
      </ul>
      {hidden ? <p class="muted">The results are shown when the poll ends.</p> : null}
    </>
  );
};

const Body: FC<{ status: StatusJson }> = ({ status }) => {
  const content = (
    <>
      <div class="content e-content" lang={status.language ?? undefined}>
        {raw(emojifyHtml(status.content, status.emojis))}
      </div>
      {status.poll ? <PollOptions poll={status.poll} /> : null}
      <Media status={status} />
    </>
  );
  if (!status.spoiler_text) return content;
  return (
    <details>
      <summary class="p-summary">{raw(emojifyText(status.spoiler_text, status.emojis))}</summary>
      {content}
    </details>
  );
};

/** One post (or boost) in a list or a thread. */
export const StatusCard: FC<{ status: StatusJson; focus?: boolean; inThread?: boolean }> = (
  { status, focus, inThread },
) => {
  const shown = status.reblog ?? status;
  const when = new Date(shown.created_at);
  return (
    <article class={`status h-entry${focus ? " focus" : ""}`} id={`status-${status.id}`}>
      {status.reblog
        ? (
          <p class="boosted">
            <a href={profileOf(status.account)}>
              <DisplayName account={status.account} />
            </a>{" "}
            boosted
          </p>
        )
        : null}
      <div class="author p-author h-card">
        <img src={shown.account.avatar_static} alt="" width="44" height="44" />
        <a class="u-url" href={profileOf(shown.account)}>
          <span class="name p-name">
            <DisplayName account={shown.account} />
          </span>{" "}
          <span class="muted">@{shown.account.acct}</span>
        </a>
      </div>
      {shown.in_reply_to_id && !inThread ? <p class="muted">In reply to a post</p> : null}
      <Body status={shown} />
      <footer>
        <a class="u-url u-uid" href={pageOf(shown)}>
          <time class="dt-published" datetime={shown.created_at}>
            {when.toISOString().slice(0, 16).replace("T", " ")} UTC
          </time>
        </a>
        {shown.edited_at ? <a href={`/statuses/${shown.id}/history`}>Edited</a> : null}
        <span class="muted">
          {shown.replies_count} replies, {shown.reblogs_count} boosts, {shown.favourites_count}{" "}
          favourites
        </span>
      </footer>
    </article>
  );
};
