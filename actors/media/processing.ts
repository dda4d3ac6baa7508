/**
 * Background work on media: finishing video and audio uploads, and removing
 * uploads that were never attached to a status.
 *
 * The row's state is the queue: `processing` rows are picked up by
 * {@link processPendingMedia} (polled by every worker process) and, in a
 * process that runs the worker, started at once after the upload
 * ({@link scheduleMediaProcessing}). Nothing is lost on a restart: a row
 * still `processing` is simply processed again. Two workers may both work
 * on the same row; only the first to finish writes it (the final update is
 * conditional on the state), the other removes its files.
 *
 * With ffmpeg, video becomes H.264 MP4 (`gifv` when it has no sound) with a
 * preview from its first frame, audio becomes MP3, and `meta` gets the
 * geometry, duration and bitrates. Without ffmpeg the upload is kept as it
 * came (it was recognised by its bytes at upload), marked processed, with no
 * meta beyond a custom thumbnail's and the focus.
 */
import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import { mediaAttachments } from "../../db/schema/mod.ts";
import { ffmpegAvailable, firstFrame, type MediaProbe, probeMedia, transcode } from "./ffmpeg.ts";
import { geometry, processPreview } from "./images.ts";
import { storedFileName, writeAttachmentFile } from "./storage.ts";
import { mediaStore } from "./store.ts";
import { removeDiscardedMedia } from "./discarded.ts";
import { inLiveEditHistory } from "./removal.ts";
import type { MediaRow } from "./upload.ts";

const logger = getLogger(["rookery", "media"]);

/** How old unattached uploads must be to be cleaned up. */
export const UNATTACHED_MAX_AGE_MS = 24 * 60 * 60_000;

export interface MediaWorker {
  signal: AbortSignal;
  inFlight: Set<string>;
  /** One processing at a time per process: ffmpeg takes whole cores. */
  chain: Promise<void>;
}

/**
 * This process's media work (process/core.ts holds one): the worker, once
 * started, and whether ffmpeg is here (asked once).
 */
export class MediaWork {
  worker: MediaWorker | null = null;
  #ffmpeg: Promise<boolean> | null = null;

  /** Whether video and audio are transcoded (ffmpeg and ffprobe found). */
  ffmpeg(): Promise<boolean> {
    return this.#ffmpeg ??= ffmpegAvailable();
  }

  /**
   * Makes this process act as if ffmpeg were (or were not) installed; null
   * goes back to asking the machine. Tests use it to run the no-ffmpeg path
   * on a machine that has ffmpeg (CI installs it).
   */
  assumeFfmpeg(value: boolean | null): void {
    this.#ffmpeg = value == null ? null : Promise.resolve(value);
  }
}

/**
 * Makes this process a media worker until `signal` aborts (rookery.ts calls
 * it from startWorker): uploads are then processed here as they come
 * ({@link scheduleMediaProcessing}) and as the periodic runner finds them
 * ({@link processPendingMedia}, jobs/periodic.ts).
 */
export function startMediaWorker(ctx: AppContext, signal: AbortSignal): void {
  ctx.core.media.worker = { signal, inFlight: new Set(), chain: Promise.resolve() };
}

/**
 * Starts processing an upload now when this process runs the media worker;
 * otherwise a worker's poll will find it.
 */
export function scheduleMediaProcessing(ctx: AppContext, id: string): void {
  const worker = ctx.core.media.worker;
  if (worker && !worker.signal.aborted) enqueue(ctx, worker, id);
}

function enqueue(ctx: AppContext, worker: MediaWorker, id: string): void {
  if (worker.inFlight.has(id)) return;
  worker.inFlight.add(id);
  worker.chain = worker.chain
    .then(() => worker.signal.aborted ? undefined : processMedia(ctx, id).then(() => {}))
    .catch((error) => logger.warn("Processing media {id} failed: {error}", { id, error }))
    .finally(() => worker.inFlight.delete(id));
}

/** Queues every unfinished upload (oldest first) on this process's worker. */
export async function processPendingMedia(ctx: AppContext): Promise<void> {
  const worker = ctx.core.media.worker;
  if (!worker || worker.signal.aborted) return;
  const rows = await ctx.database.db.select({ id: mediaAttachments.id }).from(mediaAttachments)
    .where(eq(mediaAttachments.state, "processing"))
    .orderBy(mediaAttachments.id)
    .limit(20);
  for (const { id } of rows) enqueue(ctx, worker, id);
}

/** What processing found out and wrote. */
interface Outcome {
  type: string;
  filePath: string;
  contentType: string;
  fileSize: number;
  previewPath: string | null;
  blurhash: string | null;
  meta: Record<string, unknown>;
}

/**
 * Finishes one upload in state `processing` and returns the row as it is
 * afterwards (processed or failed); rows in any other state are returned
 * untouched. The deprecated v1 upload calls this directly.
 */
export async function processMedia(ctx: AppContext, id: string): Promise<MediaRow | null> {
  const db = ctx.database.db;
  const [row] = await db.select().from(mediaAttachments).where(eq(mediaAttachments.id, id));
  if (!row || row.state !== "processing") return row ?? null;
  const created: string[] = [];
  try {
    if (!row.filePath) throw new Error("no stored file");
    const outcome = await ((await ctx.core.media.ffmpeg())
      ? transcodeRow(ctx, row, created)
      : keepAsUploaded(ctx, row));
    // Focus, alt text and a custom thumbnail may have changed meanwhile (PUT):
    // they win over what processing computed.
    const [updated] = await db.update(mediaAttachments).set({
      type: outcome.type,
      filePath: outcome.filePath,
      contentType: outcome.contentType,
      fileSize: outcome.fileSize,
      previewPath: sql`coalesce(${mediaAttachments.previewPath}, ${outcome.previewPath})`,
      blurhash: sql`coalesce(${mediaAttachments.blurhash}, ${outcome.blurhash})`,
      meta: sql`${JSON.stringify(outcome.meta)}::jsonb
        || jsonb_strip_nulls(jsonb_build_object('focus', ${mediaAttachments.meta} -> 'focus'))
        || CASE WHEN ${mediaAttachments.previewPath} IS NULL THEN '{}'::jsonb
           ELSE jsonb_strip_nulls(jsonb_build_object('small', ${mediaAttachments.meta} -> 'small'))
           END`,
      state: "processed",
    }).where(and(eq(mediaAttachments.id, id), eq(mediaAttachments.state, "processing")))
      .returning();
    if (!updated) {
      // Someone else finished (or the row went away) first.
      await mediaStore(ctx.config).delete(created);
      const [now] = await db.select().from(mediaAttachments).where(eq(mediaAttachments.id, id));
      return now ?? null;
    }
    const unused = created.filter((p) =>
      p !== updated.filePath && p !== updated.previewPath
    );
    if (row.filePath !== updated.filePath) unused.push(row.filePath);
    await mediaStore(ctx.config).delete(unused);
    return updated;
  } catch (error) {
    logger.warn("Media {id} could not be processed: {error}", { id, error });
    await mediaStore(ctx.config).delete(created);
    const [failed] = await db.update(mediaAttachments).set({ state: "failed" })
      .where(and(eq(mediaAttachments.id, id), eq(mediaAttachments.state, "processing")))
      .returning();
    return failed ?? null;
  }
}

/** Without ffmpeg: the recognised upload is served as it came. */
function keepAsUploaded(_ctx: AppContext, row: MediaRow): Promise<Outcome> {
  return Promise.resolve({
    type: row.type,
    filePath: row.filePath!,
    contentType: row.contentType ?? "application/octet-stream",
    fileSize: row.fileSize ?? 0,
    previewPath: null,
    blurhash: null,
    meta: {},
  });
}

function clock(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = (seconds % 60).toFixed(2).padStart(5, "0");
  return `${h}:${String(m).padStart(2, "0")}:${s}`;
}

function frameRateValue(rate: string | null): number | null {
  if (!rate) return null;
  const [n, d] = rate.split("/").map(Number);
  return d ? Math.round(n / d) : Number.isFinite(n) ? n : null;
}

function metaOf(probe: MediaProbe): Record<string, unknown> {
  const meta: Record<string, unknown> = {};
  if (probe.duration != null) {
    meta.length = clock(probe.duration);
    meta.duration = probe.duration;
  }
  const original: Record<string, unknown> = {};
  if (probe.video) {
    const g = geometry(probe.video.width, probe.video.height);
    Object.assign(meta, g);
    Object.assign(original, { width: g.width, height: g.height });
    const fps = frameRateValue(probe.video.frameRate);
    if (fps != null) meta.fps = fps;
    if (probe.video.frameRate) original.frame_rate = probe.video.frameRate;
  }
  if (probe.duration != null) original.duration = probe.duration;
  if (probe.bitrate != null) original.bitrate = probe.bitrate;
  if (probe.audio) {
    meta.audio_encode = probe.audio.codec;
    if (probe.audio.bitrate != null) meta.audio_bitrate = `${Math.round(probe.audio.bitrate)}`;
    if (probe.audio.channels) meta.audio_channels = probe.audio.channels;
  }
  meta.original = original;
  return meta;
}

/**
 * With ffmpeg: transcode into a scratch file, probe it, take a preview
 * frame, then put both in the media store.
 */
async function transcodeRow(ctx: AppContext, row: MediaRow, created: string[]): Promise<Outcome> {
  const store = mediaStore(ctx.config);
  const input = storedFileName(ctx.config.dataDir, row.filePath!);
  const source = await probeMedia(input);
  if (!source.video && !source.audio) throw new Error("no audio or video stream");
  const kind = row.type === "audio" || !source.video ? "audio" : "video";
  const extension = kind === "video" ? "mp4" : "mp3";
  const scratch = await Deno.makeTempFile({ prefix: "rookery-media-", suffix: `.${extension}` });
  try {
    await transcode(input, scratch, kind);
    const probe = await probeMedia(scratch);
    const meta = metaOf(probe);
    let previewPath: string | null = null;
    let blurhash: string | null = null;
    if (kind === "video" && !row.previewPath) {
      const preview = await processPreview(await firstFrame(scratch));
      previewPath = await writeAttachmentFile(
        store,
        row.id,
        "small",
        preview.extension,
        preview.bytes,
      );
      created.push(previewPath);
      blurhash = preview.blurhash;
      meta.small = preview.geometry;
    }
    const bytes = await Deno.readFile(scratch);
    const output = await writeAttachmentFile(store, row.id, "original", extension, bytes);
    created.push(output);
    return {
      type: kind === "audio" ? "audio" : probe.audio ? "video" : "gifv",
      filePath: output,
      contentType: kind === "video" ? "video/mp4" : "audio/mpeg",
      fileSize: bytes.byteLength,
      previewPath,
      blurhash,
      meta,
    };
  } finally {
    await Deno.remove(scratch).catch(() => {});
  }
}

/**
 * Removes local uploads attached to nothing (no status, no scheduled
 * status, no edit history of a status that is not deleted) for more than a
 * day, with their files, as Mastodon's media cleanup does. The day counts
 * from the upload, or for the media of a status deleted without
 * `delete_media` from its deletion (kept that long for a redraft). Returns
 * how many were removed.
 */
export async function removeUnattachedMedia(
  ctx: AppContext,
  maxAgeMs = UNATTACHED_MAX_AGE_MS,
): Promise<number> {
  const cutoff = new Date(Date.now() - maxAgeMs);
  const unattached = and(
    isNull(mediaAttachments.statusId),
    isNull(mediaAttachments.scheduledStatusId),
    isNull(mediaAttachments.remoteUrl),
    sql`coalesce(${mediaAttachments.detachedAt}, ${mediaAttachments.createdAt})
      < ${cutoff.toISOString()}::timestamptz`,
    sql`NOT ${inLiveEditHistory(mediaAttachments.id, mediaAttachments.accountId)}`,
  );
  const store = mediaStore(ctx.config);
  let removed = 0;
  for (;;) {
    const batch = await ctx.database.db.select({ id: mediaAttachments.id })
      .from(mediaAttachments).where(unattached).limit(200);
    if (batch.length === 0) return removed;
    const rows = await ctx.database.db.delete(mediaAttachments)
      .where(and(unattached, inArray(mediaAttachments.id, batch.map((r) => r.id))))
      .returning({
        filePath: mediaAttachments.filePath,
        previewPath: mediaAttachments.previewPath,
      });
    // One statement, committed: the files go now.
    await store.delete(rows.flatMap((row) => [row.filePath, row.previewPath]));
    removed += rows.length;
    if (rows.length === 0) return removed;
  }
}

/**
 * The worker's hourly media cleanup: unattached uploads, then files whose
 * rows went in a transaction that did not remove them itself (discarded.ts).
 */
export async function cleanUpMedia(ctx: AppContext): Promise<void> {
  try {
    await removeUnattachedMedia(ctx);
  } finally {
    await removeDiscardedMedia(ctx.database.db, mediaStore(ctx.config));
  }
}
