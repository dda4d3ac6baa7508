/**
 * The archive export of the settings pages (issue 20), over HTTP and in
 * Chromium, on one instance shared by the file's tests:
 * - a user with posts (one with an image, one followers-only, one deleted),
 *   a boost, a like, a bookmark and an avatar requests the archive; the
 *   queued job builds it; the zip downloads and, read with fflate, holds
 *   outbox.json (the Create and Announce documents the outbox collection
 *   federates, with the same ids; the attachment's url is its path in the
 *   zip), the image's bytes, likes.json, bookmarks.json, actor.json with the
 *   avatar beside it; the owner gets a mail with the download link;
 * - a second request within the week: 422 and nothing recorded;
 * - another user's archive, an unknown or malformed id: 404; no session:
 *   the sign-in form; a POST without the form token: 403;
 * - a job that fails leaves a failed archive with no file, which does not
 *   count against the week;
 * - the purge deletes expired archives with their files, fails lost ones
 *   and removes stray files;
 * - the page passes axe with no serious violation; screenshots at phone and
 *   desktop width in tests/artifacts/web/<db>/.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { unzipSync } from "fflate";
import { backups, favourites, statuses } from "../../db/schema/mod.ts";
import { newId } from "../../db/ids.ts";
import { afterAll, DB_KIND, startInstance, test } from "../harness.ts";
import { ok, postStatus } from "../fixtures/api.ts";
import { createUser, TEST_PASSWORD } from "../fixtures/users.ts";
import { browserTest, signInWithForm } from "../fixtures/browser.ts";
import { eventually } from "../fixtures/wait.ts";
import { includes, signInOverHttp } from "../admin_web/http_session.ts";
import { authed, form, image, upload, waitProcessed } from "../media/helpers.ts";
import {
  archiveFile,
  archivesFolder,
  ArchiveTooSoon,
  partFile,
  purgeArchives,
  requestArchive,
} from "../../actors/import_export/archive.ts";
import { ARCHIVE_PAGE, runArchive } from "../../jobs/archive_export.ts";
import { axeFindings } from "./page_checks.ts";

type Json = Record<string, any>;
const AP_ACCEPT = "application/activity+json";

const instance = await startInstance({ listen: true });
afterAll(() => instance.close({ destroy: true }));
const db = instance.rookery.ctx.database.db;
const dataDir = instance.dataDir;

const alice = await createUser(instance, "alice");
const bob = await createUser(instance, "bob");
const carol = await createUser(instance, "carol");

// alice's content, made through the API.
const png = await image("png", 30, 20);
const uploaded = await upload(
  instance,
  alice.token,
  form({ bytes: png, type: "image/png" }, { description: "A red block" }),
);
const mediaId = (await uploaded.json()).id as string;
await (await waitProcessed(instance, alice.token, mediaId)).body?.cancel();
const withMedia = await postStatus(instance, alice, "A picture of a block", {
  media_ids: [mediaId],
});
const plain = await postStatus(instance, alice, "Just some words");
const secret = await postStatus(instance, alice, "For my followers", { visibility: "private" });
const deleted = await postStatus(instance, alice, "Regrettable");
await ok(instance, alice, "DELETE", `/api/v1/statuses/${deleted.id}`);
const bobLiked = await postStatus(instance, bob, "Bob likes knitting");
const bobMarked = await postStatus(instance, bob, "Bob keeps notes");
const boost = await ok(instance, alice, "POST", `/api/v1/statuses/${bobLiked.id}/reblog`);
await ok(instance, alice, "POST", `/api/v1/statuses/${bobLiked.id}/favourite`);
await ok(instance, alice, "POST", `/api/v1/statuses/${bobMarked.id}/bookmark`);
const avatarForm = new FormData();
avatarForm.set("avatar", new File([await image("png", 60, 60)], "me.png", { type: "image/png" }));
const credentials = await authed(instance, alice.token, "/api/v1/accounts/update_credentials", {
  method: "PATCH",
  body: avatarForm,
});
assert.equal(credentials.status, 200);
const avatarUrl = (await credentials.json()).avatar as string;

async function bytesOf(url: string): Promise<Uint8Array> {
  const res = await instance.request(url);
  assert.equal(res.status, 200, url);
  return new Uint8Array(await res.arrayBuffer());
}

/** The archive rows of a user. */
const archivesOf = (userId: string) => db.select().from(backups).where(eq(backups.userId, userId));

async function waitBuilt(userId: string) {
  return await eventually("the archive is built", async () => {
    const rows = await archivesOf(userId);
    const row = rows.find((r) => r.state === "done" || r.state === "failed");
    return row ?? null;
  }, 60_000);
}

test("settings archive: request, build, download, refuse, expire", async (t) => {
  const session = await signInOverHttp(instance, "alice", "/settings/archive");
  let archiveId = "";
  let files: Record<string, Uint8Array> = {};

  await t.step("the page offers the request; the request queues the build", async () => {
    const page = await session.get("/settings/archive");
    assert.equal(page.status, 200);
    const html = await page.text();
    includes(html, "Request your archive</button>");
    includes(html, 'action="/settings/archive"');
    const res = await session.post("/settings/archive");
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/settings/archive?notice=requested");
    await res.body?.cancel();
    const row = await waitBuilt(alice.userId);
    assert.equal(row.state, "done");
    assert.ok(row.fileKey && /^archive-\d{14}-[0-9a-f]{32}\.zip$/.test(row.fileKey));
    archiveId = row.id;
    const after = await (await session.get("/settings/archive?notice=requested")).text();
    includes(after, "being prepared");
    includes(after, `href="/settings/archives/${row.id}/download"`);
    includes(after, `data-state="done"`);
    includes(after, "You can request your next archive from");
    assert.ok(!after.includes("Request your archive</button>"), "no button within the week");
  });

  await t.step("the zip downloads and holds what Mastodon's archive holds", async () => {
    const res = await session.get(`/settings/archives/${archiveId}/download`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/zip");
    includes(res.headers.get("content-disposition")!, 'attachment; filename="archive-');
    const zip = new Uint8Array(await res.arrayBuffer());
    const [row] = await archivesOf(alice.userId);
    assert.equal(zip.length, row.size);
    files = unzipSync(zip);
    const names = Object.keys(files);
    for (const name of ["outbox.json", "likes.json", "bookmarks.json", "actor.json"]) {
      assert.ok(names.includes(name), `${name} in ${names}`);
    }
    const read = (name: string): Json => JSON.parse(new TextDecoder().decode(files[name]));

    const outbox = read("outbox.json");
    assert.equal(outbox.type, "OrderedCollection");
    assert.equal(outbox.id, "outbox.json");
    const items: Json[] = outbox.orderedItems;
    assert.equal(outbox.totalItems, items.length);
    // Every status of alice but the deleted one, oldest first.
    assert.deepEqual(items.map((i) => i.id), [
      `${withMedia.uri}/activity`,
      `${plain.uri}/activity`,
      `${secret.uri}/activity`,
      boost.uri,
    ]);
    const [create, , followersOnly, announce] = items;
    assert.equal(create.type, "Create");
    assert.equal(create.actor, `${instance.origin}/users/alice`);
    assert.equal(create.object.id, withMedia.uri);
    assert.equal(create.object.type, "Note");
    includes(create.object.content, "A picture of a block");
    assert.equal(followersOnly.object.id, secret.uri);
    assert.deepEqual([followersOnly.to].flat(), [`${instance.origin}/users/alice/followers`]);
    assert.equal(announce.type, "Announce");
    assert.equal(announce.object, bobLiked.uri);

    // The attachment's url is the path of its file in the zip, and the file is the original.
    const [attachment] = [create.object.attachment].flat();
    const original = withMedia.media_attachments[0].url as string;
    assert.equal(attachment.url, new URL(original).pathname.replace(/^\/system\//, ""));
    assert.match(attachment.url, /^media_attachments\/files\/[\d/]+\/original-[0-9a-f]{16}\.png$/);
    assert.deepEqual(files[attachment.url], await bytesOf(original));
    assert.equal(attachment.name, "A red block");

    // The same documents the server federates: the outbox collection's items.
    const get = async (path: string) =>
      await (await instance.request(path, { headers: { Accept: AP_ACCEPT } })).json();
    const collection = await get("/users/alice/outbox");
    const page = await get(collection.first);
    const served = new Map<string, Json>(
      [page.orderedItems].flat().map((item: Json) => [item.id, item]),
    );
    assert.ok(!served.has(`${secret.uri}/activity`), "the collection shows public posts only");
    for (const item of [create, items[1], announce]) {
      const federated = structuredClone(served.get(item.id));
      assert.ok(federated, `${item.id} is federated`);
      for (const a of [federated.object?.attachment ?? []].flat()) {
        a.url = new URL(a.url).pathname.replace(/^\/system\//, "");
      }
      // Each item, @context included, as the collection serves it.
      assert.deepEqual(item, federated);
    }
    // And the Note at the status's id.
    const note = await get(withMedia.uri);
    assert.equal(note.id, create.object.id);
    assert.equal(note.content, create.object.content);

    assert.deepEqual(read("likes.json").orderedItems, [bobLiked.uri]);
    assert.deepEqual(read("bookmarks.json").orderedItems, [bobMarked.uri]);

    const actor = read("actor.json");
    assert.equal(actor.id, `${instance.origin}/users/alice`);
    assert.equal(actor.preferredUsername, "alice");
    assert.equal(actor.outbox, "outbox.json");
    assert.equal(actor.likes, "likes.json");
    assert.equal(actor.bookmarks, "bookmarks.json");
    assert.match(actor.icon.url, /^avatar\.(png|jpg|webp)$/);
    assert.deepEqual(files[actor.icon.url], await bytesOf(avatarUrl));
    assert.equal(actor.image, undefined, "no header: none in the archive");
  });

  await t.step("the owner gets a mail with the download link", async () => {
    const mails: string[] = [];
    for await (const entry of Deno.readDir(join(dataDir, "mail"))) {
      mails.push(await Deno.readTextFile(join(dataDir, "mail", entry.name)));
    }
    const mail = mails.find((m) => m.includes("archive is ready"));
    assert.ok(mail, "a mail about the archive");
    includes(mail, "To: alice@example.com");
    includes(
      mail.replace(/=\r?\n/g, ""),
      `${instance.origin}/settings/archives/${archiveId}/download`,
    );
  });

  await t.step("a second request within the week is refused", async () => {
    const res = await session.post("/settings/archive");
    assert.equal(res.status, 422);
    const html = await res.text();
    includes(html, 'role="alert"');
    includes(html, "one archive a week");
    assert.equal((await archivesOf(alice.userId)).length, 1, "nothing recorded");
    // Requests at once: one passes, the others are refused (the user's row is locked first).
    const gina = await createUser(instance, "gina");
    const outcomes = await Promise.allSettled(
      Array.from({ length: 4 }, () => requestArchive(db, gina.userId)),
    );
    assert.equal(outcomes.filter((o) => o.status === "fulfilled").length, 1);
    for (const o of outcomes) {
      if (o.status === "rejected") assert.ok(o.reason instanceof ArchiveTooSoon, `${o.reason}`);
    }
    assert.equal((await archivesOf(gina.userId)).length, 1);
  });

  await t.step("someone else's archive, or no such id: 404; no session, no token", async () => {
    const bobSession = await signInOverHttp(instance, "bob", "/settings/archive");
    for (const id of [archiveId, "99999999999", "abc", "1%2F..%2F.."]) {
      const res = await bobSession.get(`/settings/archives/${id}/download`);
      assert.equal(res.status, 404, id);
      assert.notEqual(res.headers.get("content-type"), "application/zip");
      await res.body?.cancel();
    }
    const bobPage = await (await bobSession.get("/settings/archive")).text();
    assert.ok(!bobPage.includes(archiveId), "bob's page lists none of alice's");
    const anonymous = await instance.request(`/settings/archives/${archiveId}/download`, {
      redirect: "manual",
    });
    assert.equal(anonymous.status, 303);
    assert.equal(
      anonymous.headers.get("location"),
      `/auth/sign_in?redirect_to=${encodeURIComponent(`/settings/archives/${archiveId}/download`)}`,
    );
    await anonymous.body?.cancel();
    const forged = await bobSession.post("/settings/archive", { authenticity_token: "forged" });
    assert.equal(forged.status, 403);
    await forged.body?.cancel();
    const noToken = await instance.request("/settings/archive", {
      method: "POST",
      headers: { cookie: bobSession.cookie, "content-type": "application/x-www-form-urlencoded" },
      body: "",
      redirect: "manual",
    });
    assert.equal(noToken.status, 403);
    await noToken.body?.cancel();
    assert.equal((await archivesOf(bob.userId)).length, 0, "nothing recorded for bob");
  });

  await t.step("a failed build keeps no file and does not count against the week", async () => {
    // A build that cannot write its file: a folder stands where the part file goes.
    const id = newId();
    await db.insert(backups).values({ id, userId: carol.userId });
    await Deno.mkdir(join(partFile(dataDir, id), "blocker"), { recursive: true });
    await runArchive(instance.rookery.ctx, { archiveId: id });
    const [row] = await archivesOf(carol.userId);
    assert.deepEqual([row.state, row.fileKey, row.size], ["failed", null, null]);
    assert.ok(row.processedAt);
    const carolSession = await signInOverHttp(instance, "carol", "/settings/archive");
    const page = await (await carolSession.get("/settings/archive")).text();
    includes(page, `data-state="failed"`);
    includes(page, "Failed");
    const download = await carolSession.get(`/settings/archives/${id}/download`);
    assert.equal(download.status, 404);
    await download.body?.cancel();
    // Running it again does nothing: a failed archive is never picked up again.
    await Deno.remove(partFile(dataDir, id), { recursive: true });
    await runArchive(instance.rookery.ctx, { archiveId: id });
    assert.equal((await archivesOf(carol.userId))[0].state, "failed");
    const again = await carolSession.post("/settings/archive");
    assert.equal(again.status, 303);
    await again.body?.cancel();
    await eventually("carol's new archive is built", async () => {
      const rows = await archivesOf(carol.userId);
      return rows.some((r) => r.state === "done") ? rows : null;
    }, 60_000);
  });

  await t.step("a build stopped with the worker is queued again, then built", async () => {
    const hank = await createUser(instance, "hank");
    await postStatus(instance, hank, "Still here");
    const id = newId();
    await db.insert(backups).values({ id, userId: hank.userId });
    const stop = new AbortController();
    stop.abort();
    await runArchive(instance.rookery.ctx, { archiveId: id }, stop.signal);
    await assert.rejects(Deno.stat(partFile(dataDir, id)), Deno.errors.NotFound);
    // The running worker takes the queued job again and builds it whole.
    const row = await waitBuilt(hank.userId);
    assert.deepEqual([row.id, row.state], [id, "done"]);
  });

  await t.step("a larger account is read a page at a time, nothing lost or repeated", async () => {
    const frank = await createUser(instance, "frank");
    const ids = Array.from({ length: 2 * ARCHIVE_PAGE + 31 }, () => newId());
    await db.insert(statuses).values(ids.map((id) => ({
      id,
      uri: `${instance.origin}/users/frank/statuses/${id}`,
      accountId: frank.id,
      local: true,
      content: `<p>post ${id}</p>`,
    })));
    const liked = ids.slice(0, ARCHIVE_PAGE + 7);
    await db.insert(favourites).values(
      liked.map((statusId) => ({ id: newId(), accountId: frank.id, statusId })),
    );
    const frankSession = await signInOverHttp(instance, "frank", "/settings/archive");
    const started = performance.now();
    const res = await frankSession.post("/settings/archive");
    assert.equal(res.status, 303);
    await res.body?.cancel();
    const row = await waitBuilt(frank.userId);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(
      `archive of ${ids.length} posts and ${liked.length} likes: ${row.size} bytes, ${seconds} s`,
    );
    assert.equal(row.state, "done");
    const zip = new Uint8Array(
      await (await frankSession.get(`/settings/archives/${row.id}/download`)).arrayBuffer(),
    );
    const unzipped = unzipSync(zip);
    const outbox = JSON.parse(new TextDecoder().decode(unzipped["outbox.json"]));
    assert.deepEqual(
      outbox.orderedItems.map((i: Json) => i.object.id),
      ids.map((id) => `${instance.origin}/users/frank/statuses/${id}`),
    );
    assert.equal(outbox.totalItems, ids.length);
    const likes = JSON.parse(new TextDecoder().decode(unzipped["likes.json"]));
    assert.equal(likes.orderedItems.length, liked.length);
    assert.equal(new Set(likes.orderedItems).size, liked.length);
  });

  await t.step("the purge deletes expired archives and their files, and strays", async () => {
    const [row] = await archivesOf(alice.userId);
    const file = archiveFile(dataDir, row.fileKey!);
    assert.ok((await Deno.stat(file)).isFile);
    const now = new Date();
    // A lost build (queued two days ago) and a stray part file two hours old.
    const lost = newId();
    await db.insert(backups).values({
      id: lost,
      userId: bob.userId,
      createdAt: new Date(now.getTime() - 2 * 86_400_000),
    });
    const stray = partFile(dataDir, newId());
    await Deno.writeFile(stray, new Uint8Array([1, 2, 3]));
    const twoHoursAgo = new Date(now.getTime() - 2 * 3_600_000);
    await Deno.utime(stray, twoHoursAgo, twoHoursAgo);
    const other = join(archivesFolder(dataDir), "notes.txt");
    await Deno.writeTextFile(other, "not ours");
    await Deno.utime(other, twoHoursAgo, twoHoursAgo);

    // Nothing has expired yet.
    let purge = await purgeArchives(db, dataDir, now);
    assert.deepEqual(purge, { expired: 0, stale: 1, orphans: 1 });
    assert.equal((await archivesOf(bob.userId))[0].state, "failed");
    await assert.rejects(Deno.stat(stray), Deno.errors.NotFound);
    assert.ok((await Deno.stat(other)).isFile, "a file that is not ours stays");

    // Eight days later, alice's archive has gone with its file.
    purge = await purgeArchives(db, dataDir, new Date(now.getTime() + 8 * 86_400_000));
    assert.ok(purge.expired >= 2, `${purge.expired} expired`);
    assert.equal((await archivesOf(alice.userId)).length, 0);
    await assert.rejects(Deno.stat(file), Deno.errors.NotFound);
    const res = await session.get(`/settings/archives/${row.id}/download`);
    assert.equal(res.status, 404);
    await res.body?.cancel();
    // And alice may ask again.
    const again = await session.post("/settings/archive");
    assert.equal(again.status, 303);
    await again.body?.cancel();
    await waitBuilt(alice.userId);
  });
});

const ARTIFACTS = new URL(`../artifacts/web/${DB_KIND}/`, import.meta.url).pathname;

browserTest(
  "settings archive in a browser: request, accessibility, screenshots",
  async (browser) => {
    await Deno.mkdir(ARTIFACTS, { recursive: true });
    const dave = await createUser(instance, "dave");
    await postStatus(instance, dave, "Something to keep");
    for (const width of [390, 1280]) {
      // Phone width in the dark scheme, desktop in the light one: axe checks both palettes.
      const context = await browser.newContext({
        viewport: { width, height: 900 },
        colorScheme: width === 390 ? "dark" : "light",
      });
      const tab = await context.newPage();
      await tab.goto(`${instance.origin}/settings/archive`);
      if (new URL(tab.url()).pathname !== "/settings/archive") {
        await signInWithForm(tab, "dave", TEST_PASSWORD);
      }
      assert.equal(new URL(tab.url()).pathname, "/settings/archive");
      if (width === 390) {
        // The first visit asks for the archive with the button, as a person would.
        await Promise.all([tab.waitForNavigation(), tab.click(".archive-form button")]);
        assert.equal(await tab.getAttribute("p.notice", "role"), "status");
        await waitBuilt(dave.userId);
        await tab.reload();
      }
      assert.equal(await tab.locator(".archive-form").count(), 0, "one a week: no button now");
      includes((await tab.textContent("p.next"))!, "You can request your next archive from");
      assert.ok((await tab.textContent("tr[data-state=done] a"))!.startsWith("Download"));
      await tab.screenshot({ path: `${ARTIFACTS}settings_archive-${width}.png`, fullPage: true });
      const { violations, passes } = await axeFindings(tab);
      assert.ok(passes > 5, `axe ran ${passes} checks`);
      assert.deepEqual(violations, [], violations.join("\n"));
      await context.close();
    }
  },
);
