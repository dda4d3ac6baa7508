/**
 * The `emoji` admin commands: local custom emoji (actors/emoji/manage.ts).
 * The image is read from the operator's file system: by the command line
 * itself, or by the running server, which gets an absolute path (see
 * `withAbsolutePaths` in commands.ts).
 */
import type { Command } from "./command.ts";
import { formatDate, printable, table } from "./format.ts";
import { NotFoundError } from "../model/errors.ts";
import { EMOJI_SIZE_LIMIT } from "../actors/emoji/images.ts";
import { addLocalEmoji, listLocalEmojis, removeLocalEmoji } from "../actors/emoji/manage.ts";

/**
 * Reads an image file, at most {@link EMOJI_SIZE_LIMIT} bytes of it: a
 * bigger file is refused for its size without being read whole.
 */
async function readImage(path: string): Promise<Uint8Array> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch (error) {
    const why = error instanceof Deno.errors.NotFound ? "no such file" : (error as Error).message;
    throw new NotFoundError(`cannot read ${printable(path)}: ${why}`);
  }
  try {
    const info = await file.stat();
    if (!info.isFile) throw new NotFoundError(`${printable(path)} is not a file`);
    const bytes = new Uint8Array(Math.min(info.size, EMOJI_SIZE_LIMIT));
    let offset = 0;
    while (offset < bytes.length) {
      const n = await file.read(bytes.subarray(offset));
      if (n === null) break;
      offset += n;
    }
    return bytes.subarray(0, offset);
  } finally {
    file.close();
  }
}

/** The commands, merged into the command table. */
export const EMOJI_COMMANDS: Record<string, Command> = {
  "emoji add": {
    usage: "emoji add <shortcode> <image file> [--category <name>] [--unlisted]",
    positionals: ["shortcode", "image"],
    paths: ["image"],
    options: { category: "string", unlisted: "boolean" },
    async run({ db, config, media }, args) {
      const image = await readImage(args.positionals.image);
      const emoji = await addLocalEmoji(db, { origin: config.origin, media }, {
        shortcode: args.positionals.shortcode,
        image,
        category: args.strings.category,
        visibleInPicker: !args.flags.has("unlisted"),
      });
      const details = [
        emoji.contentType,
        ...(emoji.category ? [`category ${printable(emoji.category)}`] : []),
        ...(emoji.visibleInPicker ? [] : ["unlisted"]),
      ].join(", ");
      return `Added :${emoji.shortcode}: (${details}).\n` + media.url(emoji.filePath!);
    },
  },
  "emoji list": {
    usage: "emoji list [--json]",
    positionals: [],
    options: { json: "boolean" },
    async run({ db, media }, args) {
      const emojis = await listLocalEmojis(db);
      const url = (key: string | null) => key ? media.url(key) : null;
      if (args.flags.has("json")) {
        return JSON.stringify(
          emojis.map((e) => ({
            id: e.id,
            shortcode: e.shortcode,
            category: e.category,
            visible_in_picker: e.visibleInPicker,
            disabled: e.disabled,
            content_type: e.contentType,
            url: url(e.filePath),
            static_url: url(e.staticPath),
            created_at: e.createdAt.toISOString(),
          })),
          null,
          2,
        );
      }
      if (!emojis.length) return { stdout: "", stderr: "No local custom emoji." };
      return table(
        ["SHORTCODE", "CATEGORY", "PICKER", "TYPE", "CREATED"],
        emojis.map((e) => [
          `:${e.shortcode}:`,
          e.category ?? "",
          (e.visibleInPicker ? "listed" : "unlisted") + (e.disabled ? ",disabled" : ""),
          e.contentType ?? "",
          formatDate(e.createdAt),
        ]),
      );
    },
  },
  "emoji remove": {
    usage: "emoji remove <shortcode>",
    positionals: ["shortcode"],
    options: {},
    async run({ db, media }, args) {
      const emoji = await removeLocalEmoji(db, media, args.positionals.shortcode);
      return `Removed :${emoji.shortcode}:. Posts and profiles that used it show the text.`;
    },
  },
};
