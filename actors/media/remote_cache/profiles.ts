/**
 * Copies of remote accounts' avatars and headers (see cache.ts), processed
 * as a local profile image is (cropped to 400×400 or 1500×500, metadata
 * gone), at most 8 MiB fetched.
 */
import { and, eq, isNull } from "drizzle-orm";
import { accounts } from "../../../db/schema/mod.ts";
import { ImageRejected, processProfileImage } from "../profile_media.ts";
import { newProfileImageKey, PROFILE_IMAGE_TYPES } from "../store/keys.ts";
import {
  type CacheContext,
  checkOwnerDomain,
  dropLosers,
  failedLately,
  fetchForCache,
  PROFILE_IMAGE_MAX_BYTES,
  recordingFailure,
  unavailable,
} from "./cache.ts";
import { RemoteMediaRefused } from "./fetch.ts";

/** The account columns of one image. */
const COLUMNS = {
  avatar: {
    key: accounts.avatarKey,
    remoteUrl: accounts.avatarRemoteUrl,
    failedAt: accounts.avatarFailedAt,
    set: (key: string | null, size: number | null, at: Date | null) => ({
      avatarKey: key,
      avatarFileSize: size,
      avatarCachedAt: at,
      avatarFailedAt: null,
    }),
    failed: () => ({ avatarFailedAt: new Date() }),
  },
  header: {
    key: accounts.headerKey,
    remoteUrl: accounts.headerRemoteUrl,
    failedAt: accounts.headerFailedAt,
    set: (key: string | null, size: number | null, at: Date | null) => ({
      headerKey: key,
      headerFileSize: size,
      headerCachedAt: at,
      headerFailedAt: null,
    }),
    failed: () => ({ headerFailedAt: new Date() }),
  },
} as const;

/** The key of our copy of remote account `id`'s avatar or header, fetched first when needed. */
export function cachedProfileImage(
  ctx: CacheContext,
  id: string,
  kind: "avatar" | "header",
): Promise<string> {
  return ctx.core.remoteMedia.once(`${kind}:${id}`, () => copyProfileImage(ctx, id, kind));
}

async function copyProfileImage(
  ctx: CacheContext,
  id: string,
  kind: "avatar" | "header",
): Promise<string> {
  const columns = COLUMNS[kind];
  const [row] = await ctx.database.db.select({
    domain: accounts.domain,
    suspendedAt: accounts.suspendedAt,
    deletedAt: accounts.deletedAt,
    key: columns.key,
    remoteUrl: columns.remoteUrl,
    failedAt: columns.failedAt,
  }).from(accounts).where(eq(accounts.id, id)).limit(1);
  if (!row || row.domain == null || row.suspendedAt || row.deletedAt) {
    throw unavailable(`${kind} of ${id}`);
  }
  if (row.key) return row.key;
  if (!row.remoteUrl || failedLately(row.failedAt)) throw unavailable(`${kind} of ${id}`);
  await checkOwnerDomain(ctx, row.domain);
  const remoteUrl = row.remoteUrl;
  const db = ctx.database.db;
  return await recordingFailure(async () => {
    const fetched = await fetchForCache(ctx, remoteUrl, {
      families: ["image"],
      maxBytes: PROFILE_IMAGE_MAX_BYTES,
    });
    let image;
    try {
      image = await processProfileImage(kind, new Blob([fetched.bytes]), PROFILE_IMAGE_MAX_BYTES);
    } catch (error) {
      if (!(error instanceof ImageRejected)) throw error;
      throw new RemoteMediaRefused("bad_type", `Not a readable ${kind}`, { cause: error });
    }
    const key = newProfileImageKey(id, kind, image.extension, { cached: true });
    await ctx.media.put(key, image.bytes, { contentType: PROFILE_IMAGE_TYPES[image.extension] });
    const [won] = await db.update(accounts)
      .set(columns.set(key, image.bytes.byteLength, new Date()))
      .where(and(eq(accounts.id, id), isNull(columns.key), eq(columns.remoteUrl, remoteUrl)))
      .returning({ id: accounts.id });
    if (!won) {
      await dropLosers(ctx, [key]);
      throw unavailable(`${kind} of ${id} (changed while fetching)`);
    }
    return key;
  }, () => db.update(accounts).set(columns.failed()).where(eq(accounts.id, id)));
}
