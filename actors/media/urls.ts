/**
 * The URLs media are shown at, for every serializer (the API's entities,
 * the ActivityPub objects, Web Push, the pages): a stored key's public URL
 * (the store's: `ORIGIN/system/<key>`, or the alias host in front of a
 * bucket), the media proxy's URL of a remote file we hold no copy of, and
 * the placeholder images. Built once per process by rookery.ts and reached
 * as `ctx.mediaUrls`; serializers take it instead of the origin, so no
 * serializer builds a media URL by hand.
 */
import { isPublicKey, type MediaStore } from "./store/mod.ts";

/** Paths (on the public origin) of the placeholder images (api/routes/static_images.ts serves them). */
export const DEFAULT_AVATAR_PATH = "/avatars/original/missing.png";
export const DEFAULT_HEADER_PATH = "/headers/original/missing.png";

/** What the media proxy (`/media_proxy/…`) serves a copy of. */
export type ProxyTarget =
  | { kind: "attachment"; variant: "original" | "small" }
  | { kind: "account"; variant: "avatar" | "header" }
  | { kind: "emoji"; variant: "original" | "static" }
  | { kind: "card"; variant: "image" };

export interface MediaUrls {
  /** The server's public origin (for the few URLs beside media a serializer prints). */
  readonly origin: string;
  /** The public URL of a stored public key. */
  file(key: string): string;
  /** The key of one of our stored files' public URL; null for any other URL. */
  keyOf(url: string): string | null;
  /** The media proxy's URL of a remote file of row `id` (Mastodon's `/media_proxy/:id/…`). */
  proxy(target: ProxyTarget, id: string): string;
  readonly defaultAvatar: string;
  readonly defaultHeader: string;
}

const PROXY_PATHS: Record<ProxyTarget["kind"], string> = {
  attachment: "/media_proxy",
  account: "/media_proxy/accounts",
  emoji: "/media_proxy/emojis",
  card: "/media_proxy/cards",
};

/** The URLs of a process's store. */
export function createMediaUrls(
  origin: string,
  store: Pick<MediaStore, "url" | "urlBase">,
): MediaUrls {
  return {
    origin,
    file: (key) => store.url(key),
    keyOf(url) {
      if (!url.startsWith(store.urlBase)) return null;
      const key = url.slice(store.urlBase.length);
      return isPublicKey(key) ? key : null;
    },
    // Unsigned until the media proxy serves these (the remote media cache).
    proxy: (target, id) => `${origin}${PROXY_PATHS[target.kind]}/${id}/${target.variant}`,
    defaultAvatar: `${origin}${DEFAULT_AVATAR_PATH}`,
    defaultHeader: `${origin}${DEFAULT_HEADER_PATH}`,
  };
}

/** An account's avatar or header as its row keeps it. */
export interface ProfileImage {
  /** Our stored file: a local account's upload, or our copy of a remote account's image. */
  key: string | null;
  /** A remote account's image on its own server. */
  remoteUrl: string | null;
}

/**
 * The URL a client loads for an account's avatar or header (`kind`, of
 * account `accountId`): our stored file, else the remote server's image;
 * null when there is none (the caller shows the placeholder).
 */
export function profileImageUrl(
  urls: MediaUrls,
  _account: { id: string; kind: "avatar" | "header" },
  image: ProfileImage,
): string | null {
  if (image.key) return urls.file(image.key);
  return image.remoteUrl ?? null;
}
