/**
 * The layers of the tree point one way (ARCHITECTURE.md, "Folders"): every
 * relative import (static, export-from, dynamic, `typeof import()`) of a
 * source file is checked against the wing it may import from, and two
 * structure rules hold (no loose file beside the subject folders of
 * actors/, no file beside a folder of the same name). The table:
 *   model/       nothing of ours
 *   db/          model/
 *   base         config.ts, logging.ts, version.ts, context.ts, telemetry/: model/, db/, each other
 *   actors/      model/, db/, base
 *   federation/  actors/ and below
 *   jobs/        federation/, actors/ and below
 *   api/         federation/, actors/ and below
 *   web/         api/ (serializers, middleware, params), federation/, actors/ and below
 *   admin/       jobs/, federation/, actors/ and below, the process (rookery.ts)
 *   app.ts, rookery.ts, main.ts: the composition root, anything
 * tests/, bench/, fuzz/, compat/ and migrations are not checked as importers.
 * No server and no database: it reads files only.
 */
import assert from "node:assert/strict";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SKIPPED = new Set([".git", "node_modules", "data", ".prof", "artifacts"]);
const NOT_CHECKED = ["tests/", "bench/", "fuzz/", "compat/", "drizzle.config.ts", "db/migrations/"];

/** Path prefix (a folder with "/", or an exact file) → wing; the longest prefix wins. */
const WINGS: Record<string, string> = {
  "model/": "model",
  "db/": "db",
  "config.ts": "base",
  "logging.ts": "base",
  "version.ts": "base",
  "context.ts": "base",
  "telemetry/": "base",
  "actors/": "actors",
  "federation/": "federation",
  "jobs/": "jobs",
  "api/": "api",
  "web/": "web",
  "admin/": "admin",
  "app.ts": "root",
  "rookery.ts": "root",
  "main.ts": "root",
};

/** Wing → the wings it may import. */
const ALLOWED: Record<string, string[]> = {
  model: ["model"],
  db: ["db", "model"],
  base: ["base", "db", "model"],
  actors: ["actors", "db", "model", "base"],
  federation: ["federation", "actors", "db", "model", "base"],
  jobs: ["jobs", "federation", "actors", "db", "model", "base"],
  api: ["api", "federation", "actors", "db", "model", "base"],
  web: ["web", "api", "federation", "actors", "db", "model", "base"],
  admin: ["admin", "jobs", "federation", "actors", "db", "model", "base", "root"],
  root: ["root", "admin", "web", "api", "jobs", "federation", "actors", "db", "model", "base"],
};

const PREFIXES = Object.keys(WINGS).sort((a, b) => b.length - a.length);

function wingOf(path: string): string | null {
  for (const p of PREFIXES) {
    if (p.endsWith("/") ? path.startsWith(p) : path === p) return WINGS[p];
  }
  return null;
}

/** `from "…"`, `import("…")` (also in `typeof import("…")`) and `import "…"` of a relative file. */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)["'](\.\.?\/[^"']+)["']/g;

/** The relative imports of a source text, with their lines; comment lines are skipped. */
function importsOf(text: string): { line: number; specifier: string }[] {
  const found: { line: number; specifier: string }[] = [];
  text.split("\n").forEach((line, i) => {
    const start = line.trimStart();
    if (start.startsWith("*") || start.startsWith("//") || start.startsWith("/*")) return;
    for (const match of line.matchAll(SPECIFIER)) found.push({ line: i + 1, specifier: match[1] });
  });
  return found;
}

/** Every layering violation of `files` (repository-relative path → text), as `file:line → target`. */
function violations(files: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (const [file, text] of files) {
    const from = wingOf(file);
    if (!from || NOT_CHECKED.some((p) => file.startsWith(p))) continue;
    for (const { line, specifier } of importsOf(text)) {
      const target = normalize(join(dirname(file), specifier)).replaceAll("\\", "/");
      const to = wingOf(target);
      if (to && !ALLOWED[from].includes(to)) {
        out.push(`${file}:${line} (${from}) → ${target} (${to})`);
      }
    }
  }
  return out.sort();
}

/** Loose files beside actors/' subject folders, and files beside a folder of the same name. */
function structureProblems(paths: readonly string[]): string[] {
  const folders = new Set<string>();
  for (const path of paths) {
    const parts = path.split("/");
    for (let k = 1; k < parts.length; k++) folders.add(parts.slice(0, k).join("/"));
  }
  const out: string[] = [];
  for (const path of paths) {
    const stem = path.replace(/\.(tsx?|mts)$/, "");
    if (stem !== path && folders.has(stem)) out.push(`${path}: beside the folder ${stem}/`);
    if (/^actors\/[^/]+\.tsx?$/.test(path)) out.push(`${path}: loose file in actors/`);
  }
  return out.sort();
}

/** Every file of the tree (repository-relative), and the texts of the source files. */
async function readTree(): Promise<{ paths: string[]; sources: Map<string, string> }> {
  const paths: string[] = [];
  const sources = new Map<string, string>();
  const walk = async (dir: string) => {
    for await (const entry of Deno.readDir(dir)) {
      if (SKIPPED.has(entry.name)) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory) {
        await walk(path);
        continue;
      }
      const rel = relative(ROOT, path).replaceAll("\\", "/");
      paths.push(rel);
      if (/\.(tsx?|mts)$/.test(entry.name)) sources.set(rel, await Deno.readTextFile(path));
    }
  };
  await walk(ROOT);
  return { paths, sources };
}

Deno.test("the check finds an import that points the wrong way", () => {
  const files = new Map([
    ["model/words.ts", 'import { x } from "../db/queries/x.ts";\n'],
    [
      "actors/a/b.ts",
      'import type { J } from "../../jobs/queue.ts";\n/** from "../../api/x.ts" */\n',
    ],
    ["api/routes/r.ts", 'const page = await import("../../web/pages/p.tsx");\n'],
    ["web/routes/w.ts", 'import { r } from "../../api/routes/r.ts";\n'],
    ["tests/t_test.ts", 'import { w } from "../web/routes/w.ts";\n'],
  ]);
  assert.deepEqual(violations(files), [
    "actors/a/b.ts:1 (actors) → jobs/queue.ts (jobs)",
    "api/routes/r.ts:1 (api) → web/pages/p.tsx (web)",
    "model/words.ts:1 (model) → db/queries/x.ts (db)",
  ]);
  assert.deepEqual(structureProblems(["actors/loose.ts", "jobs/x.ts", "jobs/x/y.ts"]), [
    "actors/loose.ts: loose file in actors/",
    "jobs/x.ts: beside the folder jobs/x/",
  ]);
});

Deno.test("the tree's imports point one way, and its folders hold no strays", async () => {
  const { paths, sources } = await readTree();
  assert.ok(sources.size > 500, `read ${sources.size} source files`);
  assert.deepEqual(violations(sources), []);
  assert.deepEqual(structureProblems(paths), []);
});
