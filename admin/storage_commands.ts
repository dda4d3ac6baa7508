/**
 * `media migrate`: copies the media and archives kept under DATA_DIR into
 * the bucket the command line's S3_* variables name (the work is in
 * jobs/maintenance/media_migrate.ts). It runs in the command line's own
 * process, never through a running server (which may still be on the
 * folder), and opens no database: rows keep keys, which are the same in both
 * stores.
 */
import { FolderStore } from "../actors/media/store/folder.ts";
import { createMediaStore } from "../actors/media/store/mod.ts";
import { migrateMedia } from "../jobs/maintenance/media_migrate.ts";
import { type ParsedArgs, UsageError } from "./args.ts";
import type { Command, LocalEnv } from "./command.ts";
import { formatBytes } from "./maintenance_commands.ts";
import { ProgressTracker } from "./progress.ts";

function readConcurrency(value: string | undefined): number {
  if (value === undefined) return 4;
  const n = /^\d{1,2}$/.test(value.trim()) ? Number(value.trim()) : NaN;
  if (!(n >= 1 && n <= 32)) throw new UsageError("--concurrency must be 1 to 32");
  return n;
}

export const STORAGE_COMMANDS: Record<string, Command> = {
  "media migrate": {
    usage: "media migrate [--dry-run] [--delete-local] [--concurrency <n>]",
    positionals: [],
    options: { "dry-run": "boolean", "delete-local": "boolean", concurrency: "string" },
    local: { database: false },
    async run({ config, progress }: LocalEnv, args: ParsedArgs) {
      const dryRun = args.flags.has("dry-run");
      const concurrency = readConcurrency(args.strings.concurrency);
      if (config.media.store.kind !== "s3") {
        throw new UsageError(
          "media migrate copies DATA_DIR's files into object storage: " +
            "run it with S3_ENABLED=true and the S3_* variables of the bucket",
        );
      }
      const source = new FolderStore(config.dataDir, config.origin);
      const target = await createMediaStore(config);
      try {
        await target.check();
        const total = await count(source.list());
        const tracker = new ProgressTracker("media migrate", total, progress);
        const report = await migrateMedia(source, target, {
          dryRun,
          deleteSource: args.flags.has("delete-local"),
          concurrency,
          onFile: () => tracker.tick(),
        });
        tracker.finish();
        const lines = [
          `${dryRun ? "Would copy" : "Copied"} ${report.copied} files (${
            formatBytes(report.bytes)
          }) from ${source.description} to ${target.description}; ${report.skipped} already there`,
        ];
        if (report.deleted) lines.push(`Deleted ${report.deleted} local files`);
        for (const { key, error } of report.failed) lines.push(`Failed: ${key}: ${error}`);
        if (dryRun) lines.push("(dry run: nothing changed)");
        const stdout = lines.join("\n") + "\n";
        return report.failed.length
          ? { stdout, stderr: `${report.failed.length} files were not copied; run it again.\n` }
          : stdout;
      } finally {
        await target.close();
      }
    },
  },
};

async function count(files: AsyncIterable<unknown>): Promise<number> {
  let n = 0;
  for await (const _ of files) n++;
  return n;
}
