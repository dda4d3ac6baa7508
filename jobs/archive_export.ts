/**
 * The archive job of the settings pages (actors/import_export/archive.ts): builds a
 * user's archive as Mastodon's BackupService lays it out, so the tools that
 * read Mastodon archives read ours:
 *
 *   outbox.json      OrderedCollection of every status of the account (any
 *                    visibility, not deleted), oldest first: posts as the
 *                    Create(Note) deliveries send, boosts as their Announce
 *                    (outbox_collection.ts builds both, with the same ids);
 *                    an attachment's `url` is its path in the zip
 *   media_attachments/files/…  the original of each attachment of those posts
 *   likes.json, bookmarks.json  OrderedCollections of the statuses' URIs
 *   actor.json       the Person as we serve it, `icon`/`image` pointing at
 *                    avatar.<ext>/header.<ext> in the zip, and `outbox`,
 *                    `likes`, `bookmarks` at the files above
 *
 * Each item keeps its own `@context` (Mastodon drops it in favour of one on
 * the collection): the items are then exactly the documents we federate,
 * Mastodon's extension terms included. Everything is read a page at a time
 * and written straight into the zip (zip_writer.ts). When done, the owner
 * gets a mail with the download link; when anything fails, the part file is
 * removed and the archive marked failed, so no half archive is ever offered.
 */
import { and, asc, type Column, eq, gt, isNotNull, isNull, type SQL } from "drizzle-orm";
import { join } from "node:path";
import type { Context } from "@fedify/fedify";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../context.ts";
import { accounts, bookmarks, favourites, mediaAttachments, statuses } from "../db/schema/mod.ts";
import {
  archiveFile,
  archivesFolder,
  claimArchive,
  type ClaimedArchive,
  expiresAt,
  failArchive,
  finishArchive,
  newArchiveKey,
  partFile,
  removeFile,
  requeueArchive,
} from "../actors/import_export/archive.ts";
import { ZipFileWriter } from "./zip_writer.ts";
import { isSafeAttachmentPath, storedFileName } from "../actors/media/storage.ts";
import { MEDIA_URL_PREFIX, mediaRoot, storedPathOf } from "../actors/media/profile_media.ts";
import { sendMail } from "../actors/net/mailer.ts";
import { activitiesOf } from "../federation/dispatchers/outbox_collection.ts";
import { buildLocalActor } from "../federation/dispatchers/actor.ts";
import type { LocalAccount } from "../federation/dispatchers/local_actors.ts";
import { instanceContext } from "../federation/fetch/lookup.ts";
import { shapeForPeers } from "../federation/objects/wire_shape.ts";

const logger = getLogger(["rookery", "jobs", "archive"]);

/** Rows read per query (statuses, attachments, likes, bookmarks). */
export const ARCHIVE_PAGE = 100;

const AS_CONTEXT = "https://www.w3.org/ns/activitystreams";

type Json = Record<string, unknown>;

/** The route of an archive's download (web/routes/settings/archive.tsx). */
export function archiveDownloadPath(id: string): string {
  return `/settings/archives/${id}/download`;
}

/**
 * Builds one archive (see the module comment); a queued archive only, once.
 * When `signal` aborts (the worker stops), the build stops at its next write
 * and the archive is queued again, for the next worker to build from the
 * start.
 */
export async function runArchive(
  ctx: AppContext,
  job: { archiveId: string },
  signal?: AbortSignal,
): Promise<void> {
  const { database, config } = ctx;
  const claimed = await claimArchive(database.db, job.archiveId);
  if (!claimed) return;
  const part = partFile(config.dataDir, claimed.id);
  let key: string | null = null;
  try {
    const [account] = await database.db.select().from(accounts)
      .where(and(eq(accounts.id, claimed.accountId), isNull(accounts.domain)));
    if (!account || account.deletedAt || account.suspendedAt) {
      throw new Error("the account is gone or suspended");
    }
    await Deno.mkdir(archivesFolder(config.dataDir), { recursive: true });
    const zip = await ZipFileWriter.create(part, signal);
    let size: number;
    try {
      await writeArchive(ctx, zip, account);
      size = await zip.close();
    } catch (error) {
      zip.abort();
      throw error;
    }
    key = newArchiveKey();
    await Deno.rename(part, archiveFile(config.dataDir, key));
    if (!await finishArchive(database.db, claimed.id, key, size)) {
      // Deleted (or failed by the purge) while it was being built.
      await removeFile(archiveFile(config.dataDir, key));
      return;
    }
    logger.info("Archive {id} built: {size} bytes.", { id: claimed.id, size });
  } catch (error) {
    await removeFile(part);
    if (key) await removeFile(archiveFile(config.dataDir, key));
    if (signal?.aborted && !key && await requeueArchive(database.db, claimed.id)) {
      logger.info("Archive {id} stopped with the worker: queued again.", { id: claimed.id });
      return;
    }
    logger.warn("Archive {id} failed: {error}", { id: claimed.id, error });
    await failArchive(database.db, claimed.id);
    return;
  }
  await mailReady(ctx, claimed);
}

async function writeArchive(
  ctx: AppContext,
  zip: ZipFileWriter,
  account: LocalAccount,
): Promise<void> {
  const fedCtx = instanceContext(ctx);
  await writeOutbox(fedCtx, zip, account);
  await writeMedia(ctx, zip, account.id);
  await writeUris(
    zip,
    "likes.json",
    (after) =>
      ctx.database.db.select({ key: favourites.id, uri: statuses.uri }).from(favourites)
        .innerJoin(statuses, eq(statuses.id, favourites.statusId))
        .where(
          and(
            eq(favourites.accountId, account.id),
            // Likes still waiting for approval are not part of the archive yet.
            eq(favourites.pendingApproval, false),
            isNull(statuses.deletedAt),
            after(favourites.id),
          ),
        )
        .orderBy(asc(favourites.id)).limit(ARCHIVE_PAGE),
  );
  await writeUris(
    zip,
    "bookmarks.json",
    (after) =>
      ctx.database.db.select({ key: bookmarks.id, uri: statuses.uri }).from(bookmarks)
        .innerJoin(statuses, eq(statuses.id, bookmarks.statusId))
        .where(
          and(eq(bookmarks.accountId, account.id), isNull(statuses.deletedAt), after(bookmarks.id)),
        )
        .orderBy(asc(bookmarks.id)).limit(ARCHIVE_PAGE),
  );
  await writeActor(fedCtx, zip, account);
}

/** outbox.json: the account's statuses a page at a time, oldest first. */
async function writeOutbox(
  fedCtx: Context<AppContext>,
  zip: ZipFileWriter,
  account: LocalAccount,
): Promise<void> {
  const db = fedCtx.data.database.db;
  const origin = fedCtx.data.config.origin;
  const entry = zip.entry("outbox.json");
  await entry.write(
    `{"@context":${JSON.stringify(AS_CONTEXT)},"id":"outbox.json","type":"OrderedCollection",` +
      `"orderedItems":[`,
  );
  let after: string | null = null;
  let written = 0;
  for (;;) {
    const rows = await db.select().from(statuses).where(and(
      eq(statuses.accountId, account.id),
      isNull(statuses.deletedAt),
      after == null ? undefined : gt(statuses.id, after),
    )).orderBy(asc(statuses.id)).limit(ARCHIVE_PAGE);
    if (rows.length === 0) break;
    after = rows.at(-1)!.id;
    const pieces: string[] = [];
    for (const activity of await activitiesOf(fedCtx, account, rows)) {
      // The documents we federate, in the shape we federate them (wire_shape.ts).
      const json = shapeForPeers(
        await activity.toJsonLd({ format: "compact", contextLoader: fedCtx.contextLoader }) as Json,
      );
      localizeAttachments(json, origin);
      pieces.push(JSON.stringify(json));
    }
    if (pieces.length) {
      await entry.write((written ? "," : "") + pieces.join(","));
      written += pieces.length;
    }
    if (rows.length < ARCHIVE_PAGE) break;
  }
  // The count goes last: it is known only once every item is written.
  await entry.write(`],"totalItems":${written}}`);
  await entry.close();
}

/**
 * An attachment's `url` as the path of its file in the zip, as Mastodon's
 * archive has it (our media URL without `<origin>/system/`); a remote URL
 * stays as it is.
 */
function localizeAttachments(activity: Json, origin: string): void {
  const object = activity.object;
  if (!object || typeof object !== "object" || Array.isArray(object)) return;
  const attachment = (object as Json).attachment;
  const list = Array.isArray(attachment) ? attachment : attachment ? [attachment] : [];
  const prefix = `${origin}${MEDIA_URL_PREFIX}/`;
  const local = (url: unknown) =>
    typeof url === "string" && url.startsWith(prefix) ? url.slice(prefix.length) : null;
  for (const item of list) {
    if (!item || typeof item !== "object") continue;
    const record = item as Json;
    const direct = local(record.url);
    if (direct) {
      record.url = direct;
      continue;
    }
    const link = record.url as Json | null;
    const href = link && typeof link === "object" ? local(link.href) : null;
    if (href) link!.href = href;
  }
}

/** The original file of every attachment of the account's statuses, at its own path. */
async function writeMedia(ctx: AppContext, zip: ZipFileWriter, accountId: string): Promise<void> {
  const db = ctx.database.db;
  let after: string | null = null;
  for (;;) {
    const rows = await db.select({
      id: mediaAttachments.id,
      filePath: mediaAttachments.filePath,
      createdAt: mediaAttachments.createdAt,
    }).from(mediaAttachments)
      .innerJoin(statuses, eq(statuses.id, mediaAttachments.statusId))
      .where(and(
        eq(mediaAttachments.accountId, accountId),
        eq(statuses.accountId, accountId),
        isNull(statuses.deletedAt),
        isNotNull(mediaAttachments.filePath),
        after == null ? undefined : gt(mediaAttachments.id, after),
      ))
      .orderBy(asc(mediaAttachments.id)).limit(ARCHIVE_PAGE);
    if (rows.length === 0) return;
    after = rows.at(-1)!.id;
    for (const row of rows) {
      const path = row.filePath!;
      // Only files the media store wrote; a row pointing elsewhere is skipped.
      if (!isSafeAttachmentPath(path.split("/"))) continue;
      const added = await zip.addFile(
        path,
        storedFileName(ctx.config.dataDir, path),
        row.createdAt,
      );
      if (!added) logger.warn("Archive: the file of attachment {id} is missing.", { id: row.id });
    }
    if (rows.length < ARCHIVE_PAGE) return;
  }
}

/**
 * An OrderedCollection of status URIs (likes.json, bookmarks.json), read by
 * `page`, which is given the keyset condition of the next page.
 */
async function writeUris(
  zip: ZipFileWriter,
  name: string,
  page: (after: (column: Column) => SQL | undefined) => Promise<
    { key: string; uri: string }[]
  >,
): Promise<void> {
  const entry = zip.entry(name);
  await entry.write(
    `{"@context":${JSON.stringify(AS_CONTEXT)},"id":${JSON.stringify(name)},` +
      `"type":"OrderedCollection","orderedItems":[`,
  );
  let last: string | null = null;
  let written = 0;
  for (;;) {
    const key = last;
    const rows = await page((column) => key == null ? undefined : gt(column, key));
    if (rows.length === 0) break;
    last = rows.at(-1)!.key;
    await entry.write((written ? "," : "") + rows.map((r) => JSON.stringify(r.uri)).join(","));
    written += rows.length;
    if (rows.length < ARCHIVE_PAGE) break;
  }
  await entry.write(`],"totalItems":${written}}`);
  await entry.close();
}

/** actor.json, with the avatar and header files beside it. */
async function writeActor(
  fedCtx: Context<AppContext>,
  zip: ZipFileWriter,
  account: LocalAccount,
): Promise<void> {
  const { origin, dataDir } = fedCtx.data.config;
  const actor = shapeForPeers(
    await (await buildLocalActor(fedCtx, account)).toJsonLd({
      format: "compact",
      contextLoader: fedCtx.contextLoader,
    }) as Json,
  );
  for (
    const [field, name, url] of [
      ["icon", "avatar", account.avatarUrl],
      ["image", "header", account.headerUrl],
    ] as const
  ) {
    const segments = storedPathOf(origin, url);
    const image = actor[field];
    if (!segments || !image || typeof image !== "object") continue;
    const file = `${name}${segments.at(-1)!.slice(segments.at(-1)!.lastIndexOf("."))}`;
    if (await zip.addFile(file, join(mediaRoot(dataDir), ...segments))) {
      (image as Json).url = file;
    }
  }
  actor.outbox = "outbox.json";
  actor.likes = "likes.json";
  actor.bookmarks = "bookmarks.json";
  const entry = zip.entry("actor.json");
  await entry.write(JSON.stringify(actor));
  await entry.close();
}

/** Tells the owner the archive is ready (a failure is logged: the page lists it anyway). */
async function mailReady(ctx: AppContext, archive: ClaimedArchive): Promise<void> {
  const { config, database } = ctx;
  const [row] = await database.db.select({ username: accounts.username }).from(accounts)
    .where(eq(accounts.id, archive.accountId));
  const title = config.instance.title;
  const expiry = expiresAt(archive).toISOString().slice(0, 10);
  try {
    await sendMail(ctx, {
      to: archive.email,
      subject: `${title}: Your archive is ready for download`,
      text: [
        `The archive of your account @${row?.username ?? ""} on ${title} is ready:`,
        "your posts and boosts, their media, your likes and bookmarks, and your profile.",
        "",
        "Download it here (you may be asked to sign in first):",
        "",
        `${config.origin}${archiveDownloadPath(archive.id)}`,
        "",
        `The archive is deleted around ${expiry}; you can request a new one once a week`,
        `at ${config.origin}/settings/archive.`,
        "",
      ].join("\n"),
    });
  } catch (error) {
    logger.error("Could not mail that archive {id} is ready: {error}", { id: archive.id, error });
  }
}
