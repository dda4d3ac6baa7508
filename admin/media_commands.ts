/**
 * The remote media cache from the command line (tootctl's): `media remove`
 * (copies of remote attachments, or with `--prune-profiles` /
 * `--remove-headers` remote avatars and headers), `preview_cards remove`
 * (copies of card images) and `media usage` (what media take, from the
 * rows' sizes). The work is in jobs/maintenance/ and db/queries/; removed
 * copies are fetched again through the media proxy when next looked at.
 */
import type { Command } from "./command.ts";
import { UsageError } from "./args.ts";
import { type ProgressSink, ProgressTracker } from "./progress.ts";
import { daysAgo } from "../jobs/maintenance/batches.ts";
import { removeRemoteMediaCache } from "../jobs/maintenance/remote_media.ts";
import {
  cardImagesBefore,
  type ImageRemoval,
  profileImagesBefore,
  removeCachedImages,
} from "../jobs/maintenance/cached_images.ts";
import { mediaUsage } from "../db/queries/media_usage.ts";
import { formatBytes, LIST_MAX, readDays } from "./maintenance_commands.ts";

/** tootctl's default age. */
const DEFAULT_DAYS = 7;

/** The `--days` option (`--older-than` is kept as its older name). */
function daysOption(strings: Record<string, string | undefined>): number {
  return readDays(
    strings.days !== undefined ? "days" : "older-than",
    strings.days ?? strings["older-than"],
    DEFAULT_DAYS,
  );
}

/** A progress callback drawing `label`'s bar. */
function progressOf(label: string, sink: ProgressSink | undefined) {
  let tracker: ProgressTracker | undefined;
  return {
    onProgress(examined: number, total: number) {
      tracker ??= new ProgressTracker(label, total, sink);
      tracker.tick(examined - tracker.done);
    },
    finish: () => tracker?.finish(),
  };
}

/** The listed keys (at most LIST_MAX), then `summary`. */
function listing(paths: string[], dryRun: boolean, summary: string): string {
  const listed = paths.slice(0, LIST_MAX);
  const more = paths.length - listed.length;
  return [
    ...listed.map((path) => `${dryRun ? "would remove" : "removed"} ${path}`),
    ...(more > 0 ? [`… and ${more} more`] : []),
    `${summary}${dryRun ? " (dry run: nothing changed)" : ""}.`,
  ].join("\n");
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

export const MEDIA_COMMANDS: Record<string, Command> = {
  "media remove": {
    usage:
      "media remove [--days <days>] [--prune-profiles | --remove-headers] [--include-follows] [--dry-run]",
    positionals: [],
    options: {
      days: "string",
      "older-than": "string",
      "prune-profiles": "boolean",
      "remove-headers": "boolean",
      "include-follows": "boolean",
      "dry-run": "boolean",
    },
    async run({ db, media, progress }, args) {
      const days = daysOption(args.strings);
      const dryRun = args.flags.has("dry-run");
      const pruneProfiles = args.flags.has("prune-profiles");
      const headersOnly = args.flags.has("remove-headers");
      if (pruneProfiles && headersOnly) {
        throw new UsageError(
          "--prune-profiles and --remove-headers should not be specified simultaneously",
        );
      }
      const cutoff = daysAgo(days);
      if (pruneProfiles || headersOnly) {
        const bar = progressOf("media remove", progress);
        const removal: ImageRemoval = await removeCachedImages(
          db,
          media,
          profileImagesBefore(cutoff, {
            headersOnly,
            includeFollows: args.flags.has("include-follows"),
          }),
          { dryRun, onProgress: bar.onProgress },
        );
        bar.finish();
        return listing(
          removal.paths,
          dryRun,
          `Visited ${plural(removal.rows, "account")} and ${
            dryRun ? "would remove" : "removed"
          } profile media totalling ${formatBytes(removal.bytes)}`,
        );
      }
      const bar = progressOf("media remove", progress);
      const removal = await removeRemoteMediaCache(db, media, cutoff, {
        dryRun,
        onProgress: bar.onProgress,
      });
      bar.finish();
      return listing(
        removal.paths,
        dryRun,
        `${dryRun ? "Would remove" : "Removed"} ${plural(removal.files, "file")} (${
          formatBytes(removal.bytes)
        }) of ${plural(removal.attachments, "remote attachment")} older than ${days} days`,
      );
    },
  },
  "preview_cards remove": {
    usage: "preview_cards remove [--days <days>] [--dry-run]",
    positionals: [],
    options: { days: "string", "dry-run": "boolean" },
    async run({ db, media, progress }, args) {
      const days = readDays("days", args.strings.days, 180);
      const dryRun = args.flags.has("dry-run");
      const bar = progressOf("preview_cards remove", progress);
      const removal = await removeCachedImages(db, media, cardImagesBefore(daysAgo(days)), {
        dryRun,
        onProgress: bar.onProgress,
      });
      bar.finish();
      return listing(
        removal.paths,
        dryRun,
        `${dryRun ? "Would remove" : "Removed"} ${plural(removal.files, "card image")} (${
          formatBytes(removal.bytes)
        }) older than ${days} days`,
      );
    },
  },
  "media usage": {
    usage: "media usage",
    positionals: [],
    options: {},
    async run({ db, config }) {
      const u = await mediaUsage(db);
      const pair = (p: { total: number; local: number }) =>
        `${formatBytes(p.total)} (${formatBytes(p.local)} local)`;
      const retention = config.media.cacheRetentionDays;
      return [
        `Attachments:    ${pair(u.attachments)}`,
        `Custom emoji:   ${pair(u.emoji)}`,
        `Preview cards:  ${formatBytes(u.cards)}`,
        `Avatars:        ${pair(u.avatars)}`,
        `Headers:        ${pair(u.headers)}`,
        `Archives:       ${formatBytes(u.archives)}`,
        `Cached remote:  ${formatBytes(u.cachedRemote)} (of the above; ${
          retention
            ? `MEDIA_CACHE_RETENTION_PERIOD ${retention} days`
            : "kept until media remove: MEDIA_CACHE_RETENTION_PERIOD is not set"
        })`,
      ].join("\n");
    },
  },
};
