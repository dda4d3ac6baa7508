/**
 * What every media store promises (actors/media/store/mod.ts), run against
 * each implementation: atomic writes of bytes, blobs and streams, ranged
 * reads, sizes, listing by prefix in key order, batch deletes, and refusals
 * of anything that is not a key.
 */
import assert from "node:assert/strict";
import { test } from "../harness.ts";
import {
  type MediaStore,
  MediaStoreUnavailable,
  RangeNotSatisfiable,
  type StoredObject,
} from "../../actors/media/store/mod.ts";
import { FolderStore } from "../../actors/media/store/folder.ts";
import { S3Store } from "../../actors/media/store/s3.ts";
import { startS3Server } from "../fixtures/s3_server.ts";
import {
  newArchiveKey,
  newAttachmentKey,
  newEmojiKey,
  newProfileImageKey,
} from "../../actors/media/store/keys.ts";
import { newId } from "../../db/ids.ts";

const ORIGIN = "https://rookery.example";

/** A store under test and how to take it away. */
interface Subject {
  name: string;
  store: MediaStore;
  close(): Promise<void>;
}

async function folderSubject(): Promise<Subject> {
  const dir = await Deno.makeTempDir({ prefix: "rookery-store-" });
  return {
    name: "folder",
    store: new FolderStore(dir, ORIGIN),
    close: () => Deno.remove(dir, { recursive: true }),
  };
}

/** The S3 store on a fresh bucket of fauxqs (or TEST_S3_ENDPOINT), paging two keys at a time. */
async function s3Subject(): Promise<Subject> {
  const server = await startS3Server();
  const bucket = await server.bucket();
  return {
    name: "s3",
    store: new S3Store({ ...bucket.config, listPageSize: 2 }, ORIGIN),
    close: () => server.stop(),
  };
}

const bytesOf = (n: number, seed = 1) => Uint8Array.from({ length: n }, (_, i) => (i * seed) % 251);

async function read(store: MediaStore, key: string, range?: Parameters<MediaStore["get"]>[1]) {
  const file = await store.get(key, range);
  if (!file) return null;
  return { ...file, bytes: new Uint8Array(await new Response(file.body).arrayBuffer()) };
}

/** A stream of `chunks` pieces of `size` bytes that fails after `failAfter` of them. */
function chunked(chunks: number, size: number, failAfter = Infinity): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= failAfter) return controller.error(new Error("the source broke"));
      if (sent === chunks) return controller.close();
      controller.enqueue(bytesOf(size, ++sent));
    },
  });
}

async function keysOf(list: AsyncIterable<StoredObject>): Promise<string[]> {
  return (await Array.fromAsync(list)).map((o) => o.key);
}

for (const make of [folderSubject, s3Subject]) {
  test(`media store contract: ${make.name.replace("Subject", "")}`, async (t) => {
    const { store, close } = await make();
    try {
      await t.step("put bytes, a Blob and a stream; read them back whole", async () => {
        const bytes = bytesOf(1000);
        const blob = new Blob([bytesOf(70_000, 3)]);
        const keys = [
          newAttachmentKey(newId(), "original", "png"),
          newAttachmentKey(newId(), "original", "mp4"),
          newEmojiKey(newId(), "static", "png"),
        ];
        assert.deepEqual(await store.put(keys[0], bytes, { contentType: "image/png" }), {
          size: 1000,
        });
        assert.deepEqual(await store.put(keys[1], blob, { contentType: "video/mp4" }), {
          size: 70_000,
        });
        assert.deepEqual(
          await store.put(keys[2], chunked(5, 100_000), { contentType: "image/png" }),
          { size: 500_000 },
        );
        const first = await read(store, keys[0]);
        assert.deepEqual(first?.bytes, bytes);
        assert.equal(first?.size, 1000);
        assert.equal(first?.contentType, "image/png");
        assert.equal(first?.range, undefined);
        assert.deepEqual((await read(store, keys[1]))?.bytes, bytesOf(70_000, 3));
        assert.equal((await read(store, keys[2]))?.bytes.length, 500_000);
        assert.equal(await store.size(keys[1]), 70_000);
        assert.equal(await store.size(newAttachmentKey(newId(), "small", "png")), null);
        assert.equal(await store.get(newAttachmentKey(newId(), "small", "png")), null);
      });

      await t.step("ranges: first bytes, a suffix, clamped, past the end", async () => {
        const key = newAttachmentKey(newId(), "original", "mp4");
        const bytes = bytesOf(5000, 7);
        await store.put(key, bytes, { contentType: "video/mp4" });
        const head = await read(store, key, { start: 0, end: 9 });
        assert.deepEqual(head?.bytes, bytes.subarray(0, 10));
        assert.deepEqual(head?.range, { start: 0, end: 9 });
        assert.equal(head?.size, 5000);
        const tail = await read(store, key, { suffix: 100 });
        assert.deepEqual(tail?.bytes, bytes.subarray(4900));
        assert.deepEqual(tail?.range, { start: 4900, end: 4999 });
        const open = await read(store, key, { start: 4990, end: 99_999 });
        assert.deepEqual(open?.range, { start: 4990, end: 4999 });
        assert.deepEqual(open?.bytes, bytes.subarray(4990));
        await assert.rejects(store.get(key, { start: 5000 }), RangeNotSatisfiable);
        await assert.rejects(store.get(key, { suffix: 0 }), (error: RangeNotSatisfiable) => {
          assert.equal(error.size, 5000);
          return true;
        });
      });

      await t.step("a body that fails, or an aborted write, leaves no key", async () => {
        const broken = newAttachmentKey(newId(), "original", "mp4");
        await assert.rejects(
          store.put(broken, chunked(10, 50_000, 3), { contentType: "video/mp4" }),
          /the source broke/,
        );
        assert.equal(await store.size(broken), null);
        const aborted = newAttachmentKey(newId(), "original", "mp4");
        const controller = new AbortController();
        controller.abort(new Error("stopped"));
        await assert.rejects(
          store.put(aborted, chunked(2, 10), {
            contentType: "video/mp4",
            signal: controller.signal,
          }),
          /stopped/,
        );
        assert.equal(await store.size(aborted), null);
      });

      await t.step("keys outside the grammar are refused, never touched", async () => {
        for (const key of ["../etc/passwd", "media_attachments/../../x.png", "other/a.png", "x"]) {
          await assert.rejects(store.put(key, bytesOf(3), { contentType: "image/png" }), key);
          assert.equal(await store.get(key), null, key);
          assert.equal(await store.size(key), null, key);
        }
        assert.deepEqual(await store.delete(["../x.png", null, undefined, ""]), []);
      });

      await t.step("list by prefix, in key order, after a key", async () => {
        const account = newId();
        const keys = ["a", "b", "c"].map(() => newProfileImageKey(account, "avatar", "png"))
          .sort();
        for (const key of keys) await store.put(key, bytesOf(10), { contentType: "image/png" });
        const prefix = `accounts/avatars/${account}/`;
        assert.deepEqual(await keysOf(store.list({ prefix })), keys);
        assert.deepEqual(await keysOf(store.list({ prefix, startAfter: keys[0] })), keys.slice(1));
        const all = await keysOf(store.list());
        assert.deepEqual(all, [...all].sort(), "every key, in order");
        for (const key of keys) assert.ok(all.includes(key));
        const [listed] = await Array.fromAsync(store.list({ prefix }));
        assert.equal(listed.size, 10);
        assert.ok(Date.now() - listed.modifiedAt.getTime() < 600_000);
      });

      await t.step("delete a batch, missing keys included", async () => {
        const keys = [1, 2, 3].map(() => newAttachmentKey(newId(), "small", "png"));
        for (const key of keys) await store.put(key, bytesOf(5), { contentType: "image/png" });
        const missing = newAttachmentKey(newId(), "small", "png");
        assert.deepEqual(await store.delete([...keys, missing]), []);
        for (const key of keys) assert.equal(await store.size(key), null);
      });

      await t.step("archives are stored but have no public URL", async () => {
        const key = newArchiveKey();
        await store.put(key, chunked(3, 1000), { contentType: "application/zip" });
        assert.equal((await read(store, key))?.contentType, "application/zip");
        assert.throws(() => store.url(key));
        const media = newAttachmentKey(newId(), "original", "png");
        assert.equal(store.url(media), `${store.urlBase}${media}`);
        assert.deepEqual(await keysOf(store.list({ prefix: "archives/" })), [key]);
      });

      await t.step("check() passes on a working store", async () => {
        await store.check();
      });
    } finally {
      await store.close();
      await close();
    }
  });
}

test("S3 store: multipart uploads, and a bucket that is down", async (t) => {
  const server = await startS3Server();
  const bucket = await server.bucket();
  const threshold = 5 * 1024 * 1024;
  const store = new S3Store({ ...bucket.config, multipartThreshold: threshold }, ORIGIN);
  try {
    await t.step("a stream of unknown size past the threshold goes up in parts", async () => {
      const key = newAttachmentKey(newId(), "original", "mp4");
      // 12 MiB in 1 MiB chunks: three parts of 5, 5 and 2 MiB.
      assert.deepEqual(
        await store.put(key, chunked(12, 1024 * 1024), { contentType: "video/mp4" }),
        { size: 12 * 1024 * 1024 },
      );
      const object = await bucket.object(key);
      assert.equal(object?.bytes.length, 12 * 1024 * 1024);
      assert.deepEqual(object?.bytes.subarray(0, 100), bytesOf(1024 * 1024, 1).subarray(0, 100));
      assert.equal(object?.contentType, "video/mp4");
      const broken = newAttachmentKey(newId(), "original", "mp4");
      await assert.rejects(
        store.put(broken, chunked(12, 1024 * 1024, 7), { contentType: "video/mp4" }),
        /the source broke/,
      );
      assert.equal(await bucket.has(broken), false);
    });

    await t.step("archives are private, media public", async () => {
      const archive = newArchiveKey();
      await store.put(archive, bytesOf(10), { contentType: "application/zip" });
      assert.equal((await bucket.object(archive))?.cacheControl, "private, no-store");
    });

    await t.step("down: reads, writes and checks throw MediaStoreUnavailable", async () => {
      const key = newAttachmentKey(newId(), "original", "png");
      await store.put(key, bytesOf(10), { contentType: "image/png" });
      await server.stop();
      const unavailable = (error: Error) => {
        assert.ok(error instanceof MediaStoreUnavailable, String(error));
        assert.match(error.message, new RegExp(`s3://${bucket.name}`));
        assert.doesNotMatch(error.message, new RegExp(bucket.config.secretAccessKey));
        return true;
      };
      await assert.rejects(store.get(key), unavailable);
      await assert.rejects(store.size(key), unavailable);
      await assert.rejects(store.check(), unavailable);
      await assert.rejects(store.put(key, bytesOf(3), { contentType: "image/png" }), unavailable);
      await assert.rejects(Array.fromAsync(store.list()), unavailable);
      assert.deepEqual(await store.delete([key]), [key]);
    });
  } finally {
    await store.close();
    await server.stop();
  }
});
