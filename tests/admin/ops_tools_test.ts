/**
 * Storage maintenance through the admin command line while the server runs
 * (admin socket): `media remove` drops cached remote files and the API falls
 * back to the media proxy's URL (remote_url unchanged), `statuses remove-orphans` deletes old remote
 * statuses nobody here interacted with and keeps the rest, --dry-run changes
 * nothing, and both print progress on stderr.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { eq, inArray } from "drizzle-orm";
import { join } from "node:path";
import {
  createTestDatabase,
  startInstance,
  test,
  TEST_DATABASE_URL,
  type TestInstance,
} from "../harness.ts";
import { openDatabase } from "../../db/connection.ts";
import {
  accounts,
  conversations,
  follows,
  homeFeed,
  mediaAttachments,
  mentions,
  statusEdits,
  statuses,
  statusSearch,
  statusTags,
  tagFollows,
  tags,
} from "../../db/schema/mod.ts";
import { newId } from "../../db/ids.ts";
import { writeAttachmentFile } from "../../actors/media/storage.ts";
import { storedFile } from "../fixtures/media.ts";
import { removeOrphanStatuses } from "../../jobs/maintenance/orphan_statuses.ts";
import { describeProgress, progressRenderer } from "../../admin/progress.ts";
import { createUser } from "../fixtures/users.ts";
import { call, ok, postStatus } from "../fixtures/api.ts";
import { cli, type CliTarget, expectCode } from "./cli.ts";

const DAY = 86_400_000;
const OLD = new Date(Date.now() - 200 * DAY);
const PNG = new Uint8Array(1234).fill(7);

async function remoteAccount(server: TestInstance, username: string): Promise<string> {
  const [row] = await server.rookery.ctx.database.db.insert(accounts).values({
    id: newId(),
    username,
    domain: "remote.example",
    uri: `https://remote.example/users/${username}`,
    fetchedAt: new Date(),
  }).returning({ id: accounts.id });
  return row.id;
}

async function remoteStatus(
  server: TestInstance,
  accountId: string,
  createdAt: Date,
  content = "<p>hello</p>",
): Promise<string> {
  const id = newId();
  await server.rookery.ctx.database.db.insert(statuses).values({
    id,
    uri: `https://remote.example/statuses/${id}`,
    url: `https://remote.example/@x/${id}`,
    accountId,
    local: false,
    visibility: "public",
    content,
    createdAt,
  });
  return id;
}

/** An attachment with a stored original and preview, as a media cache would leave it. */
async function storedMedia(
  server: TestInstance,
  values: { accountId: string; statusId?: string; remoteUrl?: string; createdAt: Date },
) {
  const id = newId();
  const { dataDir } = server.rookery.ctx.config;
  const store = server.rookery.ctx.media;
  const filePath = await writeAttachmentFile(store, id, "original", "png", PNG);
  const previewPath = await writeAttachmentFile(store, id, "small", "png", PNG);
  await server.rookery.ctx.database.db.insert(mediaAttachments).values({
    id,
    accountId: values.accountId,
    statusId: values.statusId ?? null,
    type: "image",
    filePath,
    previewPath,
    contentType: "image/png",
    remoteUrl: values.remoteUrl ?? null,
    createdAt: values.createdAt,
  });
  return {
    id,
    files: [storedFile(dataDir, filePath), storedFile(dataDir, previewPath)],
  };
}

test("admin media remove and statuses remove-orphans", async (t) => {
  const dataDir = await Deno.makeTempDir({ prefix: "rookery-ops-" });
  const server = await startInstance({ dataDir, memory: false, worker: false, adminSocket: true });
  const target: CliTarget = { dataDir, databaseUrl: server.databaseUrl };
  const db = server.rookery.ctx.database.db;
  try {
    const alice = await createUser(server, "alice");
    const bob = await remoteAccount(server, "bob");
    const carol = await remoteAccount(server, "carol"); // alice follows carol
    await db.insert(follows).values({ id: newId(), accountId: alice.id, targetAccountId: carol });

    // A local upload, old, on alice's status: never a candidate.
    const local = await storedMedia(server, { accountId: alice.id, createdAt: OLD });
    await postStatus(server, alice, "my picture", { media_ids: [local.id] });

    const orphan = await remoteStatus(server, bob, OLD);
    const orphanMedia = await storedMedia(server, {
      accountId: bob,
      statusId: orphan,
      remoteUrl: "https://remote.example/media/orphan.png",
      createdAt: OLD,
    });
    const favourited = await remoteStatus(server, bob, OLD);
    const favouritedMedia = await storedMedia(server, {
      accountId: bob,
      statusId: favourited,
      remoteUrl: "https://remote.example/media/kept.png",
      createdAt: OLD,
    });
    const bookmarked = await remoteStatus(server, bob, OLD);
    const repliedTo = await remoteStatus(server, bob, OLD);
    const recent = await remoteStatus(server, bob, new Date());
    const recentMedia = await storedMedia(server, {
      accountId: bob,
      statusId: recent,
      remoteUrl: "https://remote.example/media/recent.png",
      createdAt: new Date(),
    });
    const followed = await remoteStatus(server, carol, OLD);
    // An old orphan with a recently cached file: remove-orphans removes the file.
    const orphanWithFile = await remoteStatus(server, bob, OLD);
    const lateMedia = await storedMedia(server, {
      accountId: bob,
      statusId: orphanWithFile,
      remoteUrl: "https://remote.example/media/late.png",
      createdAt: new Date(),
    });
    // An old orphan in alice's home feed through a followed hashtag.
    const tagged = await remoteStatus(server, bob, OLD, "<p>#gardening</p>");
    const [tag] = await db.insert(tags).values({ id: newId(), name: "gardening" })
      .returning({ id: tags.id });
    await db.insert(tagFollows).values({ id: newId(), accountId: alice.id, tagId: tag.id });
    await db.insert(statusTags).values({ statusId: tagged, tagId: tag.id });
    await db.insert(homeFeed).values({ accountId: alice.id, statusId: tagged });

    // Kept for other reasons: boosted by alice, mentioning alice, reported by
    // her, and a remote reply in a thread where she replied.
    const boosted = await remoteStatus(server, bob, OLD);
    const mentioning = await remoteStatus(server, bob, OLD);
    await db.insert(mentions).values({ id: newId(), statusId: mentioning, accountId: alice.id });
    const reported = await remoteStatus(server, bob, OLD);
    const [thread] = await db.insert(conversations).values({ id: newId() })
      .returning({ id: conversations.id });
    const threadRoot = await remoteStatus(server, bob, OLD);
    const dave = await remoteAccount(server, "dave"); // nobody here follows dave
    const threadSibling = await remoteStatus(server, dave, OLD);
    await db.update(statuses).set({ conversationId: thread.id })
      .where(inArray(statuses.id, [threadRoot, threadSibling]));
    await postStatus(server, alice, "@bob@remote.example me too", { in_reply_to_id: threadRoot });
    await ok(server, alice, "POST", `/api/v1/statuses/${boosted}/reblog`);
    await ok(server, alice, "POST", "/api/v1/reports", {
      account_id: bob,
      status_ids: [reported],
      comment: "spam",
    });

    await ok(server, alice, "POST", `/api/v1/statuses/${favourited}/favourite`);
    await ok(server, alice, "POST", `/api/v1/statuses/${bookmarked}/bookmark`);
    await postStatus(server, alice, "@bob@remote.example indeed", { in_reply_to_id: repliedTo });

    const allFiles = [
      ...local.files,
      ...orphanMedia.files,
      ...favouritedMedia.files,
      ...recentMedia.files,
      ...lateMedia.files,
    ];

    await t.step("bad arguments are usage errors", async () => {
      expectCode(await cli(target, "media", "remove", "--days", "soon"), 2);
      const both = await cli(target, "media", "remove", "--prune-profiles", "--remove-headers");
      expectCode(both, 2);
      assert.match(both.stderr, /should not be specified simultaneously/);
      expectCode(await cli(target, "media", "remove", "--older-than", "soon"), 2);
      expectCode(await cli(target, "statuses", "remove-orphans", "--days", "-3"), 2);
    });

    await t.step("media remove --dry-run changes nothing", async () => {
      const run = await cli(target, "media", "remove", "--older-than", "30", "--dry-run");
      expectCode(run, 0);
      assert.match(run.stdout, /Would remove 4 files \(4\.8 KB\) of 2 remote attachments/);
      for (const file of allFiles) assert.ok(existsSync(file), file);
      const [row] = await db.select().from(mediaAttachments)
        .where(eq(mediaAttachments.id, favouritedMedia.id));
      assert.ok(row.filePath && row.previewPath);
    });

    await t.step("media remove drops old remote files; the API shows the proxy", async () => {
      const before = await ok(server, alice, "GET", `/api/v1/statuses/${favourited}`);
      assert.match(before.media_attachments[0].url, /^http:\/\/localhost.*\/system\//);

      const run = await cli(target, "media", "remove", "--older-than", "30");
      expectCode(run, 0);
      assert.match(run.stdout, /Removed 4 files \(4\.8 KB\) of 2 remote attachments/);
      assert.match(run.stdout, /^removed media_attachments\/files\/.*original-[0-9a-f]{16}\.png$/m);
      assert.match(run.stderr, /media remove: 2\/2 \(100%\).*done in/);

      for (const file of [...orphanMedia.files, ...favouritedMedia.files]) {
        assert.ok(!existsSync(file), `${file} still there`);
      }
      // The local upload and recent remote files stay.
      for (const file of [...local.files, ...recentMedia.files, ...lateMedia.files]) {
        assert.ok(existsSync(file), `${file} was removed`);
      }
      const [localRow] = await db.select().from(mediaAttachments)
        .where(eq(mediaAttachments.id, local.id));
      assert.ok(localRow.filePath && localRow.previewPath);

      const after = await ok(server, alice, "GET", `/api/v1/statuses/${favourited}`);
      const media = after.media_attachments[0];
      assert.equal(media.id, favouritedMedia.id);
      const proxy = `${server.origin}/media_proxy/${favouritedMedia.id}`;
      assert.match(media.url, new RegExp(`^${proxy}/original\\?sig=[\\w-]{22}$`));
      assert.match(media.preview_url, new RegExp(`^${proxy}/small\\?sig=[\\w-]{22}$`));
      assert.equal(media.remote_url, "https://remote.example/media/kept.png");

      // Nothing left to do: a second run frees nothing.
      const again = await cli(target, "media", "remove", "--older-than", "30");
      expectCode(again, 0);
      assert.match(again.stdout, /Removed 0 files \(0 bytes\) of 0 remote attachments/);
    });

    const removable = [orphan, orphanWithFile, tagged];
    const kept = [
      favourited,
      bookmarked,
      repliedTo,
      recent,
      followed,
      boosted,
      mentioning,
      reported,
      threadRoot,
      threadSibling,
    ];
    const present = async (ids: string[]) =>
      (await db.select({ id: statuses.id }).from(statuses).where(inArray(statuses.id, ids)))
        .map((r) => r.id).sort();

    // Remote attachments no status holds (a remote Delete or edit detached
    // them): removed, unless an edit history still shows one.
    let detached: Awaited<ReturnType<typeof storedMedia>>;
    let inHistory: Awaited<ReturnType<typeof storedMedia>>;

    await t.step("statuses remove-orphans --dry-run changes nothing", async () => {
      detached = await storedMedia(server, {
        accountId: bob,
        remoteUrl: "https://remote.example/media/detached.png",
        createdAt: OLD,
      });
      inHistory = await storedMedia(server, {
        accountId: bob,
        remoteUrl: "https://remote.example/media/history.png",
        createdAt: OLD,
      });
      await db.insert(statusEdits).values({
        id: newId(),
        statusId: favourited,
        accountId: bob,
        content: "<p>before the edit</p>",
        mediaAttachmentIds: [inHistory.id],
      });
      const run = await cli(target, "statuses", "remove-orphans", "--dry-run");
      expectCode(run, 0);
      assert.match(
        run.stdout,
        /Would remove 3 orphan remote statuses older than 90 days, with 2 attachments, and 1 detached remote attachment; 4 files \(4\.8 KB\)/,
      );
      for (const file of [...detached.files, ...inHistory.files]) assert.ok(existsSync(file));
      assert.deepEqual(await present([...removable, ...kept]), [...removable, ...kept].sort());
      for (const file of lateMedia.files) assert.ok(existsSync(file));
      // Batches of two cross batch edges and find the same.
      const store = server.rookery.ctx.media;
      const small = await removeOrphanStatuses(db, store, new Date(Date.now() - 90 * DAY), {
        dryRun: true,
        batchSize: 2,
      });
      assert.deepEqual(small, { statuses: 3, attachments: 2, files: 2, bytes: 2 * PNG.length });
      assert.deepEqual(await present([...removable, ...kept]), [...removable, ...kept].sort());
    });

    await t.step("statuses remove-orphans deletes orphans and keeps the rest", async () => {
      const searchBefore = await db.select().from(statusSearch)
        .where(eq(statusSearch.statusId, orphan));
      assert.equal(searchBefore.length, 1);

      const run = await cli(target, "statuses", "remove-orphans");
      expectCode(run, 0);
      assert.match(
        run.stdout,
        /Removed 3 orphan remote statuses older than 90 days, with 2 attachments, and 1 detached remote attachment; 4 files \(4\.8 KB\)/,
      );
      assert.match(run.stderr, /statuses remove-orphans: \d+\/\d+ \(100%\).*done in/);

      assert.deepEqual(await present(removable), []);
      assert.deepEqual(await present(kept), [...kept].sort());
      assert.equal(
        (await db.select().from(statusSearch).where(inArray(statusSearch.statusId, removable)))
          .length,
        0,
      );
      assert.equal(
        (await db.select().from(homeFeed).where(eq(homeFeed.statusId, tagged))).length,
        0,
      );
      assert.equal(
        (await db.select().from(mediaAttachments)
          .where(inArray(mediaAttachments.id, [orphanMedia.id, lateMedia.id]))).length,
        0,
      );
      for (const file of [...lateMedia.files, ...detached.files]) {
        assert.ok(!existsSync(file), `${file} still there`);
      }
      for (const file of inHistory.files) assert.ok(existsSync(file), `${file} was removed`);
      assert.deepEqual(
        (await db.select({ id: mediaAttachments.id }).from(mediaAttachments)
          .where(inArray(mediaAttachments.id, [detached.id, inHistory.id]))).map((r) => r.id),
        [inHistory.id],
      );
      for (const file of local.files) assert.ok(existsSync(file));
      assert.equal((await call(server, alice, "GET", `/api/v1/statuses/${orphan}`)).status, 404);
      await ok(server, alice, "GET", `/api/v1/statuses/${favourited}`);

      const again = await cli(target, "statuses", "remove-orphans");
      expectCode(again, 0);
      assert.match(again.stdout, /Removed 0 orphan remote statuses/);
    });
  } finally {
    await server.close({ destroy: true });
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
});

test("progress: a redrawn line on a terminal, plain lines otherwise", () => {
  const state = { label: "job", done: 50, total: 200, elapsedMs: 10_000, finished: false };
  assert.equal(describeProgress(state), "job: 50/200 (25%), 5/s, ETA 30s");
  const written: string[] = [];
  const stream = {
    writeSync(data: Uint8Array) {
      written.push(new TextDecoder().decode(data));
      return data.length;
    },
  };
  const tty = progressRenderer(stream, true);
  tty(state);
  tty({ ...state, done: 200, elapsedMs: 20_000, finished: true });
  assert.equal(written[0], "\rjob: [######..................] 50/200 (25%), 5/s, ETA 30s\x1b[K");
  assert.equal(
    written[1],
    "\rjob: [########################] 200/200 (100%), 10/s, done in 20s\x1b[K\n",
  );

  written.length = 0;
  const plain = progressRenderer(stream, false);
  plain({ ...state, done: 0 });
  plain(state); // within the interval: not printed
  plain({ ...state, done: 200, finished: true });
  assert.deepEqual(written, [
    "job: 0/200 (0%), -, ETA -\n",
    "job: 200/200 (100%), 20/s, done in 10s\n",
  ]);
});

test("statuses remove-orphans without a server opens the database itself", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "rookery-ops-direct-" });
  const database = TEST_DATABASE_URL ? await createTestDatabase() : null;
  const target: CliTarget = { dataDir, databaseUrl: database?.url ?? null };
  try {
    // The first run creates the database; there is nothing to remove yet.
    const empty = await cli(target, "statuses", "remove-orphans", "--days", "1");
    expectCode(empty, 0);
    assert.match(empty.stdout, /Removed 0 orphan remote statuses older than 1 days/);

    const opened = await openDatabase({
      databaseUrl: target.databaseUrl,
      pgliteDir: join(dataDir, "db"),
    });
    const ids: string[] = [];
    try {
      const [bob] = await opened.db.insert(accounts).values({
        id: newId(),
        username: "bob",
        domain: "remote.example",
        uri: "https://remote.example/users/bob",
        fetchedAt: new Date(),
      }).returning({ id: accounts.id });
      for (let i = 0; i < 3; i++) {
        const id = newId();
        ids.push(id);
        await opened.db.insert(statuses).values({
          id,
          uri: `https://remote.example/statuses/${id}`,
          accountId: bob.id,
          content: "<p>old</p>",
          createdAt: OLD,
        });
      }
    } finally {
      await opened.close();
    }

    let expected = 3;
    if (target.databaseUrl) {
      // PostgreSQL: a status a transaction holds (a request favouriting it,
      // say) is skipped, not waited for; the next run takes it.
      const holder = await openDatabase({ databaseUrl: target.databaseUrl, pgliteDir: "" });
      try {
        await holder.db.transaction(async (tx) => {
          await tx.select().from(statuses).where(eq(statuses.id, ids[1])).for("update");
          const skipping = await cli(target, "statuses", "remove-orphans", "--days", "1");
          expectCode(skipping, 0);
          assert.match(skipping.stdout, /Removed 2 orphan remote statuses/);
        });
      } finally {
        await holder.close();
      }
      expected = 1;
    }
    const run = await cli(target, "statuses", "remove-orphans", "--days", "1");
    expectCode(run, 0);
    assert.match(run.stdout, new RegExp(`Removed ${expected} orphan remote status`));
    // Not a terminal: plain lines, the first and the last.
    assert.match(run.stderr, new RegExp(`^statuses remove-orphans: 0/${expected} \\(0%\\)`, "m"));
    assert.match(
      run.stderr,
      new RegExp(`^statuses remove-orphans: ${expected}/${expected} \\(100%\\), .*done in`, "m"),
    );

    const reopened = await openDatabase({
      databaseUrl: target.databaseUrl,
      pgliteDir: join(dataDir, "db"),
    });
    try {
      assert.equal(
        (await reopened.db.select().from(statuses).where(inArray(statuses.id, ids))).length,
        0,
      );
    } finally {
      await reopened.close();
    }
  } finally {
    await database?.drop();
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
});
