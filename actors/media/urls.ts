/**
 * The URLs media are shown at, for every serializer (the API's entities,
 * the ActivityPub objects, Web Push, the pages): a stored key's public URL
 * (the store's: `ORIGIN/system/<key>`, or the alias host in front of a
 * bucket), the media proxy's URL of a remote file we hold no copy of, and
 * the placeholder images. Built once per process by rookery.ts and reached
 * as `ctx.mediaUrls`; serializers take it instead of the origin, so no
 * serializer builds a media URL by hand.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { toBase64Url } from "../formatting/encoding.ts";
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
  /**
   * The media proxy's URL of a remote file of row `id` (Mastodon's
   * `/media_proxy/:id/…`), signed (`?sig=`): the proxy answers only the
   * URLs we handed out, so they are as unguessable as `/system` names.
   */
  proxy(target: ProxyTarget, id: string): string;
  /** Whether `sig` is the signature of `target` of row `id` (constant time). */
  verifyProxy(target: ProxyTarget, id: string, sig: string): boolean;
  readonly defaultAvatar: string;
  readonly defaultHeader: string;
}

const PROXY_PATHS: Record<ProxyTarget["kind"], string> = {
  attachment: "/media_proxy",
  account: "/media_proxy/accounts",
  emoji: "/media_proxy/emojis",
  card: "/media_proxy/cards",
};

/** The first 16 bytes of HMAC-SHA256 over `<kind>/<id>/<variant>`, base64url (22 characters). */
function proxySignature(key: Uint8Array, target: ProxyTarget, id: string): string {
  const mac = createHmac("sha256", key).update(`${target.kind}/${id}/${target.variant}`).digest();
  return toBase64Url(new Uint8Array(mac.subarray(0, 16)));
}

/** The URLs of a process's store; `proxyKey` signs media proxy URLs (actors/media/proxy_key.ts). */
export function createMediaUrls(
  origin: string,
  store: Pick<MediaStore, "url" | "urlBase">,
  proxyKey: Uint8Array,
): MediaUrls {
  return {
    origin,
    file: (key) => store.url(key),
    keyOf(url) {
      if (!url.startsWith(store.urlBase)) return null;
      const key = url.slice(store.urlBase.length);
      return isPublicKey(key) ? key : null;
    },
    proxy: (target, id) =>
      `${origin}${PROXY_PATHS[target.kind]}/${id}/${target.variant}?sig=${
        proxySignature(proxyKey, target, id)
      }`,
    verifyProxy(target, id, sig) {
      const expected = new TextEncoder().encode(proxySignature(proxyKey, target, id));
      const given = new TextEncoder().encode(sig);
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
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
 * account `id`): our stored file, else the media proxy's URL of the remote
 * server's image (never the remote URL itself: a client must not be sent
 * to a host we have not checked); null when there is none (the caller
 * shows the placeholder).
 */
export function profileImageUrl(
  urls: MediaUrls,
  account: { id: string; kind: "avatar" | "header" },
  image: ProfileImage,
): string | null {
  if (image.key) return urls.file(image.key);
  if (!image.remoteUrl) return null;
  return urls.proxy({ kind: "account", variant: account.kind }, account.id);
}
