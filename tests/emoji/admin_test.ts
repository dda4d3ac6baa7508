/**
 * The `emoji` admin commands, run as an operator would (a subprocess):
 * through a running server's admin socket (a relative image path is read
 * from the operator's working directory), and without a server (the
 * command line opens the database itself). Refusals: bad shortcode, a file
 * that is not an image, a file too large, a missing file, a taken shortcode.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createTestDatabase, startInstance, test, TEST_DATABASE_URL } from "../harness.ts";
import { callJson } from "../fixtures/api.ts";
import { bigPng, fetchImage, gifImage, pngImage } from "./helpers.ts";

const CLI = new URL("../../admin/cli.ts", import.meta.url).pathname;

interface Target {
  dataDir: string;
  databaseUrl: string | null;
}

/** `deno run -A admin/cli.ts ...args` from `cwd`, with the target's DATA_DIR/DATABASE_URL. */
async function cli(target: Target, cwd: string, ...args: string[]) {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI, ...args],
    cwd,
    env: { DATA_DIR: target.dataDir, DATABASE_URL: target.databaseUrl ?? "", NO_COLOR: "1" },
    stdin: "null",
  }).output();
  const run = {
    code: output.code,
    stdout: new TextDecoder().decode(output.stdout),
    stderr: new TextDecoder().decode(output.stderr),
  };
  return run;
}

function expectCode(run: { code: number; stdout: string; stderr: string }, code: number) {
  assert.equal(run.code, code, `exit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
}

/** A working directory with the test images. */
async function imagesDir(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "rookery-emoji-images-" });
  await Deno.writeFile(join(dir, "blobcat.png"), await pngImage());
  await Deno.writeFile(join(dir, "wave.gif"), await gifImage());
  await Deno.writeTextFile(join(dir, "fake.png"), "<svg onload=alert(1)></svg>");
  await Deno.writeFile(join(dir, "huge.png"), await bigPng(300 * 1024));
  return dir;
}

test("emoji admin commands through a running server", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "rookery-emoji-admin-" });
  const images = await imagesDir();
  const server = await startInstance({ dataDir, memory: false, worker: false, adminSocket: true });
  const target = { dataDir, databaseUrl: server.databaseUrl };
  try {
    // A relative path: read from the operator's directory, not the server's.
    const added = await cli(
      target,
      images,
      "emoji",
      "add",
      "blobcat",
      "blobcat.png",
      "--category",
      "Cats",
    );
    expectCode(added, 0);
    assert.match(added.stdout, /^Added :blobcat: \(image\/png, category Cats\)\.\n/);
    const url = added.stdout.trim().split("\n").at(-1)!;
    assert.ok(url.startsWith(`${server.origin}/system/custom_emojis/images/`), url);
    expectCode(
      await cli(target, images, "emoji", "add", "wave", join(images, "wave.gif"), "--unlisted"),
      0,
    );

    // Refusals, each with a readable reason and nothing stored.
    const bad = await cli(target, images, "emoji", "add", "b", "fake.png");
    expectCode(bad, 1);
    assert.match(bad.stderr, /shortcode is invalid/);
    assert.match(bad.stderr, /image must be a PNG, GIF or WebP image \(ERR_INVALID\)/);
    assert.doesNotMatch(bad.stderr, /\n\s+at /);
    const dashed = await cli(target, images, "emoji", "add", "blob-cat", "blobcat.png");
    expectCode(dashed, 1);
    assert.match(dashed.stderr, /shortcode is invalid/);
    const huge = await cli(target, images, "emoji", "add", "huge", "huge.png");
    expectCode(huge, 1);
    assert.match(huge.stderr, /image must be smaller than 256 KB/);
    const taken = await cli(target, images, "emoji", "add", "blobcat", "wave.gif");
    expectCode(taken, 1);
    assert.match(taken.stderr, /shortcode has already been taken/);
    const missing = await cli(target, images, "emoji", "add", "nope", "nope.png");
    expectCode(missing, 1);
    assert.match(missing.stderr, /cannot read .*nope\.png: no such file/);
    expectCode(await cli(target, images, "emoji", "add", "only_code"), 2);

    const list = await cli(target, images, "emoji", "list");
    expectCode(list, 0);
    assert.match(list.stdout, /^SHORTCODE\s+CATEGORY\s+PICKER\s+TYPE\s+CREATED\n/);
    assert.match(list.stdout, /:blobcat:\s+Cats\s+listed\s+image\/png/);
    assert.match(list.stdout, /:wave:\s+unlisted\s+image\/gif/);
    assert.doesNotMatch(list.stdout, /huge|nope|:b:/);
    const listed = JSON.parse((await cli(target, images, "emoji", "list", "--json")).stdout);
    assert.deepEqual(listed.map((e: any) => e.shortcode), ["blobcat", "wave"]);
    assert.equal(listed[0].url, url);

    // The API and the files agree with the commands.
    const api = await callJson(server, null, "GET", "/api/v1/custom_emojis");
    assert.deepEqual(api.body.map((e: any) => [e.shortcode, e.category]), [["blobcat", "Cats"]]);
    const image = await fetchImage(server, url);
    assert.equal(image.status, 200);
    assert.equal(image.type, "image/png");
    assert.deepEqual(image.body, await Deno.readFile(join(images, "blobcat.png")));

    const removed = await cli(target, images, "emoji", "remove", "blobcat");
    expectCode(removed, 0);
    assert.match(removed.stdout, /Removed :blobcat:/);
    expectCode(await cli(target, images, "emoji", "remove", "blobcat"), 1);
    assert.deepEqual((await callJson(server, null, "GET", "/api/v1/custom_emojis")).body, []);
    assert.equal((await fetchImage(server, url)).status, 404);
  } finally {
    await server.close({ destroy: true });
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    await Deno.remove(images, { recursive: true }).catch(() => {});
  }
});

test("emoji admin commands without a server", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "rookery-emoji-admin-" });
  const images = await imagesDir();
  const database = TEST_DATABASE_URL ? await createTestDatabase() : null;
  const target = { dataDir, databaseUrl: database?.url ?? null };
  try {
    expectCode(await cli(target, images, "emoji", "add", "blobcat", "blobcat.png"), 0);
    const list = await cli(target, images, "emoji", "list", "--json");
    expectCode(list, 0);
    const [emoji] = JSON.parse(list.stdout);
    assert.equal(emoji.shortcode, "blobcat");
    assert.equal(emoji.content_type, "image/png");
    // The files are where the server will serve them from.
    const path = new URL(emoji.url).pathname.replace(/^\/system\//, "");
    assert.deepEqual(
      await Deno.readFile(join(dataDir, "media", path)),
      await Deno.readFile(join(images, "blobcat.png")),
    );
    const server = await startInstance({
      dataDir,
      memory: false,
      worker: false,
      ...(target.databaseUrl ? { databaseUrl: target.databaseUrl } : {}),
    });
    try {
      const api = await callJson(server, null, "GET", "/api/v1/custom_emojis");
      assert.deepEqual(api.body.map((e: any) => e.shortcode), ["blobcat"]);
      const image = await fetchImage(server, api.body[0].static_url);
      assert.equal(image.status, 200);
      assert.equal(image.type, "image/png");
    } finally {
      await server.close();
    }
  } finally {
    await database?.drop();
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    await Deno.remove(images, { recursive: true }).catch(() => {});
  }
});
