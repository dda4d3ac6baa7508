/**
 * Request bodies exactly as real clients send them, through the real routes:
 * Mastodon.py's ids as JSON numbers, and apps' empty file fields.
 */
import assert from "node:assert/strict";
import { json, startInstance, test } from "../harness.ts";
import { callJson } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { statuses } from "../../db/schema/mod.ts";
import { form, image } from "../media/helpers.ts";
import { multipartBody } from "../fixtures/multipart.ts";

/** An 18-digit id: past 2^53, so as a double it would be 113456789012345680. */
const BIG_ID = "113456789012345678";

test("real clients' bodies: ids as JSON numbers, empty file fields", async (t) => {
  const instance = await startInstance({ worker: false });
  try {
    const alice = await createUser(instance, "alice");
    const send = (method: string, path: string, body: BodyInit, type: string) =>
      instance.request(path, {
        method,
        headers: { authorization: `Bearer ${alice.token}`, "content-type": type },
        body,
      });

    await t.step("Mastodon.py: in_reply_to_id as a number, with a poll", async () => {
      await instance.rookery.ctx.database.db.insert(statuses).values({
        id: BIG_ID,
        uri: `${instance.origin}/users/alice/statuses/${BIG_ID}`,
        accountId: alice.id,
        local: true,
        visibility: "public",
        content: "<p>parent</p>",
      });
      const res = await send(
        "POST",
        "/api/v1/statuses",
        `{"status":"x","in_reply_to_id":${BIG_ID},"poll":{"options":["a","b"],"expires_in":3600}}`,
        "application/json",
      );
      const reply = await json(res);
      assert.equal(res.status, 200, JSON.stringify(reply));
      assert.equal(reply.in_reply_to_id, BIG_ID);
      assert.deepEqual(reply.poll.options.map((o: { title: string }) => o.title), ["a", "b"]);
    });

    await t.step("Mastodon.py: a marker's last_read_id as a number", async () => {
      const res = await send(
        "POST",
        "/api/v1/markers",
        `{"home":{"last_read_id":${BIG_ID}}}`,
        "application/json",
      );
      const body = await json(res);
      assert.equal(res.status, 200, JSON.stringify(body));
      assert.equal(body.home.last_read_id, BIG_ID);
      const read = await callJson(instance, alice, "GET", "/api/v1/markers?timeline[]=home");
      assert.equal(read.body.home.last_read_id, BIG_ID);
    });

    await t.step(
      "a profile edit with empty avatar and header fields changes the rest",
      async () => {
        const before = await callJson(
          instance,
          alice,
          "GET",
          "/api/v1/accounts/verify_credentials",
        );
        const { body, type } = multipartBody([
          [['Content-Disposition: form-data; name="display_name"'], "Alice Liddell"],
          [[
            'Content-Disposition: form-data; name="avatar"; filename=""',
            "Content-Type: application/octet-stream",
          ], ""],
          [['Content-Disposition: form-data; name="header"'], ""],
        ]);
        const res = await send("PATCH", "/api/v1/accounts/update_credentials", body, type);
        const me = await json(res);
        assert.equal(res.status, 200, JSON.stringify(me));
        assert.equal(me.display_name, "Alice Liddell");
        assert.equal(me.avatar, before.body.avatar);
        assert.equal(me.header, before.body.header);
      },
    );

    await t.step("a media upload with an empty thumbnail field", async () => {
      const upload = form({ bytes: await image("png", 20, 10), type: "image/png" });
      upload.append("thumbnail", new File([], "", { type: "application/octet-stream" }));
      const res = await instance.request("/api/v2/media", {
        method: "POST",
        headers: { authorization: `Bearer ${alice.token}` },
        body: upload,
      });
      const media = await json(res);
      assert.equal(res.status, 200, JSON.stringify(media));
      assert.equal(media.type, "image");
    });
  } finally {
    await instance.close({ destroy: true });
  }
});
