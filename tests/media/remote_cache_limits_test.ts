/**
 * The remote media cache's guards and its pruning, on the folder store:
 *
 * - without ALLOW_PRIVATE_ADDRESS, a remote file on a loopback or private
 *   address (by literal, by `localhost`, by redirect), a `file:` URL or our
 *   own origin is never requested: the proxy answers 404;
 * - a file over its limit (by `Content-Length`, or a body that never ends
 *   without one) is not stored; a server that does not answer within
 *   FETCH_TIMEOUT is cut off: 502, and not tried again at once;
 * - MEDIA_CACHE_RETENTION_PERIOD: the worker deletes the copies of remote
 *   attachments and card images cached longer ago, keeps avatars; the API
 *   points at the proxy again, which fetches anew;
 * - `media usage`, `media remove --prune-profiles` and `preview_cards
 *   remove` through the admin commands; `media remove-orphans` over `cache/`;
 * - a link card refreshed with another image forgets the copy of the old one;
 * - public media answers (copies, placeholders) carry
 *   `Access-Control-Allow-Origin: *` for web clients on other origins.
 */
import assert from "node:assert/strict";
import { eq, sql } from "drizzle-orm";
import { startInstance, test, type TestInstance } from "../harness.ts";
import { startFakePeer } from "../fixtures/fake_peer.ts";
import { eventually } from "../fixtures/wait.ts";
import { callJson } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { insertRemoteAccount } from "../discovery/helpers.ts";
import { newId } from "../../db/ids.ts";
import { accounts, mediaAttachments, previewCards, statuses } from "../../db/schema/mod.ts";
import { addressPolicy, dnsResolver } from "../../actors/net/public_fetch.ts";
import { runAdminCommand } from "../../admin/commands.ts";
import { image } from "./helpers.ts";
import { storedFile } from "../fixtures/media.ts";
import { refreshLinkCard } from "../../jobs/link_cards/refresh.ts";
import { newCardImageKey } from "../../actors/media/store/keys.ts";

const CDN = "cdn.rookery-cache.test";

/** A remote account's public status holding one attachment of `remoteUrl`; returns its ids. */
async function remoteMedia(instance: TestInstance, accountId: string, remoteUrl: string) {
  const { db } = instance.rookery.ctx.database;
  const statusId = newId();
  await db.insert(statuses).values({
    id: statusId,
    uri: `https://remote.invalid/statuses/${statusId}`,
    accountId,
    local: false,
    visibility: "public",
    content: "<p>media</p>",
    text: "media",
  });
  const id = newId();
  await db.insert(mediaAttachments).values({ id, accountId, statusId, type: "image", remoteUrl });
  return { statusId, id };
}

async function get(instance: TestInstance, url: string) {
  const res = await instance.request(url, { redirect: "manual" });
  await res.body?.cancel();
  return res;
}

test("private addresses, sizes and slow servers", async (t) => {
  const originalLookup = dnsResolver.lookup;
  const originalPolicy = addressPolicy.isPublic;
  const peer = await startFakePeer();
  const instance = await startInstance({
    env: { ALLOW_PRIVATE_ADDRESS: "false", FETCH_TIMEOUT: "2" },
  });
  const urls = instance.rookery.ctx.mediaUrls;
  const port = new URL(peer.origin).port;
  try {
    const png = await image("png", 40, 40);
    peer.route(
      "/secret.png",
      () => new Response(png, { headers: { "Content-Type": "image/png" } }),
    );
    const remote = await insertRemoteAccount(instance, "far", "far.example");

    await t.step("loopback, private, file: and our own URLs are never requested", async () => {
      const targets = [
        `http://127.0.0.1:${port}/secret.png`,
        `http://[::1]:${port}/secret.png`,
        `http://localhost:${port}/secret.png`,
        `http://10.1.2.3:${port}/secret.png`,
        "file:///etc/passwd",
        `${instance.origin}/avatars/original/missing.png`,
      ];
      for (const target of targets) {
        const { id } = await remoteMedia(instance, remote, target);
        const res = await get(
          instance,
          urls.proxy({ kind: "attachment", variant: "original" }, id),
        );
        assert.equal(res.status, 404, target);
      }
      assert.equal(peer.hits("/secret.png"), 0, "the loopback server saw nothing");
    });

    // From here one name resolves to the peer and only 127.0.0.1 counts as public.
    dnsResolver.lookup = (name) =>
      name === CDN ? Promise.resolve([{ address: "127.0.0.1", family: 4 }]) : originalLookup(name);
    addressPolicy.isPublic = (address, family) =>
      address === "127.0.0.1" || originalPolicy(address, family);
    const cdn = `http://${CDN}:${port}`;

    await t.step("a public name redirecting to a private address is refused", async () => {
      peer.route("/bounce.png", () =>
        new Response(null, {
          status: 302,
          headers: { Location: `http://10.0.0.7:${port}/secret.png` },
        }));
      const { id } = await remoteMedia(instance, remote, `${cdn}/bounce.png`);
      const res = await get(instance, urls.proxy({ kind: "attachment", variant: "original" }, id));
      assert.equal(res.status, 404);
      assert.equal(peer.hits("/bounce.png"), 1);
      assert.equal(peer.hits("/secret.png"), 0);
      // Through the pinned path the same file is fine (the guard works, not a blanket refusal).
      const fine = await remoteMedia(instance, remote, `${cdn}/secret.png`);
      const ok = await get(
        instance,
        urls.proxy({ kind: "attachment", variant: "original" }, fine.id),
      );
      assert.equal(ok.status, 302);
    });

    await t.step("oversized files are not stored", async () => {
      const limit = instance.rookery.ctx.config.limits.imageSizeLimit;
      peer.route(
        "/big.png",
        () => new Response(new Uint8Array(limit + 1), { headers: { "Content-Type": "image/png" } }),
      );
      const big = await remoteMedia(instance, remote, `${cdn}/big.png`);
      const res = await get(
        instance,
        urls.proxy({ kind: "attachment", variant: "original" }, big.id),
      );
      assert.equal(res.status, 404);
      // An avatar whose body never ends (no Content-Length): cut at 8 MiB.
      let sent = 0;
      peer.route("/endless.png", () =>
        new Response(
          new ReadableStream({
            pull(controller) {
              sent += 65536;
              controller.enqueue(new Uint8Array(65536));
            },
          }),
          { headers: { "Content-Type": "image/png" } },
        ));
      const endless = await insertRemoteAccount(instance, "endless", "far.example", {
        avatarRemoteUrl: `${cdn}/endless.png`,
      });
      const avatar = await get(
        instance,
        urls.proxy({ kind: "account", variant: "avatar" }, endless),
      );
      assert.equal(avatar.status, 404);
      assert.ok(sent < 64 * 1024 * 1024, `stopped reading (${sent} bytes sent)`);
      const [row] = await instance.rookery.ctx.database.db.select().from(accounts)
        .where(eq(accounts.id, endless));
      assert.ok(row.avatarFailedAt);
      assert.equal(row.avatarKey, null);
    });

    await t.step(
      "a server that does not answer is cut off: 502, then 404 for a while",
      async () => {
        peer.route("/slow.png", peer.stall());
        const slow = await remoteMedia(instance, remote, `${cdn}/slow.png`);
        const url = urls.proxy({ kind: "attachment", variant: "original" }, slow.id);
        assert.equal((await get(instance, url)).status, 502);
        assert.equal((await get(instance, url)).status, 404, "not tried again at once");
        assert.equal(peer.hits("/slow.png"), 1);
      },
    );
  } finally {
    dnsResolver.lookup = originalLookup;
    addressPolicy.isPublic = originalPolicy;
    await instance.close({ destroy: true });
    await peer.close();
  }
});

test("MEDIA_CACHE_RETENTION_PERIOD and the admin media commands", async (t) => {
  const peer = await startFakePeer();
  const instance = await startInstance({
    worker: false,
    env: { MEDIA_CACHE_RETENTION_PERIOD: "1" },
  });
  const { db } = instance.rookery.ctx.database;
  const { mediaUrls: urls, media, config } = instance.rookery.ctx;
  const env = { db, config, media };
  try {
    const reader = await createUser(instance, "reader");
    const png = await image("png", 60, 40);
    for (const path of ["/photo.png", "/card.png", "/avatar.png"]) {
      peer.route(path, () => new Response(png, { headers: { "Content-Type": "image/png" } }));
    }
    const remote = await insertRemoteAccount(instance, "far", "far.example", {
      avatarRemoteUrl: `${peer.origin}/avatar.png`,
    });
    const { statusId, id } = await remoteMedia(instance, remote, `${peer.origin}/photo.png`);
    const [card] = await db.insert(previewCards).values({
      id: newId(),
      url: "https://far.example/page",
      title: "A page",
      imageRemoteUrl: `${peer.origin}/card.png`,
    }).returning();
    const mediaUrl = urls.proxy({ kind: "attachment", variant: "original" }, id);
    const cardUrl = urls.proxy({ kind: "card", variant: "image" }, card.id);
    const avatarUrl = urls.proxy({ kind: "account", variant: "avatar" }, remote);
    for (const url of [mediaUrl, cardUrl, avatarUrl]) {
      assert.equal((await get(instance, url)).status, 302, url);
    }
    const [cached] = await db.select().from(mediaAttachments).where(eq(mediaAttachments.id, id));
    const [cachedCard] = await db.select().from(previewCards).where(eq(previewCards.id, card.id));
    assert.ok(cached.filePath?.startsWith("cache/") && cachedCard.imageKey?.startsWith("cache/"));

    await t.step("public media answers are readable across origins", async () => {
      for (const url of [urls.defaultAvatar, urls.defaultHeader, media.url(cached.filePath!)]) {
        const res = await instance.request(url);
        await res.body?.cancel();
        assert.equal(res.status, 200, url);
        assert.equal(res.headers.get("access-control-allow-origin"), "*", url);
      }
    });

    await t.step("media usage counts the copies", async () => {
      const run = await runAdminCommand(env, ["media", "usage"]);
      assert.equal(run.exitCode, 0, run.stderr);
      assert.match(run.stdout, /^Attachments: +[\d.]+ (?:bytes|KB) \(0 bytes local\)$/m);
      assert.match(run.stdout, /^Preview cards: +[\d.]+ (?:bytes|KB)$/m);
      assert.match(
        run.stdout,
        /^Cached remote: +[\d.]+ (?:bytes|KB) .*MEDIA_CACHE_RETENTION_PERIOD 1 days/m,
      );
    });

    await t.step("the worker prunes attachments and card images past the period", async () => {
      const old = sql`now() - interval '2 days'`;
      await db.update(mediaAttachments).set({ cachedAt: old }).where(eq(mediaAttachments.id, id));
      await db.update(previewCards).set({ imageCachedAt: old }).where(eq(previewCards.id, card.id));
      await db.update(accounts).set({ avatarCachedAt: old }).where(eq(accounts.id, remote));
      instance.rookery.startWorker();
      await eventually("the attachment pruned", async () => {
        const [row] = await db.select().from(mediaAttachments).where(eq(mediaAttachments.id, id));
        return row.filePath == null;
      });
      await eventually("the card image pruned", async () => {
        const [row] = await db.select().from(previewCards).where(eq(previewCards.id, card.id));
        return row.imageKey == null;
      });
      // The files go once each batch has committed.
      for (const key of [cached.filePath!, cached.previewPath!, cachedCard.imageKey!]) {
        await eventually(`${key} deleted`, async () => (await media.size(key)) === null);
      }
      const [account] = await db.select().from(accounts).where(eq(accounts.id, remote));
      assert.ok(account.avatarKey, "avatars are not pruned by the worker");
      const shown = await callJson(instance, reader, "GET", `/api/v1/statuses/${statusId}`);
      assert.equal(shown.body.media_attachments[0].url, mediaUrl);
      // A client holding the pruned copy's URL is sent to the proxy.
      const stale = await get(instance, media.url(cached.filePath!));
      assert.equal(stale.status, 302);
      assert.equal(stale.headers.get("location"), mediaUrl);
      const again = await get(instance, mediaUrl);
      assert.equal(again.status, 302);
      assert.equal(peer.hits("/photo.png"), 2, "fetched anew");
      assert.match(again.headers.get("location")!, /\/system\/cache\/media_attachments\//);
    });

    await t.step(
      "media remove-orphans takes stray copies under cache/, not live ones",
      async () => {
        const stray = newCardImageKey(newId(), "png");
        await media.put(stray, png, { contentType: "image/png" });
        const [row] = await db.select().from(mediaAttachments).where(eq(mediaAttachments.id, id));
        const hoursAgo = new Date(Date.now() - 2 * 3600_000);
        for (const key of [stray, row.filePath!, row.previewPath!]) {
          await Deno.utime(storedFile(instance.dataDir, key), hoursAgo, hoursAgo);
        }
        const run = await runAdminCommand(env, ["media", "remove-orphans"]);
        assert.equal(run.exitCode, 0, run.stderr);
        assert.match(run.stdout, new RegExp(`^removed ${stray}$`, "m"));
        assert.equal(await media.size(stray), null);
        assert.ok(await media.size(row.filePath!), "the live copy stays");
        assert.ok(await media.size(row.previewPath!), "its preview too");
      },
    );

    await t.step("a card refreshed with a new image forgets the old copy", async () => {
      let picture = "/card.png";
      peer.route("/page", () =>
        new Response(
          `<html><head><meta property="og:title" content="Page">` +
            `<meta property="og:image" content="${peer.origin}${picture}"></head></html>`,
          { headers: { "Content-Type": "text/html" } },
        ));
      peer.route(
        "/card2.png",
        () => new Response(png, { headers: { "Content-Type": "image/png" } }),
      );
      const posted = await callJson(instance, reader, "POST", "/api/v1/statuses", {
        status: `see ${peer.origin}/page`,
      });
      const first = await eventually("the card", async () => {
        const res = await callJson(instance, reader, "GET", `/api/v1/statuses/${posted.body.id}`);
        return res.body.card?.image ? res.body.card : null;
      });
      assert.equal((await get(instance, first.image)).status, 302);
      const [before] = await db.select().from(previewCards)
        .where(eq(previewCards.url, `${peer.origin}/page`));
      assert.ok(before.imageKey);
      picture = "/card2.png";
      await db.update(previewCards).set({ updatedAt: new Date(Date.now() - 365 * 86_400_000) })
        .where(eq(previewCards.id, before.id));
      await refreshLinkCard(instance.rookery.ctx, posted.body.id);
      const [after] = await db.select().from(previewCards).where(eq(previewCards.id, before.id));
      assert.equal(after.imageRemoteUrl, `${peer.origin}/card2.png`);
      assert.equal(after.imageKey, null, "the old copy is forgotten");
      assert.equal((await get(instance, first.image)).status, 302);
      assert.equal(peer.hits("/card2.png"), 1, "the new image is fetched");
    });

    await t.step("media remove --prune-profiles and preview_cards remove", async () => {
      assert.equal((await get(instance, cardUrl)).status, 302);
      const cards = await runAdminCommand(env, ["preview_cards", "remove", "--days", "0"]);
      assert.equal(cards.exitCode, 0, cards.stderr);
      assert.match(
        cards.stdout,
        /Removed 2 card images \([\d.]+ (?:bytes|KB)\) older than 0 days\./,
      );
      const dry = await runAdminCommand(env, [
        "media",
        "remove",
        "--prune-profiles",
        "--days",
        "0",
        "--dry-run",
      ]);
      assert.match(dry.stdout, /Visited 1 account and would remove profile media totalling/);
      assert.match(dry.stdout, /dry run: nothing changed/);
      const run = await runAdminCommand(env, [
        "media",
        "remove",
        "--prune-profiles",
        "--days",
        "0",
      ]);
      assert.equal(run.exitCode, 0, run.stderr);
      assert.match(run.stdout, /^removed cache\/accounts\/avatars\//m);
      const [account] = await db.select().from(accounts).where(eq(accounts.id, remote));
      assert.equal(account.avatarKey, null);
      assert.equal(account.avatarRemoteUrl, `${peer.origin}/avatar.png`, "the remote URL stays");
      const both = await runAdminCommand(env, [
        "media",
        "remove",
        "--prune-profiles",
        "--remove-headers",
      ]);
      assert.equal(both.exitCode, 2);
    });
  } finally {
    await instance.close({ destroy: true });
    await peer.close();
  }
});
