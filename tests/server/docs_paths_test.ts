/**
 * The documentation names only what exists: README.md, ARCHITECTURE.md and
 * every page of docs/ are read, and
 * - every file or folder they name in code (`federation/inbox/guard.ts`,
 *   `jobs/`), from the repository root, must exist; a source file named from
 *   anywhere else (`inbox/guard.ts`) is refused, since a reader cannot tell
 *   where it is, and a bare source file name (`guard.ts`) must be some file's;
 * - every relative link must reach a file, and its `#anchor` a heading of the
 *   page it points at.
 * Code moves often (issue 31 moved 135 files); this is what keeps the map true.
 * No server and no database: it reads files only.
 */
import assert from "node:assert/strict";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** Folders never walked: dependencies, data and history, not the project. */
const SKIPPED = new Set([".git", "node_modules", "data", ".prof", "artifacts"]);
/** Source files a bare name must match somewhere in the tree. */
const SOURCE = /\.(ts|tsx)$/;
/** A path-like word: segments of name characters, maybe a trailing slash. */
const PATH_LIKE = /^\.?[\w.-]+(\/[\w.-]+)*\/?$/;

interface Tree {
  /** Repository-relative paths of every file and folder. */
  paths: Set<string>;
  /** Base names of every source file. */
  sourceNames: Set<string>;
  /** Base names of every folder (`routes/` after a sentence about api/). */
  folderNames: Set<string>;
  /** Top-level entries: a word starting with one of them is a repository path. */
  topLevel: Set<string>;
}

async function walk(dir: string, tree: Tree): Promise<void> {
  for await (const entry of Deno.readDir(dir)) {
    if (SKIPPED.has(entry.name)) continue;
    const path = join(dir, entry.name);
    const rel = relative(ROOT, path);
    tree.paths.add(rel);
    if (!rel.includes("/")) tree.topLevel.add(entry.name);
    if (entry.isDirectory) {
      tree.folderNames.add(entry.name);
      await walk(path, tree);
    } else if (SOURCE.test(entry.name)) tree.sourceNames.add(entry.name);
  }
}

async function readTree(): Promise<Tree> {
  const tree: Tree = {
    paths: new Set(),
    sourceNames: new Set(),
    folderNames: new Set(),
    topLevel: new Set(),
  };
  await walk(ROOT, tree);
  return tree;
}

async function documents(): Promise<string[]> {
  const docs = ["README.md", "ARCHITECTURE.md"];
  for await (const entry of Deno.readDir(join(ROOT, "docs"))) {
    if (entry.isFile && entry.name.endsWith(".md")) docs.push(`docs/${entry.name}`);
  }
  return docs.sort();
}

/** A Markdown text split into prose (code blocks blanked) and the unlabeled blocks' text (diagrams). */
function splitFences(text: string): { prose: string; diagrams: string } {
  let prose = "";
  let diagrams = "";
  let fence: string | null = null;
  for (const line of text.split("\n")) {
    const marker = line.match(/^\s*```(\S*)/);
    if (marker && fence === null) {
      fence = marker[1];
      prose += "\n";
    } else if (marker) {
      fence = null;
      prose += "\n";
    } else if (fence === null) {
      prose += line + "\n";
    } else {
      // Languages (sh, nginx…) show other machines' paths; diagrams show ours.
      if (fence === "") diagrams += line + "\n";
      prose += "\n";
    }
  }
  return { prose, diagrams };
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-");
}

function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of splitFences(text).prose.split("\n")) {
    const heading = line.match(/^#{1,6}\s+(.*)$/);
    if (!heading) continue;
    const base = slug(heading[1]);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** What is wrong with one word of code, or null when it names nothing or something real. */
function checkWord(raw: string, tree: Tree): string | null {
  // A line number or range after a path (`app.ts:40-42`) is not part of it.
  const word = raw.replace(/^[("']+|[)"',;.:]+$/g, "").replace(/:\d+(-\d+)?$/, "");
  if (!PATH_LIKE.test(word) || word.startsWith("/")) return null;
  const path = word.replace(/\/$/, "");
  if (!path.includes("/")) {
    if (word.endsWith("/")) return tree.folderNames.has(path) ? null : `no folder is named ${word}`;
    if (!SOURCE.test(path)) return null;
    return tree.sourceNames.has(path) ? null : `no file is named ${path}`;
  }
  if (tree.topLevel.has(path.split("/")[0])) {
    return tree.paths.has(path) ? null : `${word} does not exist`;
  }
  return SOURCE.test(path) ? `${word}: name it from the repository root` : null;
}

function codeWords(prose: string, diagrams: string): string[] {
  const words: string[] = [];
  for (const span of prose.matchAll(/`([^`\n]+)`/g)) words.push(...span[1].split(/[\s,()]+/));
  words.push(...diagrams.split(/[\s,()]+/));
  return words.filter((w) => w.includes(".") || w.includes("/"));
}

/** The problems of one document, `doc` being its repository path and `text` its content. */
async function problemsOf(doc: string, text: string, tree: Tree): Promise<string[]> {
  const { prose, diagrams } = splitFences(text);
  const problems: string[] = [];
  for (const word of codeWords(prose, diagrams)) {
    const problem = checkWord(word, tree);
    if (problem) problems.push(`${doc}: ${problem}`);
  }
  const withoutCode = prose.replace(/`[^`\n]*`/g, "");
  for (const link of withoutCode.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = link[1];
    if (/^[a-z]+:/.test(target)) continue;
    const [file, anchor] = target.split("#", 2);
    if (file === "") {
      if (!anchorsOf(text).has(anchor)) problems.push(`${doc}: no heading #${anchor}`);
      continue;
    }
    const path = relative(ROOT, join(ROOT, dirname(doc), file));
    if (!tree.paths.has(path)) {
      problems.push(`${doc}: the link ${target} reaches nothing`);
      continue;
    }
    if (anchor === undefined || !path.endsWith(".md")) continue;
    const anchors = anchorsOf(await Deno.readTextFile(join(ROOT, path)));
    if (!anchors.has(anchor)) problems.push(`${doc}: ${path} has no heading #${anchor}`);
  }
  return problems;
}

Deno.test("README.md, ARCHITECTURE.md and docs/ name only files and headings that exist", async () => {
  const tree = await readTree();
  const problems: string[] = [];
  for (const doc of await documents()) {
    problems.push(...await problemsOf(doc, await Deno.readTextFile(join(ROOT, doc)), tree));
  }
  assert.deepEqual(problems, [], problems.join("\n"));
});

Deno.test("the documentation check sees a missing file, a stray path and a missing heading", async () => {
  const tree = await readTree();
  assert.equal(checkWord("federation/inbox/guard.ts", tree), null);
  assert.equal(checkWord("federation/inbox/guard.ts:76-80", tree), null);
  assert.equal(checkWord("jobs/", tree), null);
  assert.equal(checkWord("guard.ts", tree), null);
  assert.equal(checkWord("entities/", tree), null);
  assert.match(checkWord("web_account/", tree) ?? "", /no folder/);
  assert.equal(checkWord("/api/v1/statuses", tree), null);
  assert.equal(checkWord("DATA_DIR/media/", tree), null);
  assert.match(checkWord("federation/inbox_guard.ts", tree) ?? "", /does not exist/);
  assert.match(checkWord("inbox/guard.ts", tree) ?? "", /repository root/);
  assert.match(checkWord("inbox_statuses.ts", tree) ?? "", /no file is named/);
  assert.equal(
    slug("Web sign-up, password reset, two-factor sign-in and settings"),
    "web-sign-up-password-reset-two-factor-sign-in-and-settings",
  );
  assert.equal(slug("`ROLE` and the worker"), "role-and-the-worker");
  assert.ok(anchorsOf("# A\n\n## B b\n\n```\n# not a heading\n```\n## B b\n").has("b-b-1"));
  assert.ok(!anchorsOf("```\n# not a heading\n```\n").has("not-a-heading"));
  const page = [
    "# Page",
    "[ok](running.md#behind-a-reverse-proxy) [ok](#page) [ok](../ARCHITECTURE.md)",
    "[gone](gone.md) [no heading](running.md#nowhere) [here](#nowhere)",
    "```",
    "jobs/queue.ts ─► jobs/gone.ts",
    "```",
    "```sh",
    "ls /etc/gone/x.ts",
    "```",
  ].join("\n");
  assert.deepEqual(await problemsOf("docs/page.md", page, tree), [
    "docs/page.md: jobs/gone.ts does not exist",
    "docs/page.md: the link gone.md reaches nothing",
    "docs/page.md: docs/running.md has no heading #nowhere",
    "docs/page.md: no heading #nowhere",
  ]);
});
