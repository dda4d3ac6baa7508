/**
 * Media files go when their rows go (issue 29: deleted media stayed public).
 * Over HTTP on one instance: a status deleted with `delete_media` (with the
 * media an edit had dropped) loses its files at once, and nobody else's ids
 * touch them; without `delete_media` they are kept a day from the deletion
 * for a redraft, then the cleanup takes them; a reported status keeps its
 * media; deleting an account at /settings/delete, with `account delete`,
 * through the admin API and pages, or by the purge after a suspension's
 * grace period removes its avatar, header and attachment files (the URLs
 * answer 404 and the files are gone from disk), but a report's evidence; so
 * does rejecting a sign-up (the worker's media cleanup removes the files); a
 * rolled-back deletion keeps everything.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { eq } from "drizzle-orm";
import { json, startInstance, test, type TestInstance } from "../harness.ts";
import { accounts, mediaAttachments } from "../../db/schema/mod.ts";
import { storedFile } from "../fixtures/media.ts";
import { removeDiscardedMedia } from "../../actors/media/discarded.ts";
import { cleanUpMedia, removeUnattachedMedia } from "../../actors/media/processing.ts";
import { purgeExpiredSuspensions } from "../../actors/moderation/suspension.ts";
import { deleteLocalAccount } from "../../actors/moderation/local_users.ts";
import { runAdminCommand } from "../../admin/commands.ts";
import { callJson } from "../fixtures/api.ts";
import { createUser, TEST_PASSWORD, type TestUser } from "../fixtures/users.ts";
import { signInOverHttp } from "../admin_web/http_session.ts";
import { staff } from "../moderation/admin_fixture.ts";
import { updateCredentials } from "../accounts/helpers.ts";
import { form, image, upload } from "./helpers.ts";

interface Media {
  id: string;
  url: string;
  preview_url: string;
}

/** The answer's status, its body discarded. */
async function statusOf(instance: TestInstance, url: string): Promise<number> {
  const res = await instance.request(url);
  await res.body?.cancel();
  return res.status;
}

/** Whether the file behind one of our media URLs is on disk. */
function onDisk(instance: TestInstance, url: string): boolean {
  const key = new URL(url).pathname.replace(/^\/system\//, "");
  return existsSync(storedFile(instance.dataDir, key));
}

/** Every URL answers 404 and its file is gone from disk. */
async function assertGone(instance: TestInstance, urls: string[]): Promise<void> {
  for (const url of urls) {
    assert.equal(await statusOf(instance, url), 404, url);
    assert.ok(!onDisk(instance, url), `still on disk: ${url}`);
  }
}

/** Every file is on disk, and its URL answers `status` (404 for a hidden account). */
async function assertKept(instance: TestInstance, urls: string[], status = 200): Promise<void> {
  for (const url of urls) {
    assert.ok(onDisk(instance, url), `gone from disk: ${url}`);
    assert.equal(await statusOf(instance, url), status, url);
  }
}

const filesOf = (media: Media[]) => media.flatMap((m) => [m.url, m.preview_url]);

async function uploadImages(instance: TestInstance, who: TestUser, n: number): Promise<Media[]> {
  const out: Media[] = [];
  for (let i = 0; i < n; i++) {
    const res = await upload(
      instance,
      who.token,
      form({ bytes: await image("png", 40 + i, 30), type: "image/png" }),
    );
    assert.equal(res.status, 200);
    out.push(await json(res));
  }
  return out;
}

async function post(instance: TestInstance, who: TestUser, body: Record<string, unknown>) {
  const res = await callJson(instance, who, "POST", "/api/v1/statuses", body);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as { id: string; media_attachments: Media[] };
}

/**
 * A user with an avatar, a header, a status with two attachments and an
 * unattached upload; returns the user and every file URL.
 */
async function furnished(instance: TestInstance, name: string) {
  const user = await createUser(instance, name);
  const body = new FormData();
  body.append("avatar", new File([await image("png", 80, 80)], "a.png", { type: "image/png" }));
  body.append("header", new File([await image("jpeg", 150, 50)], "h.jpg", { type: "image/jpeg" }));
  const me = await json(await updateCredentials(instance, user.token, body));
  const media = await uploadImages(instance, user, 3);
  const status = await post(instance, user, {
    status: "with media",
    media_ids: [media[0].id, media[1].id],
  });
  const files = [me.avatar, me.header, ...filesOf(media)];
  await assertKept(instance, files);
  return { user, status, files };
}

test("media files go when their rows go", async (t) => {
  const instance = await startInstance({ worker: false });
  const { ctx } = instance.rookery;
  const db = ctx.database.db;
  const store = ctx.media;
  const env = { db, config: ctx.config, media: ctx.media };
  try {
    const alice = await createUser(instance, "alice");
    const bob = await createUser(instance, "bob");
    const admin = await staff(instance, "adam", "admin");

    await t.step(
      "delete_media: the files go at once; someone else's ids change nothing",
      async () => {
        const media = await uploadImages(instance, alice, 2);
        const status = await post(instance, alice, {
          status: "two pictures",
          media_ids: media.map((m) => m.id),
        });
        // An edit drops the first: the history still shows it.
        const edited = await callJson(instance, alice, "PUT", `/api/v1/statuses/${status.id}`, {
          status: "one picture",
          media_ids: [media[1].id],
        });
        assert.equal(edited.status, 200);

        const others = [
          await callJson(
            instance,
            bob,
            "DELETE",
            `/api/v1/statuses/${status.id}?delete_media=true`,
          ),
          await callJson(instance, bob, "DELETE", `/api/v1/media/${media[1].id}`),
          await callJson(instance, bob, "POST", "/api/v1/statuses", { media_ids: [media[0].id] }),
        ];
        assert.deepEqual(others.map((r) => r.status), [404, 404, 422]);
        await assertKept(instance, filesOf(media));

        const gone = await callJson(
          instance,
          alice,
          "DELETE",
          `/api/v1/statuses/${status.id}?delete_media=true`,
        );
        assert.equal(gone.status, 200);
        await assertGone(instance, filesOf(media));
        const rows = await db.select().from(mediaAttachments)
          .where(eq(mediaAttachments.accountId, alice.id));
        assert.deepEqual(rows.filter((r) => media.some((m) => m.id === r.id)), []);
      },
    );

    await t.step("without delete_media: kept a day from the deletion for a redraft", async () => {
      const [old, dropped, kept] = await uploadImages(instance, alice, 3);
      // An upload of three days ago, posted now: the redraft day counts from the deletion.
      await db.update(mediaAttachments).set({ createdAt: new Date(Date.now() - 3 * 86_400_000) })
        .where(eq(mediaAttachments.id, old.id));
      const first = await post(instance, alice, { status: "draft 1", media_ids: [old.id] });
      const deleted = await callJson(instance, alice, "DELETE", `/api/v1/statuses/${first.id}`);
      assert.equal(deleted.status, 200);
      assert.deepEqual(deleted.body.media_attachments.map((m: Media) => m.id), [old.id]);
      assert.equal(await removeUnattachedMedia(ctx), 0, "within the redraft day");
      await assertKept(instance, filesOf([old]));
      const redraft = await post(instance, alice, { status: "draft 2", media_ids: [old.id] });

      // An edited status deleted without delete_media: its history no longer holds media.
      const edited = await post(instance, alice, {
        status: "edited",
        media_ids: [dropped.id, kept.id],
      });
      await callJson(instance, alice, "PUT", `/api/v1/statuses/${edited.id}`, {
        status: "edited again",
        media_ids: [kept.id],
      });
      for (const id of [redraft.id, edited.id]) {
        assert.equal(
          (await callJson(instance, alice, "DELETE", `/api/v1/statuses/${id}`)).status,
          200,
        );
      }
      await assertKept(instance, filesOf([old, dropped, kept]));
      // A day later (a cutoff of now), the cleanup takes all three.
      assert.equal(await removeUnattachedMedia(ctx, 0), 3);
      await assertGone(instance, filesOf([old, dropped, kept]));
    });

    await t.step("a status under report keeps its media as evidence", async () => {
      const media = await uploadImages(instance, alice, 1);
      const status = await post(instance, alice, { status: "evidence", media_ids: [media[0].id] });
      const report = await callJson(instance, bob, "POST", "/api/v1/reports", {
        account_id: alice.id,
        status_ids: [status.id],
        comment: "look",
      });
      assert.equal(report.status, 200);
      const gone = await callJson(
        instance,
        alice,
        "DELETE",
        `/api/v1/statuses/${status.id}?delete_media=true`,
      );
      assert.equal(gone.status, 200);
      assert.equal(await removeUnattachedMedia(ctx, 0), 0);
      await assertKept(instance, filesOf(media));
      const shown = await callJson(
        instance,
        admin,
        "GET",
        `/api/v1/admin/reports/${report.body.id}`,
      );
      assert.deepEqual(shown.body.statuses[0].media_attachments.map((m: Media) => m.id), [
        media[0].id,
      ]);
    });

    await t.step("/settings/delete removes the avatar, header and media files", async () => {
      const carol = await furnished(instance, "carol");
      // A status of hers that bob reported keeps its media (hidden with her).
      const [evidence] = await uploadImages(instance, carol.user, 1);
      const reported = await post(instance, carol.user, { media_ids: [evidence.id] });
      await callJson(instance, bob, "POST", "/api/v1/reports", {
        account_id: carol.user.id,
        status_ids: [reported.id],
      });
      const session = await signInOverHttp(instance, "carol", "/settings/delete");
      const res = await session.post("/settings/delete", { password: TEST_PASSWORD });
      assert.equal(res.status, 200);
      await res.body?.cancel();
      await assertGone(instance, carol.files);
      await assertKept(instance, filesOf([evidence]), 404);
    });

    await t.step("account delete, the admin API and pages, and the purge", async () => {
      const dave = await furnished(instance, "dave");
      const run = await runAdminCommand(env, ["account", "delete", "dave"]);
      assert.equal(run.exitCode, 0, run.stderr);
      await assertGone(instance, dave.files);

      const suspend = async (who: TestUser) => {
        const res = await callJson(
          instance,
          admin,
          "POST",
          `/api/v1/admin/accounts/${who.id}/action`,
          {
            type: "suspend",
            send_email_notification: false,
          },
        );
        assert.equal(res.status, 200);
      };
      const erin = await furnished(instance, "erin");
      await suspend(erin.user);
      // Hidden while suspended, still there (an unsuspension brings them back).
      await assertKept(instance, erin.files.slice(2), 404);
      const purged = await callJson(
        instance,
        admin,
        "DELETE",
        `/api/v1/admin/accounts/${erin.user.id}`,
      );
      assert.equal(purged.status, 200);
      await assertGone(instance, erin.files);

      const fred = await furnished(instance, "fred");
      await suspend(fred.user);
      const page = await signInOverHttp(instance, "adam", "/admin");
      const deleted = await page.post(`/admin/accounts/${fred.user.id}/delete`, { confirm: "1" });
      assert.equal(deleted.status, 303);
      await deleted.body?.cancel();
      await assertGone(instance, fred.files);

      const gus = await furnished(instance, "gus");
      await suspend(gus.user);
      assert.equal(await purgeExpiredSuspensions(db, 0, store), 1);
      await assertGone(instance, gus.files);
      const [row] = await db.select().from(accounts).where(eq(accounts.id, gus.user.id));
      assert.ok(row.deletedAt);
    });

    await t.step("a rejected sign-up's files go with the worker's media cleanup", async () => {
      // A pending account cannot use the API: its files are put in place directly.
      const ivy = await createUser(instance, "ivy", { approved: false });
      const avatar = `accounts/avatars/${ivy.id}/${"cd".repeat(16)}.png`;
      await store.put(avatar, await image("png", 20, 20), { contentType: "image/png" });
      await db.update(accounts).set({ avatarKey: avatar })
        .where(eq(accounts.id, ivy.id));
      await assertKept(instance, [store.url(avatar)]);
      const rejected = await callJson(
        instance,
        admin,
        "POST",
        `/api/v1/admin/accounts/${ivy.id}/reject`,
      );
      assert.equal(rejected.status, 200);
      await cleanUpMedia(ctx);
      await assertGone(instance, [store.url(avatar)]);
    });

    await t.step("a rolled-back deletion keeps the rows and the files", async () => {
      const hal = await furnished(instance, "hal");
      await assert.rejects(
        db.transaction(async (tx) => {
          await deleteLocalAccount(tx, "hal");
          throw new Error("rolled back");
        }),
        /rolled back/,
      );
      assert.equal(await removeDiscardedMedia(db, store), 0);
      await assertKept(instance, hal.files);
      const [row] = await db.select().from(accounts).where(eq(accounts.id, hal.user.id));
      assert.equal(row.deletedAt, null);
    });
  } finally {
    await instance.close({ destroy: true });
  }
});
