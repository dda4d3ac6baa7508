/**
 * `media migrate` (admin/storage_commands.ts): an instance on the folder
 * store with an upload, an avatar, an emoji and an archive; the command, run
 * with the S3_* variables, copies every file into the bucket (--dry-run
 * copies nothing; a second run skips what is there); the server restarted
 * on the bucket serves everything it served before, with no row changed;
 * --delete-local then empties DATA_DIR's media and archives. Without S3 the
 * command refuses with a usage error.
 */
import assert from "node:assert/strict";
import { join, relative } from "node:path";
import { eq } from "drizzle-orm";
import { startInstance, test, type TestInstance } from "../harness.ts";
import { loadConfig } from "../../config.ts";
import { prepareCommand } from "../../admin/commands.ts";
import { requestArchive } from "../../actors/import_export/archive.ts";
import { backups } from "../../db/schema/mod.ts";
import { startS3Server } from "../fixtures/s3_server.ts";
import { createUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";
import { addEmoji } from "../emoji/helpers.ts";
import { updateCredentials } from "../accounts/helpers.ts";
import { form, image, upload } from "./helpers.ts";

/** Runs `media migrate …` as the command line does, with `env` as its environment. */
async function migrate(env: Record<string, string>, ...flags: string[]) {
  const prepared = prepareCommand(["media", "migrate", ...flags]);
  assert.equal(prepared.kind, "local");
  if (prepared.kind !== "local") throw new Error("not a local command");
  return await prepared.run({ config: loadConfig(env) });
}

/** Every file under the folder store's two folders, as store keys. */
async function localKeys(dataDir: string): Promise<string[]> {
  const keys: string[] = [];
  const walk = async (dir: string, prefix: string) => {
    let entries;
    try {
      entries = await Array.fromAsync(Deno.readDir(dir));
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return;
      throw error;
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory) await walk(path, prefix);
      else {keys.push(
          prefix + relative(prefix ? join(dataDir, "archives") : join(dataDir, "media"), path),
        );}
    }
  };
  await walk(join(dataDir, "media"), "");
  await walk(join(dataDir, "archives"), "archives/");
  return keys.sort();
}

test("media migrate: the folder store's files into a bucket", async (t) => {
  const s3 = await startS3Server();
  const dataDir = await Deno.makeTempDir({ prefix: "rookery-migrate-" });
  let instance: TestInstance | null = await startInstance({ listen: true, dataDir });
  try {
    const bucket = await s3.bucket();
    const first = instance;
    const env = {
      DATA_DIR: dataDir,
      ORIGIN: first.origin,
      ...(first.databaseUrl ? { DATABASE_URL: first.databaseUrl } : {}),
    };
    const alice = await createUser(first, "alice");
    const uploaded = await upload(
      first,
      alice.token,
      form({ bytes: await image("png", 30, 20), type: "image/png" }),
    );
    const media = await uploaded.json();
    const avatarForm = new FormData();
    avatarForm.append(
      "avatar",
      new File([await image("png", 64, 64)], "a.png", { type: "image/png" }),
    );
    const { avatar } = await (await updateCredentials(first, alice.token, avatarForm)).json();
    await addEmoji(first, "party");
    const { db } = first.rookery.ctx.database;
    const archive = await requestArchive(db, alice.userId);
    const built = await eventually("the archive is built", async () => {
      const [row] = await db.select().from(backups).where(eq(backups.id, archive.id));
      return row.state === "done" ? row : null;
    });
    const emojiList = await (await first.request("/api/v1/custom_emojis")).json();
    const urls = [media.url, media.preview_url, avatar, emojiList[0].url, emojiList[0].static_url];
    const local = await localKeys(dataDir);
    assert.ok(local.includes(built.fileKey!), JSON.stringify(local));
    assert.equal(local.length, 6, JSON.stringify(local));

    await t.step("without S3 the command refuses", async () => {
      const result = await migrate(env);
      assert.equal(result.exitCode, 2);
      assert.match(result.stderr, /run it with S3_ENABLED=true/);
    });

    await t.step("--dry-run copies nothing", async () => {
      const result = await migrate({ ...env, ...bucket.env }, "--dry-run");
      assert.equal(result.exitCode, 0, result.stderr);
      assert.match(
        result.stdout,
        /^Would copy 6 files \(.+\) from folder .+ to s3:\/\/.+; 0 already there$/m,
      );
      assert.match(result.stdout, /dry run: nothing changed/);
      assert.deepEqual(await bucket.keys(), []);
    });

    await t.step("the copy: every file, same bytes; a second run skips them", async () => {
      const result = await migrate({ ...env, ...bucket.env }, "--concurrency", "2");
      assert.equal(result.exitCode, 0, result.stderr);
      assert.match(result.stdout, /^Copied 6 files /m);
      assert.deepEqual(await bucket.keys(), local);
      for (const key of local) {
        const copy = await bucket.object(key);
        const file = await Deno.readFile(
          key.startsWith("archives/") ? join(dataDir, key) : join(dataDir, "media", key),
        );
        assert.deepEqual(copy?.bytes, file, key);
      }
      const again = await migrate({ ...env, ...bucket.env });
      assert.match(again.stdout, /^Copied 0 files .*; 6 already there$/m);
    });

    await t.step("restarted on the bucket, everything is served as before", async () => {
      await first.close();
      instance = await startInstance({
        listen: true,
        dataDir,
        port: Number(new URL(first.origin).port),
        ...(first.databaseUrl ? { databaseUrl: first.databaseUrl } : {}),
        env: bucket.env,
      });
      const second = instance;
      for (const url of urls) {
        const res = await second.request(url);
        assert.equal(res.status, 200, url);
        await res.body?.cancel();
      }
      const zip = await second.rookery.ctx.media.get(built.fileKey!);
      assert.equal(zip?.size, (await bucket.object(built.fileKey!))?.bytes.length);
      await zip?.body.cancel();
    });

    await t.step("--delete-local empties DATA_DIR's media and archives", async () => {
      const result = await migrate({ ...env, ...bucket.env }, "--delete-local");
      assert.equal(result.exitCode, 0, result.stderr);
      assert.match(result.stdout, /^Deleted 6 local files$/m);
      assert.deepEqual(await localKeys(dataDir), []);
      assert.deepEqual(await bucket.keys(), local);
    });
  } finally {
    await instance?.close();
    await s3.stop();
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
});
