/**
 * The profile API (Mastodon 4.6/4.7): GET, PATCH and PUT /api/v1/profile,
 * the image descriptions and profile switches (also through
 * update_credentials), and the new Account members. One instance.
 */
import assert from "node:assert/strict";
import sharp from "sharp";
import { startInstance, test } from "../harness.ts";
import { callJson, ok } from "../fixtures/api.ts";
import { createToken, createUser } from "../fixtures/users.ts";

async function png(): Promise<Uint8Array<ArrayBuffer>> {
  return new Uint8Array(
    await sharp({ create: { width: 40, height: 40, channels: 3, background: "#36c" } }).png()
      .toBuffer(),
  );
}

test("profile API: shapes, raw sources, descriptions, switches, scopes", async (t) => {
  const instance = await startInstance();
  try {
    const alice = await createUser(instance, "alice");

    await t.step("GET answers the raw profile, images null until set", async () => {
      await ok(instance, alice, "PATCH", "/api/v1/accounts/update_credentials", {
        note: "Hello @alice, see https://example.com",
        fields_attributes: [{ name: "Site", value: "https://example.com" }],
      });
      await ok(instance, alice, "POST", "/api/v1/featured_tags", { name: "cats" });
      const profile = await ok(instance, alice, "GET", "/api/v1/profile");
      assert.deepEqual(Object.keys(profile), [
        "id",
        "display_name",
        "note",
        "fields",
        "avatar",
        "avatar_static",
        "avatar_description",
        "header",
        "header_static",
        "header_description",
        "locked",
        "bot",
        "hide_collections",
        "discoverable",
        "indexable",
        "show_media",
        "show_media_replies",
        "show_featured",
        "attribution_domains",
        "featured_tags",
      ]);
      assert.equal(profile.id, alice.id);
      assert.equal(profile.note, "Hello @alice, see https://example.com");
      assert.deepEqual(profile.fields, [
        { name: "Site", value: "https://example.com", verified_at: null },
      ]);
      assert.equal(profile.avatar, null);
      assert.equal(profile.header_static, null);
      assert.equal(profile.avatar_description, "");
      assert.equal(profile.show_media, true);
      assert.equal(profile.featured_tags[0].name, "cats");
      assert.equal(profile.featured_tags[0].statuses_count, "0");
    });

    await t.step("PATCH and PUT change the profile and answer it", async () => {
      const patched = await ok(instance, alice, "PATCH", "/api/v1/profile", {
        display_name: "Alice",
        show_media: false,
        show_media_replies: false,
        show_featured: false,
        locked: true,
      });
      assert.equal(patched.display_name, "Alice");
      assert.equal(patched.show_media, false);
      assert.equal(patched.show_featured, false);
      assert.equal(patched.locked, true);
      const put = await ok(instance, alice, "PUT", "/api/v1/profile", { locked: false });
      assert.equal(put.locked, false);
      assert.equal(put.show_media, false);
      const account = await ok(instance, null, "GET", `/api/v1/accounts/${alice.id}`);
      assert.equal(account.show_media, false);
      assert.equal(account.show_media_replies, false);
      assert.equal(account.show_featured, false);
      // Posting defaults are not profile parameters.
      await ok(instance, alice, "PATCH", "/api/v1/profile", { source: { privacy: "private" } });
      const me = await ok(instance, alice, "GET", "/api/v1/accounts/verify_credentials");
      assert.equal(me.source.privacy, "public");
    });

    await t.step("image descriptions: set, limited to 150, cleared with their image", async () => {
      const form = new FormData();
      form.append("avatar", new File([await png()], "a.png", { type: "image/png" }));
      form.append("avatar_description", "A blue square");
      const withImage = await instance.request("/api/v1/profile", {
        method: "PATCH",
        headers: { Authorization: `Bearer ${alice.token}` },
        body: form,
      });
      assert.equal(withImage.status, 200);
      const profile = await withImage.json();
      assert.ok(profile.avatar.startsWith(instance.origin));
      assert.equal(profile.avatar_description, "A blue square");
      const account = await ok(instance, null, "GET", `/api/v1/accounts/${alice.id}`);
      assert.equal(account.avatar_description, "A blue square");

      const tooLong = await callJson(instance, alice, "PATCH", "/api/v1/profile", {
        header_description: "x".repeat(151),
      });
      assert.equal(tooLong.status, 422);
      assert.deepEqual(tooLong.body.details.header_description, [
        { error: "ERR_TOO_LONG", description: "is too long (maximum is 150 characters)" },
      ]);
      // update_credentials takes them too (4.7).
      const viaCredentials = await ok(
        instance,
        alice,
        "PATCH",
        "/api/v1/accounts/update_credentials",
        {
          header_description: "Nothing yet",
        },
      );
      assert.equal(viaCredentials.header_description, "Nothing yet");

      // A new avatar without a description clears the old one.
      const again = new FormData();
      again.append("avatar", new File([await png()], "b.png", { type: "image/png" }));
      const replaced = await instance.request("/api/v1/profile", {
        method: "PUT",
        headers: { Authorization: `Bearer ${alice.token}` },
        body: again,
      });
      assert.equal((await replaced.json()).avatar_description, "");
      await ok(instance, alice, "PATCH", "/api/v1/profile", { avatar_description: "Again" });
      await ok(instance, alice, "DELETE", "/api/v1/profile/avatar");
      const removed = await ok(instance, alice, "GET", "/api/v1/profile");
      assert.equal(removed.avatar, null);
      assert.equal(removed.avatar_description, "");
    });

    await t.step("scopes: profile or read:accounts reads, write:accounts writes", async () => {
      const profileOnly = await createToken(instance, alice.userId, ["profile"]);
      const readStatuses = await createToken(instance, alice.userId, ["read:statuses"]);
      assert.equal((await callJson(instance, profileOnly, "GET", "/api/v1/profile")).status, 200);
      assert.equal((await callJson(instance, readStatuses, "GET", "/api/v1/profile")).status, 403);
      assert.equal(
        (await callJson(instance, profileOnly, "PATCH", "/api/v1/profile", { locked: true }))
          .status,
        403,
      );
      assert.equal((await callJson(instance, null, "GET", "/api/v1/profile")).status, 401);
    });

    await t.step(
      "CredentialAccount: role with collection_limit, feature_approval of oneself",
      async () => {
        const me = await ok(instance, alice, "GET", "/api/v1/accounts/verify_credentials");
        assert.equal(me.role.collection_limit, 10);
        assert.equal(me.feature_approval.current_user, "automatic");
        assert.deepEqual(me.feature_approval.automatic, ["public"]);
      },
    );
  } finally {
    await instance.close({ destroy: true });
  }
});
