/**
 * A post's attachments in the web app: a grid of images (with width and
 * height from the file's metadata, so the page does not jump and no style
 * attribute is needed), videos, audio, and links for the rest; each
 * description as `alt` and in a visible "ALT" disclosure. Media the reader
 * should not see at once (sensitive, hidden by a filter) stay inside a
 * closed <details>: browsers do not fetch lazy images there until it is
 * opened.
 */
import type { FC } from "hono/jsx";
import type { MediaAttachmentJson } from "../../../api/entities/media_attachment.ts";
import { blurhashDataUrl, placeholderSize } from "./blurhash.ts";

/** The small version's size from the attachment's metadata, when it has one. */
function smallSize(m: MediaAttachmentJson): { width?: number; height?: number } {
  const small = (m.meta as { small?: { width?: unknown; height?: unknown } } | null)?.small;
  const ok = (n: unknown) => typeof n === "number" && Number.isFinite(n) && n > 0;
  return small && ok(small.width) && ok(small.height)
    ? { width: small.width as number, height: small.height as number }
    : {};
}

const Medium: FC<{ m: MediaAttachmentJson }> = ({ m }) => {
  const url = m.url ?? m.remote_url;
  const alt = m.description ?? "";
  if (!url) return <span class="muted">{alt || "Attachment"} (processing)</span>;
  if (m.type === "video" || m.type === "gifv") {
    return (
      <video
        src={url}
        poster={m.preview_url ?? undefined}
        controls
        preload="none"
        playsinline
        aria-label={alt || "Video"}
        loop={m.type === "gifv"}
        muted={m.type === "gifv"}
      />
    );
  }
  if (m.type === "audio") {
    return <audio src={url} controls preload="none" aria-label={alt || "Audio"} />;
  }
  if (m.type === "image" || m.preview_url) {
    return (
      <a href={url}>
        <img src={m.preview_url ?? url} alt={alt} loading="lazy" {...smallSize(m)} />
      </a>
    );
  }
  return <a href={url}>{alt || "Attachment"}</a>;
};

/** The grid of a post's attachments. */
export const MediaGrid: FC<{ media: MediaAttachmentJson[] }> = ({ media }) => (
  <div class={`media count-${media.length}`}>
    {media.map((m) => (
      <figure>
        <Medium m={m} />
        {m.description
          ? (
            <details class="alt">
              <summary>ALT</summary>
              <p>{m.description}</p>
            </details>
          )
          : null}
      </figure>
    ))}
  </div>
);

/** A hidden attachment's blurred stand-in, or nothing when its blurhash does not decode. */
const Placeholder: FC<{ m: MediaAttachmentJson }> = ({ m }) => {
  const { width, height } = smallSize(m);
  const size = placeholderSize(width, height);
  const src = m.blurhash ? blurhashDataUrl(m.blurhash, size) : null;
  return src ? <img src={src} alt="" width={size.width} height={size.height} /> : null;
};

/**
 * Attachments shown only once the reader opens them, with why they are
 * hidden, over their blurred placeholders (the files are not fetched until
 * then: lazy images inside a closed <details> are not loaded).
 */
export const HiddenMedia: FC<{ media: MediaAttachmentJson[]; label: string }> = (
  { media, label },
) => (
  <details class="sensitive">
    <summary>
      <span class={`placeholders count-${media.length}`} aria-hidden="true">
        {media.map((m) => <Placeholder key={m.id} m={m} />)}
      </span>
      <span class="label">{label} · Show</span>
    </summary>
    <MediaGrid media={media} />
  </details>
);
