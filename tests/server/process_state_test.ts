/**
 * No module keeps mutable state of its own (process/core.ts): the source
 * tree has no top-level `let` or `var`, and no top-level Map, Set, WeakMap,
 * WeakSet, array or object that its module changes. Process state belongs in
 * the process core, per-request state on the request's context. A constant
 * collection (built once, never changed) is fine.
 *
 * The few exceptions allowed below have no behaviour of their own (nothing
 * to start, close or invalidate): memos of compile-time facts (a query's
 * key → its SQL text), a table of constant texts filled at import, and the
 * snowflake clock, which is the process's by nature. A new one needs a line
 * here, and a reason.
 */
import assert from "node:assert/strict";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** Not source of the running process. */
const SKIPPED = ["tests/", "bench/", "fuzz/", "compat/", "db/migrations/", "node_modules/"];

/** `file: name` → why it may stay. */
const ALLOWED: Record<string, string> = {
  "db/queries/prepared.ts: built":
    "memo of built queries per executor handle (weak: it goes with the handle)",
  "db/queries/prepared.ts: shapes": "memo: query key → SQL text and result mapping",
  "db/queries/prepared.ts: builtRaw": "memo: statement key → SQL text and parameter slots",
  "db/queries/json_rows.ts: shapes": "memo: table → column shapes (weak, keyed by the schema)",
  "db/ids.ts: processTag":
    "the snowflake clock is the process's: ids stay unique and increasing across instances",
  "db/ids.ts: lastMs": "the snowflake clock (see processTag)",
  "db/ids.ts: counter": "the snowflake clock (see processTag)",
  "web/pages/admin/layout.tsx: NOTICES":
    "constant texts, filled once at import by each admin page module (registerNotices)",
};

const COLLECTION =
  /^(?:export )?const (\w+)(?::[^=]*?)? =\s*(?:new (?:Map|Set|WeakMap|WeakSet)\b|\[|\{)/gm;
const BINDING = /^(?:export )?(?:let|var) (\w+)/gm;

function sourceFiles(dir = ROOT): string[] {
  const out: string[] = [];
  for (const entry of Deno.readDirSync(dir)) {
    const path = join(dir, entry.name);
    const rel = relative(ROOT, path).replaceAll("\\", "/");
    if (entry.name.startsWith(".")) continue;
    if (entry.isDirectory) {
      if (!SKIPPED.some((s) => `${rel}/`.startsWith(s))) out.push(...sourceFiles(path));
    } else if (/\.tsx?$/.test(entry.name) && !SKIPPED.some((s) => rel.startsWith(s))) {
      out.push(path);
    }
  }
  return out;
}

/** Whether the module changes `name` (a collection's methods, an element or a property). */
function mutated(text: string, name: string): boolean {
  const changes = new RegExp(
    `\\b${name}(?:\\.(?:set|add|delete|clear|push|pop|shift|unshift|splice|sort|reverse|fill)\\(` +
      `|(?:\\.\\w+|\\[[^\\]]*\\])+\\s*(?:[+\\-*/%|&]?=(?!=)|\\+\\+|--))` +
      `|Object\\.assign\\(${name}\\b`,
  );
  return changes.test(text);
}

/** The module-level state of one file, as `file: name` strings. */
function stateOf(path: string): string[] {
  const text = Deno.readTextFileSync(path);
  const file = relative(ROOT, path).replaceAll("\\", "/");
  const found: string[] = [];
  for (const [, name] of text.matchAll(BINDING)) found.push(`${file}: ${name}`);
  for (const [, name] of text.matchAll(COLLECTION)) {
    if (mutated(text, name)) found.push(`${file}: ${name}`);
  }
  return found;
}

Deno.test("process state: no module keeps mutable state of its own", () => {
  const found = sourceFiles().flatMap(stateOf);
  const unexpected = found.filter((entry) => !(entry in ALLOWED));
  assert.deepEqual(
    unexpected,
    [],
    "module-level mutable state: move it into the process core (process/core.ts), " +
      "or onto the request's context",
  );
  // An allowance whose state is gone goes too, so the list stays true.
  const stale = Object.keys(ALLOWED).filter((entry) => !found.includes(entry));
  assert.deepEqual(stale, [], "allowed state that no longer exists: remove it from ALLOWED");
});

Deno.test("process state: the check finds what it is meant to find", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const path = join(dir, "sample.ts");
    Deno.writeTextFileSync(
      path,
      [
        "let loading: Promise<void> | undefined;",
        "export const seen = new Map<string, number>();",
        "const settings = { deadline: 1 };",
        "const WORDS = new Set(['a', 'b']);",
        "export function note(key: string) {",
        "  seen.set(key, 1);",
        "  settings.deadline = 2;",
        "  return WORDS.has(key);",
        "}",
      ].join("\n"),
    );
    const names = stateOf(path).map((entry) => entry.split(": ")[1]);
    assert.deepEqual(names.sort(), ["loading", "seen", "settings"]);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
