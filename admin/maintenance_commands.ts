/**
 * Storage maintenance from the command line: `media remove-orphans` (files
 * no row points at, and rows whose file is missing) and `statuses remove-orphans` (old remote statuses
 * nobody here interacted with); the remote media cache's commands are in
 * media_commands.ts. The work is in jobs/maintenance/; these
 * commands parse the arguments, draw the progress bar and print what went.
 */
import type { Command } from "./command.ts";
import { UsageError } from "./args.ts";
import { ProgressTracker } from "./progress.ts";
import { daysAgo } from "../jobs/maintenance/batches.ts";
import { removeDetachedRemoteMedia } from "../jobs/maintenance/remote_media.ts";
import { removeOrphanStatuses } from "../jobs/maintenance/orphan_statuses.ts";
import { checkMediaStore, type MediaCheck } from "../jobs/maintenance/media_orphans.ts";

/** Files listed one by one at most; beyond that only the totals. */
export const LIST_MAX = 1000;

/** A `--<name> <days>` option's value (0 to 36500), or `fallback` when absent. */
export function readDays(name: string, value: string | undefined, fallback?: number): number {
  if (value === undefined) {
    if (fallback === undefined) throw new UsageError(`Missing --${name} <days>`);
    return fallback;
  }
  const n = /^\d{1,5}$/.test(value.trim()) ? Number(value.trim()) : NaN;
  if (!(n >= 0 && n <= 36_500)) throw new UsageError(`--${name} must be 0 to 36500 days`);
  return n;
}

/** "1.5 MB": bytes for people (powers of 1024, as du -h). */
export function formatBytes(bytes: number): string {
  const units = ["bytes", "KB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} bytes` : `${value.toFixed(1)} ${units[unit]}`;
}

/** What `media remove-orphans` prints: the files and rows, then the totals. */
function mediaCheckReport(check: MediaCheck, dryRun: boolean): string {
  const failed = new Set(check.failed);
  const lines = [
    ...check.orphans.slice(0, LIST_MAX).map((f) =>
      `${dryRun ? "would remove" : failed.has(f.key) ? "could not remove" : "removed"} ${f.key}`
    ),
    ...(check.orphans.length > LIST_MAX ? [`… and ${check.orphans.length - LIST_MAX} more`] : []),
    ...check.missing.slice(0, LIST_MAX).map((m) => `missing ${m.key} (${m.table} ${m.id})`),
    ...(check.missing.length > LIST_MAX ? [`… and ${check.missing.length - LIST_MAX} more`] : []),
  ];
  const removed = check.orphans.filter((f) => !failed.has(f.key));
  const bytes = removed.reduce((sum, f) => sum + f.size, 0);
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  lines.push(
    `Checked ${plural(check.files, "stored file")}: ${dryRun ? "would remove" : "removed"} ${
      plural(removed.length, "orphan file")
    } (${formatBytes(bytes)})${
      check.failed.length ? `, could not remove ${check.failed.length}` : ""
    }; ${plural(check.missing.length, "row")} ${
      check.missing.length === 1 ? "points" : "point"
    } at a missing file${
      check.recent ? `; left ${plural(check.recent, "unreferenced file")} under an hour old` : ""
    }${dryRun ? " (dry run: nothing changed)" : ""}.`,
  );
  return lines.join("\n");
}

/** The commands, merged into the command table. */
export const MAINTENANCE_COMMANDS: Record<string, Command> = {
  "media remove-orphans": {
    usage: "media remove-orphans [--dry-run]",
    positionals: [],
    options: { "dry-run": "boolean" },
    async run({ db, media }, args) {
      const dryRun = args.flags.has("dry-run");
      const check = await checkMediaStore(db, media, { dryRun });
      const report = mediaCheckReport(check, dryRun);
      return check.failed.length
        ? { stdout: report, stderr: "Some files could not be removed.\n" }
        : report;
    },
  },
  "statuses remove-orphans": {
    usage: "statuses remove-orphans [--days <days>] [--dry-run]",
    positionals: [],
    options: { days: "string", "dry-run": "boolean" },
    async run({ db, media, progress }, args) {
      const days = readDays("days", args.strings.days, 90);
      const dryRun = args.flags.has("dry-run");
      let tracker: ProgressTracker | undefined;
      const removal = await removeOrphanStatuses(db, media, daysAgo(days), {
        dryRun,
        onProgress(examined, total) {
          tracker ??= new ProgressTracker("statuses remove-orphans", total, progress);
          tracker.tick(examined - tracker.done);
        },
      });
      tracker?.finish();
      // Then remote attachments already detached from their statuses (by a
      // remote Delete or edit): nothing else ever removes them.
      let mediaTracker: ProgressTracker | undefined;
      const loose = await removeDetachedRemoteMedia(db, media, daysAgo(days), {
        dryRun,
        onProgress(examined, total) {
          mediaTracker ??= new ProgressTracker("detached remote media", total, progress);
          mediaTracker.tick(examined - mediaTracker.done);
        },
      });
      mediaTracker?.finish();
      const files = removal.files + loose.files;
      return `${dryRun ? "Would remove" : "Removed"} ${removal.statuses} orphan remote status${
        removal.statuses === 1 ? "" : "es"
      } older than ${days} days, with ${removal.attachments} attachment${
        removal.attachments === 1 ? "" : "s"
      }, and ${loose.attachments} detached remote attachment${
        loose.attachments === 1 ? "" : "s"
      }; ${files} file${files === 1 ? "" : "s"} (${formatBytes(removal.bytes + loose.bytes)})${
        dryRun ? " (dry run: nothing changed)" : ""
      }.`;
    },
  },
};
