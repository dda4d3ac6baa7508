/**
 * The `announcement` admin commands: announcements shown by apps above the
 * home timeline (actors/announcements/manage.ts).
 */
import type { Command } from "./command.ts";
import { UsageError } from "./args.ts";
import { formatDate, printable, table } from "./format.ts";
import {
  type AnnouncementRow,
  createAnnouncement,
  deleteAnnouncement,
  listAnnouncements,
  setAnnouncementPublished,
} from "../actors/announcements/manage.ts";

/** An ISO 8601 date (`2025-06-01`) or date and time (UTC unless a zone is given). */
function readTime(name: string, value: string | undefined): Date | null {
  if (value === undefined) return null;
  const m = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(Z|[+-]\d{2}:?\d{2})?)?$/
    .exec(value.trim());
  // Without a zone, UTC: the operator's and the server's clocks may differ.
  const date = m ? new Date(`${m[1]}T${m[2] ?? "00:00"}${m[3] ?? "Z"}`) : new Date(NaN);
  if (Number.isNaN(date.getTime())) {
    throw new UsageError(`--${name} must be a date (2025-06-01) or a date and time`);
  }
  return date;
}

function state(row: AnnouncementRow, now = new Date()): string {
  if (!row.published) return "unpublished";
  if (row.endsAt && row.endsAt <= now) return "ended";
  return "published";
}

/** The commands, merged into the command table. */
export const ANNOUNCEMENT_COMMANDS: Record<string, Command> = {
  "announcement create": {
    usage: "announcement create --text <text> [--starts-at <time> --ends-at <time>] " +
      "[--all-day] [--unpublished]",
    positionals: [],
    options: {
      text: "string",
      "starts-at": "string",
      "ends-at": "string",
      "all-day": "boolean",
      unpublished: "boolean",
    },
    async run({ db, config }, args) {
      if (args.strings.text === undefined) throw new UsageError("--text is required");
      const row = await createAnnouncement(db, config, {
        text: args.strings.text,
        startsAt: readTime("starts-at", args.strings["starts-at"]),
        endsAt: readTime("ends-at", args.strings["ends-at"]),
        allDay: args.flags.has("all-day"),
        published: !args.flags.has("unpublished"),
      });
      return `Created announcement ${row.id} (${state(row)}).`;
    },
  },
  "announcement list": {
    usage: "announcement list [--json]",
    positionals: [],
    options: { json: "boolean" },
    async run({ db }, args) {
      const rows = await listAnnouncements(db);
      if (args.flags.has("json")) {
        return JSON.stringify(
          rows.map((r) => ({
            id: r.id,
            text: r.text,
            state: state(r),
            starts_at: r.startsAt?.toISOString() ?? null,
            ends_at: r.endsAt?.toISOString() ?? null,
            all_day: r.allDay,
            published_at: r.publishedAt?.toISOString() ?? null,
            created_at: r.createdAt.toISOString(),
          })),
          null,
          2,
        );
      }
      if (!rows.length) return { stdout: "", stderr: "No announcements." };
      return table(
        ["ID", "STATE", "STARTS", "ENDS", "TEXT"],
        rows.map((r) => [
          r.id,
          state(r),
          r.startsAt ? formatDate(r.startsAt) : "",
          r.endsAt ? formatDate(r.endsAt) : "",
          r.text.length > 60 ? `${r.text.slice(0, 60)}…` : r.text,
        ]),
      );
    },
  },
  "announcement publish": {
    usage: "announcement publish <id>",
    positionals: ["id"],
    options: {},
    async run({ db }, args) {
      const row = await setAnnouncementPublished(db, args.positionals.id, true);
      return `Published announcement ${row.id}.`;
    },
  },
  "announcement unpublish": {
    usage: "announcement unpublish <id>",
    positionals: ["id"],
    options: {},
    async run({ db }, args) {
      const row = await setAnnouncementPublished(db, args.positionals.id, false);
      return `Unpublished announcement ${row.id}.`;
    },
  },
  "announcement delete": {
    usage: "announcement delete <id>",
    positionals: ["id"],
    options: {},
    async run({ db }, args) {
      const row = await deleteAnnouncement(db, args.positionals.id);
      return `Deleted announcement ${row.id}: ${printable(row.text.slice(0, 60))}`;
    },
  },
};
