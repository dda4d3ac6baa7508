/**
 * What `deno task start` runs: the bundled build of the tree as it is
 * (process/bundle.ts), or the sources wherever no build can be made (a
 * read-only checkout or image, a file system without symbolic links, a Deno
 * whose `deno bundle` fails). One process either way, so the server always
 * starts and the task's V8 flags apply to it; the server is imported only
 * after the build is settled (main.ts runs on import).
 */
import { BUNDLE_ENTRY, ensureBundle } from "./bundle.ts";

const SOURCE_ENTRY = new URL("../main.ts", import.meta.url).href;

/** The module to run: the build's entry, or main.ts when `ensure` cannot make one. */
export async function startEntry(ensure: () => Promise<string> = ensureBundle): Promise<string> {
  try {
    return (await ensure()) === "from source" ? SOURCE_ENTRY : BUNDLE_ENTRY;
  } catch (error) {
    console.error(`No bundled build (${(error as Error).message}): running from source.`);
    return SOURCE_ENTRY;
  }
}

if (import.meta.main) await import(await startEntry());
