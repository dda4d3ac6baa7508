/**
 * Video and audio: 202 and background processing (v2), 200 after processing
 * (v1), GET answering 206 until done. What "done" means depends on the
 * machine: with ffmpeg the file is transcoded (and these fake files fail
 * with 422); without it the recognised upload is kept as it came (200).
 * Both paths run wherever ffmpeg is installed.
 */
import assert from "node:assert/strict";
import { DB_KIND, json, startInstance, test } from "../harness.ts";
import { ffmpegAvailable } from "../../actors/media/ffmpeg.ts";
import {
  authed,
  fakeMp4,
  fetchFile,
  form,
  image,
  localUser,
  upload,
  waitProcessed,
} from "./helpers.ts";

const PROCESSING_ERROR = "Error processing thumbnail for uploaded media";

/** The same uploads with ffmpeg (when the machine has it) and without. */
async function uploadsProcessed(withFfmpeg: boolean) {
  // No worker at first: the upload stays "processing" until one starts.
  const instance = await startInstance({ worker: false });
  // Both paths run on every machine: without ffmpeg even where it is installed.
  if (!withFfmpeg) instance.rookery.ctx.core.media.assumeFfmpeg(false);
  try {
    const { token } = await localUser(instance, "filmmaker");
    const mp4 = fakeMp4();

    const res = await upload(
      instance,
      token,
      form({ bytes: mp4, type: "video/mp4" }, { description: "A clip" }, {
        bytes: await image("png", 320, 180),
        type: "image/png",
      }),
    );
    const video = await json(res);
    assert.equal(res.status, 202, JSON.stringify(video));
    assert.equal(video.type, "video");
    assert.equal(video.url, null);
    assert.match(video.preview_url, /\/small-[0-9a-f]{16}\.png$/, "the thumbnail is the preview");
    assert.deepEqual(video.meta.small, {
      width: 320,
      height: 180,
      size: "320x180",
      aspect: 16 / 9,
    });
    assert.ok(video.blurhash);
    const pending = await authed(instance, token, `/api/v1/media/${video.id}`);
    assert.equal(pending.status, 206);
    assert.equal((await json(pending)).url, null);

    // A worker starting later finds it (the row's state is the queue).
    instance.rookery.startWorker();
    const done = await waitProcessed(instance, token, video.id);
    const body = await json(done);
    if (withFfmpeg) {
      assert.equal(done.status, 422);
      assert.deepEqual(body, { error: PROCESSING_ERROR });
    } else {
      assert.equal(done.status, 200, JSON.stringify(body));
      assert.match(body.url, /\/original-[0-9a-f]{16}\.mp4$/);
      assert.equal(body.preview_url, video.preview_url);
      assert.equal(body.description, "A clip");
      assert.deepEqual(body.meta.small, video.meta.small);
      const file = await fetchFile(instance, body.url);
      assert.equal(file.res.headers.get("content-type"), "video/mp4");
      assert.equal(file.res.headers.get("accept-ranges"), "bytes");
      assert.deepEqual(file.bytes, mp4, "kept as uploaded");
      const range = await instance.request(body.url, { headers: { range: "bytes=4-11" } });
      assert.equal(range.status, 206);
      assert.equal(range.headers.get("content-range"), `bytes 4-11/${mp4.length}`);
      assert.equal(new TextDecoder().decode(await range.arrayBuffer()), "ftypmp42");
      const outside = await instance.request(body.url, { headers: { range: "bytes=999-" } });
      await outside.body?.cancel();
      assert.equal(outside.status, 416);
    }

    // Without a thumbnail there is no preview image (never the video's own URL).
    const bare = await json(await upload(instance, token, form({ bytes: mp4, type: "video/mp4" })));
    assert.equal(bare.url, null);
    assert.equal(bare.preview_url, null);

    // The deprecated v1 upload answers after processing.
    const v1 = await upload(instance, token, form({ bytes: mp4, type: "video/quicktime" }), 1);
    const v1Body = await json(v1);
    if (withFfmpeg) {
      assert.equal(v1.status, 422);
    } else {
      assert.equal(v1.status, 200, JSON.stringify(v1Body));
      assert.match(v1Body.url, /\.mp4$/, "an MP4 file sent as QuickTime is stored as what it is");
    }

    // Audio, recognised by its ID3 header.
    const mp3 = new Uint8Array(128);
    mp3.set(new TextEncoder().encode("ID3\x04\x00\x00\x00\x00\x00\x00"));
    const audioRes = await upload(instance, token, form({ bytes: mp3, type: "audio/mpeg" }));
    const audio = await json(audioRes);
    assert.equal(audioRes.status, 202, JSON.stringify(audio));
    assert.equal(audio.type, "audio");
    const audioDone = await waitProcessed(instance, token, audio.id);
    if (!withFfmpeg) {
      const finished = await json(audioDone);
      assert.equal(audioDone.status, 200);
      const file = await fetchFile(instance, finished.url);
      assert.equal(file.res.headers.get("content-type"), "audio/mpeg");
    } else {
      await audioDone.body?.cancel();
    }
  } finally {
    await instance.close({ destroy: true });
  }
}

test("without ffmpeg: video and audio are kept as uploaded, in the background; v1 waits", async () => {
  await uploadsProcessed(false);
});

Deno.test({
  name: `[${DB_KIND}] with ffmpeg: fake files fail in the background with 422; v1 waits`,
  ignore: !(await ffmpegAvailable()),
  sanitizeOps: false,
  sanitizeResources: false,
}, () => uploadsProcessed(true));

/** A short test-pattern clip made by ffmpeg itself (with or without a tone). */
async function clip(withSound: boolean): Promise<Uint8Array<ArrayBuffer>> {
  const file = await Deno.makeTempFile({ suffix: ".webm" });
  try {
    const args = [
      "-nostdin",
      "-y",
      "-v",
      "error",
      "-f",
      "lavfi",
      "-i",
      "testsrc=size=320x240:rate=10",
    ];
    if (withSound) args.push("-f", "lavfi", "-i", "sine=frequency=440");
    args.push("-t", "1", "-c:v", "libvpx", "-b:v", "200k");
    if (withSound) args.push("-c:a", "libopus");
    args.push(file);
    const out = await new Deno.Command("ffmpeg", { args, stdout: "null", stderr: "piped" })
      .output();
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
    return new Uint8Array(await Deno.readFile(file));
  } finally {
    await Deno.remove(file);
  }
}

Deno.test({
  name: `[${DB_KIND}] with ffmpeg: real clips become MP4 (gifv without sound), preview frame, meta`,
  ignore: !(await ffmpegAvailable()),
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const instance = await startInstance();
  try {
    const { token } = await localUser(instance, "director");
    for (const withSound of [true, false]) {
      const res = await upload(
        instance,
        token,
        form({ bytes: await clip(withSound), type: "video/webm" }),
      );
      const queued = await json(res);
      assert.equal(res.status, 202, JSON.stringify(queued));
      const done = await waitProcessed(instance, token, queued.id);
      const media = await json(done);
      assert.equal(done.status, 200, JSON.stringify(media));
      assert.equal(media.type, withSound ? "video" : "gifv");
      assert.match(media.url, /\/original-[0-9a-f]{16}\.mp4$/);
      assert.match(media.preview_url, /\/small-[0-9a-f]{16}\.(png|jpg)$/);
      assert.ok(media.blurhash);
      assert.equal(media.meta.original.width, 320);
      assert.equal(media.meta.original.height, 240);
      assert.equal(media.meta.size, "320x240");
      assert.ok(media.meta.duration > 0.5 && media.meta.duration < 2, String(media.meta.duration));
      assert.deepEqual(media.meta.small, {
        width: 320,
        height: 240,
        size: "320x240",
        aspect: 4 / 3,
      });
      const file = await fetchFile(instance, media.url);
      assert.equal(file.res.headers.get("content-type"), "video/mp4");
      assert.equal(new TextDecoder().decode(file.bytes.subarray(4, 8)), "ftyp");
    }
  } finally {
    await instance.close({ destroy: true });
  }
});
