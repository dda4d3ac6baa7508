/**
 * Two machines (PostgreSQL only): nothing but the database and the bucket is
 * shared. Web process A is this test's instance, web process B and a worker
 * are child processes (main.ts) on their own DATA_DIRs; all three use one
 * PostgreSQL database and one bucket (fauxqs in this process, or
 * TEST_S3_ENDPOINT). B answers for A's origin, as behind a load balancer.
 *
 * - media uploaded through one web process is served through the other;
 * - a video uploaded through a web process is transcoded by the worker
 *   (when ffmpeg is installed);
 * - an emoji added on one is listed and served by the other;
 * - an archive queued on A is built by the worker and downloads through B;
 * - a CSV import uploaded through B is applied by the worker (the file is
 *   kept in the database, never on a web process's disk);
 * - no process wrote media or archives to its own disk;
 * - a bucket that goes down: uploads answer 503, posting text still works.
 *
 * On PGlite, the single-machine corollary: with the bucket, moving only the
 * database (`DATA_DIR/db`) to a new DATA_DIR keeps every file served.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { unzipSync } from "fflate";
import { DB_KIND, POSTGRES_ONLY, startInstance, test, type TestInstance } from "../harness.ts";
import { type Server, startServer } from "../fixtures/server_process.ts";
import { startS3Server } from "../fixtures/s3_server.ts";
import { createUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";
import { signInOverHttp } from "../admin_web/http_session.ts";
import { addEmoji } from "../emoji/helpers.ts";
import { clip, form, image, upload, waitProcessed } from "../media/helpers.ts";
import { ffmpegAvailable } from "../../actors/media/ffmpeg.ts";
import { requestArchive } from "../../actors/import_export/archive.ts";
import { backups, dataImports } from "../../db/schema/mod.ts";

const ffmpeg = await ffmpegAvailable();
const keyOf = (url: string) => new URL(url).pathname.replace(/^\/system\//, "");

test("two machines: one database, one bucket, nothing on local disks", POSTGRES_ONLY, async (t) => {
  const s3 = await startS3Server();
  const children: Server[] = [];
  let a: TestInstance | null = null;
  const dirs = {
    b: await Deno.makeTempDir({ prefix: "rookery-b-" }),
    worker: await Deno.makeTempDir({ prefix: "rookery-worker-" }),
  };
  try {
    const bucket = await s3.bucket();
    a = await startInstance({ listen: true, worker: false, env: bucket.env });
    const shared = { DATABASE_URL: a.databaseUrl!, ORIGIN: a.origin, ...bucket.env };
    const b = await startServer({
      ...shared,
      ROLE: "web",
      DATA_DIR: dirs.b,
      TRUST_PROXY: "true",
    });
    children.push(b);
    children.push(await startServer({ ...shared, ROLE: "worker", DATA_DIR: dirs.worker }));
    const instance = a;
    // B, as a client reaches it through the balancer (the public host forwarded).
    const forwarded = { "x-forwarded-host": a.domain, "x-forwarded-proto": "http" };
    const viaB: TestInstance = {
      ...a,
      request(path: string, init: RequestInit = {}) {
        const headers = new Headers(init.headers);
        for (const [name, value] of Object.entries(forwarded)) headers.set(name, value);
        return fetch(new URL(path, b.origin), { ...init, headers });
      },
    };
    const alice = await createUser(a, "alice");

    await t.step("media uploaded through B is served through A and B", async () => {
      const res = await upload(
        viaB,
        alice.token,
        form({ bytes: await image("png", 30, 20), type: "image/png" }),
      );
      assert.equal(res.status, 200);
      const media = await res.json();
      assert.ok(media.url.startsWith(`${instance.origin}/system/media_attachments/`));
      const stored = await bucket.object(keyOf(media.url));
      assert.ok(stored);
      for (const server of [instance, viaB]) {
        const file = await server.request(media.url);
        assert.equal(file.status, 200);
        assert.deepEqual(new Uint8Array(await file.arrayBuffer()), stored.bytes);
      }
    });

    await t.step({
      name: "a video uploaded through B is transcoded by the worker, streams through A",
      ignore: !ffmpeg,
      fn: async () => {
        const res = await upload(
          viaB,
          alice.token,
          form({ bytes: await clip(false), type: "video/webm" }),
        );
        assert.equal(res.status, 202);
        // Neither web process transcodes: the worker's periodic scan finds the upload.
        const done = await waitProcessed(instance, alice.token, (await res.json()).id);
        const media = await done.json();
        assert.equal(done.status, 200, JSON.stringify(media));
        assert.match(media.url, /\.mp4$/);
        const ranged = await instance.request(media.url, { headers: { range: "bytes=4-7" } });
        assert.equal(ranged.status, 206);
        assert.equal(await ranged.text(), "ftyp");
      },
    });

    await t.step("an emoji added on A is listed and served by B", async () => {
      await addEmoji(instance, "party");
      const list = await (await viaB.request("/api/v1/custom_emojis")).json();
      const party = list.find((e: { shortcode: string }) => e.shortcode === "party");
      assert.ok(party, JSON.stringify(list));
      assert.ok(await bucket.has(keyOf(party.url)));
      const file = await viaB.request(party.url);
      assert.equal(file.status, 200);
      await file.body?.cancel();
    });

    await t.step(
      "an archive queued on A is built by the worker, downloads through B",
      async () => {
        const carol = await createUser(instance, "carol");
        const session = await signInOverHttp(instance, "carol", "/settings/archive");
        const { db } = instance.rookery.ctx.database;
        // The request records its build job; only the worker process runs jobs.
        const row = await requestArchive(db, carol.userId);
        const built = await eventually("the worker builds the archive", async () => {
          const [now] = await db.select().from(backups).where(eq(backups.id, row.id));
          return now.state === "done" ? now : null;
        }, 60_000);
        assert.ok(await bucket.has(built.fileKey!));
        const res = await viaB.request(`/settings/archives/${row.id}/download`, {
          headers: { cookie: session.cookie },
        });
        assert.equal(res.status, 200);
        assert.ok("actor.json" in unzipSync(new Uint8Array(await res.arrayBuffer())));
      },
    );

    await t.step("an import uploaded through B runs in the worker, shows on A", async () => {
      const dave = await createUser(instance, "dave");
      const session = await signInOverHttp(viaB, "dave", "/settings/import");
      const body = new FormData();
      body.set("authenticity_token", session.token);
      body.set("type", "blocking");
      body.set("mode", "merge");
      body.set(
        "data",
        new File([`alice@${instance.domain}\n`], "blocks.csv", { type: "text/csv" }),
      );
      const res = await viaB.request("/settings/import", {
        method: "POST",
        headers: { cookie: session.cookie },
        body,
        redirect: "manual",
      });
      assert.equal(res.status, 303, await res.text());
      const id = res.headers.get("location")!.match(/^\/settings\/imports\/(\d+)$/)![1];
      // Neither web process runs jobs: only the worker can finish it.
      const { db } = instance.rookery.ctx.database;
      await eventually("the worker applies the import", async () => {
        const [row] = await db.select().from(dataImports).where(eq(dataImports.id, id));
        return row.state === "finished" && row.processedRows === 1;
      }, 60_000);
      const rel = await instance.request(`/api/v1/accounts/relationships?id[]=${alice.id}`, {
        headers: { authorization: `Bearer ${dave.token}` },
      });
      assert.equal((await rel.json())[0].blocking, true);
    });

    await t.step("no process wrote media or archives to its own disk", () => {
      for (const dir of [instance.dataDir, dirs.b, dirs.worker]) {
        assert.equal(existsSync(join(dir, "media")), false, dir);
        assert.equal(existsSync(join(dir, "archives")), false, dir);
      }
    });

    await t.step("the bucket goes down: uploads 503 on B, text posts on A", async () => {
      await s3.stop();
      const res = await upload(
        viaB,
        alice.token,
        form({ bytes: await image("png", 8, 8), type: "image/png" }),
      );
      assert.equal(res.status, 503);
      assert.deepEqual(await res.json(), {
        error: "There was a temporary problem serving your request, please try again",
      });
      const status = await instance.request("/api/v1/statuses", {
        method: "POST",
        headers: { authorization: `Bearer ${alice.token}`, "content-type": "application/json" },
        body: JSON.stringify({ status: "text needs no bucket" }),
      });
      assert.equal(status.status, 200);
      await status.body?.cancel();
    });

    await t.step("both children stop cleanly", async () => {
      for (const child of children.splice(0)) assert.equal((await child.stop()).code, 0);
    });
  } finally {
    for (const child of children) await child.stop();
    await a?.close();
    await s3.stop();
    for (const dir of Object.values(dirs)) await Deno.remove(dir, { recursive: true });
  }
});

test("one machine on a bucket: only DATA_DIR/db needs moving", {
  ignore: DB_KIND !== "pglite",
}, async () => {
  const s3 = await startS3Server();
  const first = await Deno.makeTempDir({ prefix: "rookery-x-" });
  const second = await Deno.makeTempDir({ prefix: "rookery-y-" });
  try {
    const bucket = await s3.bucket();
    const before = await startInstance({ listen: true, dataDir: first, env: bucket.env });
    let urls: string[];
    try {
      const alice = await createUser(before, "alice");
      const res = await upload(
        before,
        alice.token,
        form({ bytes: await image("png", 30, 20), type: "image/png" }),
      );
      assert.equal(res.status, 200);
      const emoji = await addEmoji(before, "party");
      urls = [(await res.json()).url, before.rookery.ctx.media.url(emoji.filePath!)];
    } finally {
      await before.close();
    }
    await Deno.rename(join(first, "db"), join(second, "db"));
    assert.equal(existsSync(join(first, "media")), false);
    assert.equal(existsSync(join(first, "archives")), false);
    const after = await startInstance({ listen: true, dataDir: second, env: bucket.env });
    try {
      for (const url of urls) {
        const file = await after.request(new URL(url).pathname);
        assert.equal(file.status, 200, url);
        await file.body?.cancel();
      }
    } finally {
      await after.close();
    }
  } finally {
    await s3.stop();
    for (const dir of [first, second]) await Deno.remove(dir, { recursive: true });
  }
});
