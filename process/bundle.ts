/**
 * The bundled build `deno task start` runs: `deno bundle` of main.ts and the
 * npm packages it loads, minified, into `.build/<hash>/bundle/`, where
 * `<hash>` is that of the sources, deno.json and deno.lock; `.build/current`
 * points at the build of the tree as it is. Run from source, the process
 * keeps every module's source text twice (Deno's module graph and V8's
 * strings) and each of our modules with an inline source map; one minified
 * file is a fraction of that (docs/benchmarks.md, "Idle RSS: memory given
 * back, and a bundled build"). The source map is a separate file beside the
 * bundle, not named in it: linked, Deno reads and keeps all 17 MB of it at
 * start (35 MiB more RSS). So a stack trace names the bundle's lines; run
 * main.ts for the sources'.
 *
 * Built only when the hash changed (a checkout or upgrade pays a few seconds
 * once, later starts none); concurrent starts each build into a directory of
 * their own and the first rename wins. Where bundling fails, nothing is
 * left behind and `current` is not touched: process/start.ts runs main.ts
 * itself, says why on stderr, and the next start tries again.
 *
 * Kept external (loaded by Deno from node_modules as from source): packages
 * with native or WebAssembly files beside their JavaScript (argon2, sharp,
 * PGlite) and those only some deployments load, on first use (mail, Web
 * Push, S3, the OpenTelemetry SDK). The bundle reads files relative to its
 * own place where the sources read them relative to theirs (the migrations,
 * the web app's script, the favicon): the links made beside it keep those
 * paths (tests/server/bundle_test.ts starts a server from the bundle).
 *
 * Fedify's Temporal is the runtime's in the bundle: Fedify imports it from
 * @js-temporal/polyfill, which is kept external and its imports pointed at
 * process/native_temporal.js, copied beside the bundle. Not by replacing
 * the package in node_modules (a deno.json `links` entry): Deno re-creates
 * a linked package at every start, and processes started together (web and
 * worker, an admin command beside the server, parallel tests) failed to
 * find it. The sources (tests, the fallback) keep the polyfill; Fedify's
 * type guards accept either.
 */
import { createHash } from "node:crypto";
import { join, relative } from "node:path";

const ROOT = new URL("../", import.meta.url).pathname;
const BUILD = join(ROOT, ".build");
/** The build's entry as process/start.ts imports it. */
export const BUNDLE_ENTRY = new URL("../.build/current/bundle/main.js", import.meta.url).href;
/** Folders whose modules are never part of the server. */
const NOT_SERVED = new Set([
  ".git",
  ".build",
  "node_modules",
  "data",
  "tests",
  "bench",
  "fuzz",
  "compat",
  "docs",
  "migrations",
]);
const TEMPORAL_POLYFILL = "@js-temporal/polyfill";
/** Stands in for TEMPORAL_POLYFILL in the bundle (useNativeTemporal). */
const NATIVE_TEMPORAL = "native_temporal.js";
const EXTERNAL = [
  "@node-rs/argon2",
  "sharp",
  "@electric-sql/pglite",
  "@electric-sql/pglite/*",
  "nodemailer",
  "web-push",
  "@aws-sdk/*",
  "@opentelemetry/sdk-*",
  "@opentelemetry/exporter-*",
  "@opentelemetry/resources",
  "@opentelemetry/context-async-hooks",
  TEMPORAL_POLYFILL,
];
/**
 * What the sources read relative to their own place, as seen from
 * `.build/<hash>/bundle/main.js`: `./migrations/` (db/migrate.ts,
 * db/pglite_template.ts) beside it, `../../assets/` (web/pages/app/script.ts)
 * and `../../api/static/` (web/routes/assets.ts) in `.build/`.
 */
const LINKS: [string, string][] = [
  ["bundle/migrations", "../../../db/migrations"],
];
const SHARED_LINKS: [string, string][] = [["assets", "../web/assets"], ["api", "../api"]];

/** SHA-256 of every server source file's path and text, deno.json and deno.lock. */
function sourceHash(): string {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of Deno.readDirSync(dir)) {
      if (entry.name.startsWith(".") || NOT_SERVED.has(entry.name)) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory) walk(path);
      else if (/\.(tsx?|js|json)$/.test(entry.name)) files.push(path);
    }
  };
  walk(ROOT);
  files.sort();
  const hash = createHash("sha256");
  for (const path of [...files, join(ROOT, "deno.lock")]) {
    hash.update(`\0${relative(ROOT, path)}\0`);
    try {
      hash.update(Deno.readFileSync(path));
    } catch { /* no lock file */ }
  }
  return hash.digest("hex").slice(0, 24);
}

/** Bundles the server into `outdir/bundle/`; returns null, or why it failed. */
async function bundle(outdir: string): Promise<string | null> {
  const args = ["bundle", "--quiet", "--platform", "deno", "--minify", "--code-splitting"];
  for (const name of EXTERNAL) args.push("--external", name);
  args.push("--sourcemap", "external", "--outdir", join(outdir, "bundle"), join(ROOT, "main.ts"));
  const out = await new Deno.Command(Deno.execPath(), { args, cwd: ROOT, stdout: "null" })
    .output();
  if (!out.success) return new TextDecoder().decode(out.stderr).trim();
  return await useNativeTemporal(join(outdir, "bundle"));
}

/**
 * Points the bundle's imports of the Temporal polyfill at the runtime's
 * Temporal (process/native_temporal.js, copied into `dir`); returns null, or
 * why it failed (an import left unrewritten: the sources run instead). The
 * new specifier, a space before it, is as long as the old: the source map's
 * columns stay right.
 */
export async function useNativeTemporal(dir: string): Promise<string | null> {
  // A Deno without a global Temporal keeps the sources (and their polyfill).
  if (!("Temporal" in globalThis)) return "this Deno has no Temporal of its own";
  const polyfill = `"${TEMPORAL_POLYFILL}"`;
  const native = ` "./${NATIVE_TEMPORAL}"`;
  if (native.length !== polyfill.length) return "the Temporal shim's name changed length";
  const imports = new RegExp(`\\b(from|import)${polyfill}`, "g");
  for (const entry of Deno.readDirSync(dir)) {
    if (!entry.name.endsWith(".js")) continue;
    const path = join(dir, entry.name);
    const code = await Deno.readTextFile(path);
    if (!code.includes(polyfill)) continue;
    const rewritten = code.replace(imports, `$1${native}`);
    if (rewritten.includes(polyfill)) return `${entry.name} names ${polyfill} outside an import`;
    await Deno.writeTextFile(path, rewritten);
  }
  await Deno.copyFile(new URL(NATIVE_TEMPORAL, import.meta.url), join(dir, NATIVE_TEMPORAL));
  return null;
}

/** Where builds go and what makes one (tests give a scratch directory and a bundler that fails). */
export interface BundleSetup {
  build: string;
  bundle: (outdir: string) => Promise<string | null>;
}

/**
 * Makes `.build/current` the build of the tree as it is; returns what it
 * did ("from source" when bundling failed: nothing was written).
 */
export async function ensureBundle(setup: BundleSetup = { build: BUILD, bundle }): Promise<string> {
  const { build } = setup;
  const hash = sourceHash();
  const dir = join(build, hash);
  try {
    if (Deno.statSync(join(dir, "bundle/main.js")).isFile) {
      if (currentBuild(build) === hash) return `up to date (${hash})`;
      await pointCurrentAt(build, hash); // back to a build kept from before
      return `back to ${hash}`;
    }
  } catch { /* not built yet */ }
  await Deno.mkdir(build, { recursive: true });
  for (const [link, target] of SHARED_LINKS) {
    try {
      Deno.symlinkSync(target, join(build, link));
    } catch { /* made by an earlier start */ }
  }
  const staging = await Deno.makeTempDir({ dir: build, prefix: `${hash}-` });
  const failure = await setup.bundle(staging);
  if (failure) {
    // process/start.ts runs main.ts itself; the next start tries again.
    console.error(`Bundling failed, running from source:\n${failure}`);
    await Deno.remove(staging, { recursive: true });
    return "from source";
  }
  for (const [link, target] of LINKS) Deno.symlinkSync(target, join(staging, link));
  // A build of the same hash made meanwhile by another start stays: a server may run from it.
  await Deno.rename(staging, dir).catch(() => Deno.remove(staging, { recursive: true }));
  const previous = currentBuild(build);
  await pointCurrentAt(build, hash);
  await removeOldBuilds(build, [hash, previous]);
  return `built ${hash}`;
}

/** `current` → `name`, replaced in one step (a start reading it sees the old or the new). */
async function pointCurrentAt(build: string, name: string) {
  const link = join(build, `current-${crypto.randomUUID()}`);
  Deno.symlinkSync(name, link);
  await Deno.rename(link, join(build, "current"));
}

/** What `current` points at, or null. */
function currentBuild(build: string): string | null {
  try {
    return Deno.readLinkSync(join(build, "current"));
  } catch {
    return null;
  }
}

/**
 * Builds other than `keep`: the new one and the one before it, which a
 * server started earlier may still be running from.
 */
async function removeOldBuilds(build: string, keep: (string | null)[]) {
  const kept = [...keep, "current", ...SHARED_LINKS.map(([name]) => name)];
  for (const entry of Deno.readDirSync(build)) {
    // Another start's build in progress has its hash and a suffix.
    if (kept.includes(entry.name) || entry.name.includes("-")) continue;
    await Deno.remove(join(build, entry.name), { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) {
  const started = performance.now();
  const what = await ensureBundle();
  if (Deno.env.get("BUNDLE_VERBOSE")) {
    console.error(`bundle: ${what} in ${Math.round(performance.now() - started)} ms`);
  }
}
