/**
 * The remote media cache over HTTP, on object storage (fauxqs): a fake peer
 * delivers a note with an image, a video and an emoji from an actor with an
 * avatar and a header. The worker copies the attachments and the emoji at
 * receipt (tests/media/remote_cache_receipt_test.ts says more); once
 * `media remove` pruned the attachments' copies, and for avatars and
 * headers, the API never hands out the peer's URLs (only in `remote_url`):
 * it gives signed /media_proxy URLs, which fetch the file again once (five
 * concurrent requests, one download), store it under `cache/` in the bucket
 * and answer 302 to our copy; the entities then point at the copy. Bad signatures are 404 and fetch nothing. Hostile files (HTML as
 * PNG, an emoji over its limit, an endless avatar, too many redirects) are
 * not cached, answer 404 and are not tried again at once. A replaced avatar
 * forgets the old copy. A reject_media block forgets the domain's copies;
 * once lifted, the proxy fetches an emoji again.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { startInstance, test, type TestInstance } from "../harness.ts";
import { AS, PUBLIC, publicNoteCreate, startFakePeer, statusOf } from "../fixtures/fake_peer.ts";
import { storedStatus } from "../fixtures/federation.ts";
import { domainRuleSeen, eventually } from "../fixtures/wait.ts";
import { callJson } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { startS3Server } from "../fixtures/s3_server.ts";
import { accounts, customEmojis, mediaAttachments } from "../../db/schema/mod.ts";
import { runAdminCommand } from "../../admin/commands.ts";
import { removeDiscardedMedia } from "../../actors/media/discarded.ts";
import { fakeMp4, image } from "./helpers.ts";

const SIG = /\?sig=[\w-]{22}$/;

test("remote media are served through the signed media proxy and cached in the bucket", async (t) => {
  const s3 = await startS3Server();
  const bucket = await s3.bucket();
  const instance = await startInstance({ env: bucket.env });
  const peer = await startFakePeer();
  const send = (request: Request) => instance.request(request.url, request);
  const inbox = `${instance.origin}/inbox`;
  const db = instance.rookery.ctx.database.db;
  try {
    const reader = await createUser(instance, "reader");
    const png = await image("png", 120, 90);
    const serveBytes = (path: string, bytes: Uint8Array<ArrayBuffer>, type = "image/png") =>
      peer.route(path, () => new Response(bytes, { headers: { "Content-Type": type } }));
    serveBytes("/photo.png", png);
    serveBytes("/clip.mp4", fakeMp4(), "video/mp4");
    serveBytes("/avatar.png", await image("png", 64, 64));
    serveBytes("/header.png", await image("png", 300, 100));
    serveBytes("/blob.png", await image("png", 32, 32));
    serveBytes("/page.png", new TextEncoder().encode("<html><body>hi</body></html>"));
    serveBytes("/huge-emoji.png", new Uint8Array(300 * 1024));
    for (let i = 0; i < 5; i++) {
      peer.route(
        `/hop${i}.png`,
        () => new Response(null, { status: 302, headers: { Location: `/hop${i + 1}.png` } }),
      );
    }
    serveBytes("/hop5.png", png);
    const actor = peer.publishActor("painter", {
      icon: { type: "Image", mediaType: "image/png", url: `${peer.origin}/avatar.png` },
      image: { type: "Image", mediaType: "image/png", url: `${peer.origin}/header.png` },
    });
    let serial = 0;
    const create = (extra: Record<string, unknown>) =>
      publicNoteCreate(actor, `${actor}/notes/${++serial}`, {
        content: `note ${serial}`,
        ...extra,
      });
    const doc = (url: string, mediaType = "image/png") => ({
      type: "Document",
      mediaType,
      url: `${peer.origin}${url}`,
    });
    const emojiTag = (name: string, url: string) => ({
      type: "Emoji",
      id: `${peer.origin}/emoji/${name}`,
      name: `:${name}:`,
      icon: { type: "Image", mediaType: "image/png", url: `${peer.origin}${url}` },
    });
    const deliver = async (activity: ReturnType<typeof create>) => {
      const res = await peer.deliver(inbox, activity, { keyId: `${actor}#main-key`, send });
      assert.equal(await statusOf(res), 202);
      return await eventually("the note", () => storedStatus(instance, activity.object.id));
    };
    const note = create({
      content: "look :blob:",
      attachment: [doc("/photo.png"), doc("/clip.mp4", "video/mp4")],
      tag: [emojiTag("blob", "/blob.png")],
    });
    const stored = await deliver(note);
    const adminEnv = { db, config: instance.rookery.ctx.config, media: instance.rookery.ctx.media };
    await eventually("the copies made at receipt", async () => {
      const rows = await db.select().from(mediaAttachments)
        .where(eq(mediaAttachments.statusId, stored.id));
      const [blob] = await db.select().from(customEmojis).where(eq(customEmojis.shortcode, "blob"));
      return rows.length === 2 && rows.every((r) => r.filePath) && blob?.filePath;
    });
    assert.deepEqual(["/photo.png", "/clip.mp4", "/blob.png"].map((p) => peer.hits(p)), [1, 1, 1]);
    // Pruned (tootctl's media remove): the attachments are fetched again on demand.
    const pruned = await runAdminCommand(adminEnv, ["media", "remove", "--days", "0"]);
    assert.equal(pruned.exitCode, 0, pruned.stderr);
    assert.deepEqual(await bucket.keys("cache/media_attachments/"), []);
    const show = async () =>
      (await callJson(instance, reader, "GET", `/api/v1/statuses/${stored.id}`)).body;
    const proxyGet = (url: string) => fetchManual(instance, url);

    await t.step("after pruning, the API gives signed proxy URLs, never the peer's", async () => {
      const body = await show();
      const [photo, clip] = body.media_attachments;
      assert.match(photo.url, new RegExp(`^${instance.origin}/media_proxy/${photo.id}/original`));
      assert.match(photo.url, SIG);
      assert.match(photo.preview_url, new RegExp(`/media_proxy/${photo.id}/small\\?sig=`));
      assert.equal(photo.remote_url, `${peer.origin}/photo.png`);
      assert.match(clip.url, /\/media_proxy\/\d+\/original\?sig=/);
      assert.equal(clip.preview_url, null);
      assert.match(body.account.avatar, /\/media_proxy\/accounts\/\d+\/avatar\?sig=/);
      assert.match(body.account.header, /\/media_proxy\/accounts\/\d+\/header\?sig=/);
      // The emoji's copy made at receipt stays (media remove prunes attachments only).
      assert.match(body.emojis[0].url, /\/system\/cache\/custom_emojis\/images\//);
      const shown = [
        ...body.media_attachments.flatMap((m: any) => [m.url, m.preview_url]),
        body.account.avatar,
        body.account.avatar_static,
        body.account.header,
        body.account.header_static,
        body.emojis[0].url,
        body.emojis[0].static_url,
      ];
      for (const url of shown) {
        assert.ok(url == null || !url.startsWith(peer.origin), `${url} is the peer's`);
      }
      assert.equal(peer.hits("/photo.png"), 1, "nothing fetched again before it is looked at");
    });

    await t.step("a missing or wrong signature is 404 and fetches nothing", async () => {
      const { url } = (await show()).media_attachments[0];
      const unsigned = url.replace(/\?sig=.*$/, "");
      assert.equal((await proxyGet(unsigned)).status, 404);
      assert.equal((await proxyGet(`${unsigned}?sig=AAAAAAAAAAAAAAAAAAAAAA`)).status, 404);
      // The signature of another variant does not open this one.
      const small = (await show()).media_attachments[0].preview_url;
      assert.equal((await proxyGet(`${unsigned}?sig=${small.split("sig=")[1]}`)).status, 404);
      assert.equal(peer.hits("/photo.png"), 1);
    });

    await t.step("five concurrent looks: one download, 302 to the copy in the bucket", async () => {
      const { url } = (await show()).media_attachments[0];
      const answers = await Promise.all([...Array(5)].map(() => proxyGet(url)));
      const targets = new Set(answers.map((r) => r.headers.get("location")));
      assert.deepEqual(answers.map((r) => r.status), [302, 302, 302, 302, 302]);
      assert.equal(targets.size, 1);
      assert.equal(answers[0].headers.get("access-control-allow-origin"), "*");
      const location = [...targets][0]!;
      assert.match(location, /\/system\/cache\/media_attachments\/files\/[\d/]+\/original-/);
      assert.equal(peer.hits("/photo.png"), 2);
      const file = await instance.request(location);
      assert.equal(file.status, 200);
      assert.equal(file.headers.get("content-type"), "image/png");
      assert.equal(file.headers.get("access-control-allow-origin"), "*");
      await file.body?.cancel();
      const keys = await bucket.keys("cache/media_attachments/");
      assert.equal(keys.length, 2, `original and small: ${keys}`);
      const body = await show();
      assert.equal(body.media_attachments[0].url, location);
      assert.match(body.media_attachments[0].preview_url, /\/system\/cache\/.*\/small-/);
      assert.equal(body.media_attachments[0].remote_url, `${peer.origin}/photo.png`);
    });

    await t.step("video, avatar and header are cached on their first look", async () => {
      const body = await show();
      for (const url of [body.media_attachments[1].url, body.account.avatar, body.account.header]) {
        const res = await proxyGet(url);
        assert.equal(res.status, 302, url);
        const copy = await instance.request(res.headers.get("location")!);
        assert.equal(copy.status, 200, res.headers.get("location")!);
        await copy.body?.cancel();
      }
      assert.equal(peer.hits("/blob.png"), 1, "one fetch for both emoji variants, at receipt");
      const after = await show();
      assert.match(after.account.avatar, /\/system\/cache\/accounts\/avatars\/\d+\//);
      assert.match(after.account.header, /\/system\/cache\/accounts\/headers\/\d+\//);
      assert.match(after.emojis[0].url, /\/system\/cache\/custom_emojis\/images\//);
      assert.match(after.media_attachments[1].url, /\/system\/cache\/.*\/original-.*\.mp4$/);
      assert.ok((await bucket.keys("cache/accounts/")).length === 2);
    });

    await t.step("hostile files are refused, recorded, and not tried again at once", async () => {
      const hostile = await deliver(create({
        content: "trouble :huge:",
        attachment: [doc("/page.png"), doc("/hop0.png")],
        tag: [emojiTag("huge", "/huge-emoji.png")],
      }));
      const body = (await callJson(instance, reader, "GET", `/api/v1/statuses/${hostile.id}`))
        .body;
      const [page, hops] = body.media_attachments;
      assert.equal((await proxyGet(page.url)).status, 404, "HTML served as image/png");
      assert.equal((await proxyGet(hops.url)).status, 404, "more than 3 redirects");
      assert.equal(peer.hits("/hop4.png"), 0, "the fourth redirect is not followed");
      assert.equal((await proxyGet(body.emojis[0].url)).status, 404, "emoji over 256 KiB");
      const [row] = await db.select().from(mediaAttachments)
        .where(eq(mediaAttachments.id, page.id));
      assert.ok(row.cacheFailedAt, "the failure is recorded");
      assert.equal(row.filePath, null);
      const [emoji] = await db.select().from(customEmojis)
        .where(eq(customEmojis.shortcode, "huge"));
      assert.ok(emoji.cacheFailedAt);
      const hits = peer.hits("/page.png");
      assert.equal((await proxyGet(page.url)).status, 404);
      assert.equal(peer.hits("/page.png"), hits, "not fetched again within ten minutes");
      assert.equal((await bucket.keys("cache/custom_emojis/")).length, 2, "only blob's files");
    });

    await t.step("a replaced avatar forgets the old copy; the new one is fetched", async () => {
      const [before] = await db.select().from(accounts).where(eq(accounts.uri, actor));
      assert.ok(before.avatarKey);
      serveBytes("/avatar2.png", await image("png", 48, 48));
      peer.publishActor("painter", {
        icon: { type: "Image", mediaType: "image/png", url: `${peer.origin}/avatar2.png` },
        image: { type: "Image", mediaType: "image/png", url: `${peer.origin}/header.png` },
      });
      const update = {
        "@context": AS,
        id: `${actor}#update-${++serial}`,
        type: "Update",
        actor,
        to: [PUBLIC],
        object: peer.documentOf("/users/painter"),
      };
      const res = await peer.deliver(inbox, update, { keyId: `${actor}#main-key`, send });
      assert.equal(await statusOf(res), 202);
      const after = await eventually("the new avatar URL", async () => {
        const [row] = await db.select().from(accounts).where(eq(accounts.uri, actor));
        return row.avatarRemoteUrl === `${peer.origin}/avatar2.png` ? row : null;
      });
      assert.equal(after.avatarKey, null);
      assert.equal(after.headerKey, before.headerKey, "the unchanged header keeps its copy");
      const avatar = (await show()).account.avatar;
      assert.match(avatar, /\/media_proxy\/accounts\/\d+\/avatar\?sig=/);
      assert.equal((await proxyGet(avatar)).status, 302);
      assert.equal(peer.hits("/avatar2.png"), 1);
      // Discarded after the update's commit; the hourly sweep deletes it (run now).
      await removeDiscardedMedia(db, instance.rookery.ctx.media);
      assert.equal(await bucket.has(before.avatarKey!), false, "the old copy is gone");
    });

    await t.step("reject_media forgets the domain's copies; the proxy refuses it", async () => {
      const domain = new URL(peer.origin).host;
      const blocked = await runAdminCommand(adminEnv, [
        "domain",
        "block",
        domain,
        "--severity",
        "noop",
        "--reject-media",
      ]);
      assert.equal(blocked.exitCode, 0, blocked.stderr);
      await domainRuleSeen(instance.rookery.ctx.core.domainRules, domain);
      const [row] = await db.select().from(mediaAttachments)
        .where(eq(mediaAttachments.remoteUrl, `${peer.origin}/photo.png`));
      assert.deepEqual([row.filePath, row.previewPath, row.cachedAt], [null, null, null]);
      const [account] = await db.select().from(accounts).where(eq(accounts.uri, actor));
      assert.deepEqual([account.avatarKey, account.headerKey], [null, null]);
      const body = await show();
      const hits = peer.hits("/clip.mp4");
      assert.equal((await proxyGet(body.media_attachments[1].url)).status, 404);
      assert.equal(peer.hits("/clip.mp4"), hits, "nothing fetched from a reject_media domain");
      await eventually("the copies deleted", async () => {
        // The hourly sweep of discarded files, run now.
        await removeDiscardedMedia(db, instance.rookery.ctx.media);
        return (await bucket.keys("cache/")).length === 0;
      });
    });

    await t.step(
      "once the block is lifted, the emoji is fetched again on its first look",
      async () => {
        const lifted = await runAdminCommand(adminEnv, [
          "domain",
          "unblock",
          new URL(peer.origin).host,
        ]);
        assert.equal(lifted.exitCode, 0, lifted.stderr);
        await domainRuleSeen(
          instance.rookery.ctx.core.domainRules,
          new URL(peer.origin).host,
          false,
        );
        const [emoji] = (await show()).emojis;
        assert.match(emoji.url, /\/media_proxy\/emojis\/\d+\/original\?sig=/);
        assert.match(emoji.static_url, /\/media_proxy\/emojis\/\d+\/static\?sig=/);
        const hits = peer.hits("/blob.png");
        const answers = await Promise.all([emoji.url, emoji.static_url].map(proxyGet));
        assert.deepEqual(answers.map((r) => r.status), [302, 302]);
        assert.equal(peer.hits("/blob.png"), hits + 1, "one fetch for both variants");
        const copy = await instance.request(answers[0].headers.get("location")!);
        assert.equal(copy.status, 200);
        await copy.body?.cancel();
        assert.equal((await bucket.keys("cache/custom_emojis/")).length, 2);
      },
    );
  } finally {
    await peer.close();
    await instance.close({ destroy: true });
    await s3.stop();
  }
});

/** A GET that does not follow redirects. */
async function fetchManual(instance: TestInstance, url: string) {
  const res = await instance.request(url, { redirect: "manual" });
  await res.body?.cancel();
  return res;
}
