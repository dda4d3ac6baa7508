/**
 * A fresh embedded database starts from a migrated cluster kept in a cache.
 *
 * Creating a PGlite cluster runs initdb in WebAssembly (about 3 s on a data
 * directory, through PGlite's file layer) and then every migration: most of
 * a first start's wait. The same migrated cluster is what every fresh data
 * directory of this build ends up with, so it is made once, in memory
 * (initdb there takes half the time), dumped as a tar, kept under the cache
 * directory (PGLITE_TEMPLATE_CACHE, by default `~/.cache/rookery`) and
 * written into each new data directory with native file writes, after which
 * PGlite opens it as an existing database. The file name carries a hash of
 * PGlite's version and of the migration set: another build, or a new
 * migration, makes its own. Only an empty data directory is ever written.
 */
import { dirname, join, normalize } from "node:path";

const MIGRATIONS = new URL("./migrations/", import.meta.url);

/**
 * Names the template of this build: PGlite's resolved module (its version
 * is in the path) and every migration file, in journal order.
 */
export async function templateName(): Promise<string> {
  const journalText = await Deno.readTextFile(new URL("meta/_journal.json", MIGRATIONS));
  const journal: { entries: { idx: number; tag: string }[] } = JSON.parse(journalText);
  const parts = [import.meta.resolve("@electric-sql/pglite"), journalText];
  for (const entry of [...journal.entries].sort((a, b) => a.idx - b.idx)) {
    parts.push(await Deno.readTextFile(new URL(`${entry.tag}.sql`, MIGRATIONS)));
  }
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(parts.join("\0")));
  const hex = Array.from(new Uint8Array(digest).slice(0, 12))
    .map((b) => b.toString(16).padStart(2, "0")).join("");
  return `pglite-${hex}.tar`;
}

/** True when `dir` does not exist or holds nothing: a cluster may be written there. */
export async function isEmptyDirectory(dir: string): Promise<boolean> {
  try {
    for await (const _ of Deno.readDir(dir)) return false;
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return true;
    throw error;
  }
}

/**
 * Writes a migrated cluster into the empty directory `dir`: the cached
 * template when there is one, else one `build` makes (then cached; a cache
 * that cannot be written is only skipped). Returns where it came from.
 */
export async function seedCluster(
  dir: string,
  cacheDir: string,
  build: () => Promise<Uint8Array>,
): Promise<"cache" | "built"> {
  const file = join(cacheDir, await templateName());
  const cached = await Deno.readFile(file).catch((error) => {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  });
  if (cached) {
    try {
      await extractBeside(cached, dir);
      return "cache";
    } catch {
      // A damaged cache file: made again below.
      await Deno.remove(file).catch(() => {});
    }
  }
  const tar = await build();
  await saveTemplate(file, tar).catch(() => {/* a read-only cache: start anyway */});
  await extractBeside(tar, dir);
  return "built";
}

/** Extracts beside `dir`, then renames: a start cut short leaves no half cluster. */
async function extractBeside(tar: Uint8Array, dir: string): Promise<void> {
  const partial = `${dir}.${Deno.pid}.partial`;
  try {
    await extractTar(tar, partial);
    await Deno.rename(partial, dir);
  } catch (error) {
    await Deno.remove(partial, { recursive: true }).catch(() => {});
    throw error;
  }
}

/** Writes the template beside its final name, then renames it: readers see all of it or none. */
async function saveTemplate(file: string, tar: Uint8Array): Promise<void> {
  await Deno.mkdir(dirname(file), { recursive: true });
  const partial = `${file}.${Deno.pid}.partial`;
  try {
    await Deno.writeFile(partial, tar, { mode: 0o600 });
    await Deno.rename(partial, file);
  } catch (error) {
    await Deno.remove(partial).catch(() => {});
    throw error;
  }
}

const BLOCK = 512;

/** A NUL-terminated field of a tar header. */
function field(header: Uint8Array, start: number, length: number): string {
  const bytes = header.subarray(start, start + length);
  const end = bytes.indexOf(0);
  return new TextDecoder().decode(end < 0 ? bytes : bytes.subarray(0, end));
}

/**
 * Extracts the regular files and directories of a ustar archive (what
 * PGlite's dumpDataDir writes) under `dir`, creating it. Names that would
 * leave `dir` are refused: the cache is a file on disk like any other.
 */
export async function extractTar(tar: Uint8Array, dir: string): Promise<void> {
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  const made = new Set<string>([dir]);
  const mkdir = async (path: string) => {
    if (made.has(path)) return;
    await Deno.mkdir(path, { recursive: true, mode: 0o700 });
    made.add(path);
  };
  let offset = 0;
  while (offset + BLOCK <= tar.length) {
    const header = tar.subarray(offset, offset + BLOCK);
    if (header.every((b) => b === 0)) break;
    const prefix = field(header, 345, 155);
    const name = normalize((prefix ? `${prefix}/` : "") + field(header, 0, 100))
      .replace(/^\/+/, "");
    const size = parseInt(field(header, 124, 12).trim() || "0", 8);
    const type = String.fromCharCode(header[156] || 48);
    const bad = name.startsWith("..") || !Number.isFinite(size) || size < 0 ||
      offset + BLOCK + size > tar.length;
    if (bad) {
      throw new Error(`Unexpected entry in the PGlite template: ${name}`);
    }
    const path = join(dir, name);
    offset += BLOCK;
    if (type === "5") {
      await mkdir(path);
    } else if (type === "0") {
      await mkdir(dirname(path));
      await Deno.writeFile(path, tar.subarray(offset, offset + size), { mode: 0o600 });
    }
    offset += Math.ceil(size / BLOCK) * BLOCK;
  }
}
