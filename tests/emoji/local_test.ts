/**
 * Local custom emoji on one instance: the picker list, statuses (text,
 * content warning, poll options, edits, history), profiles (display name,
 * note, fields), the image files, and what federation publishes (Emoji tags
 * on the Note and the actor, the Emoji object at its id).
 */
import assert from "node:assert/strict";
import { json, startInstance, test } from "../harness.ts";
import { callJson } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { addEmoji, fetchImage, gifImage, pngImage } from "./helpers.ts";
import { removeLocalEmoji } from "../../actors/emoji/manage.ts";

const AP = { Accept: "application/activity+json" };

test("custom emoji: picker list, statuses, polls, edits, history, files", async () => {
  const a = await startInstance();
  try {
    const blobcat = await addEmoji(a, "blobcat", { category: "Cats" });
    await addEmoji(a, "blue_gif", { image: await gifImage() });
    await addEmoji(a, "secret", { unlisted: true });
    const alice = await createUser(a, "alice");

    // The picker: listed local emoji only, in Mastodon's shape, without a token.
    const list = await callJson(a, null, "GET", "/api/v1/custom_emojis");
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.map((e: any) => e.shortcode), ["blobcat", "blue_gif"]);
    const cat = list.body[0];
    assert.deepEqual(Object.keys(cat).sort(), [
      "category",
      "shortcode",
      "static_url",
      "url",
      "visible_in_picker",
    ]);
    assert.equal(cat.category, "Cats");
    assert.equal(cat.visible_in_picker, true);
    assert.equal(list.body[1].category, null);
    assert.match(cat.url, /^http:\/\/localhost:8080\/system\/custom_emojis\/images\/.*\.png$/);
    const original = await fetchImage(a, cat.url);
    assert.equal(original.status, 200);
    assert.equal(original.type, "image/png");
    assert.deepEqual(
      original.body,
      await Deno.readFile(
        `${a.dataDir}/media/${blobcat.filePath}`,
      ),
    );
    const still = await fetchImage(a, cat.static_url);
    assert.equal(still.status, 200);
    assert.equal(still.type, "image/png");
    const gif = await fetchImage(a, list.body[1].url);
    assert.equal(gif.type, "image/gif");
    assert.equal((await fetchImage(a, list.body[1].static_url)).type, "image/png");
    // Only paths the store writes are served.
    for (
      const path of [
        "/system/custom_emojis/images/../../db",
        "/system/custom_emojis/images/000/000/000/000/000/000/001/original-0000000000000000.png",
        "/system/custom_emojis/images/1/original-x.png",
      ]
    ) {
      assert.equal((await a.request(path)).status, 404, path);
    }

    // A status: emoji of the text, the warning and the poll options; the text keeps them.
    const res = await callJson(a, alice, "POST", "/api/v1/statuses", {
      status: "Hello :blobcat: and :secret: but not foo:blue_gif: nor :nope:",
      spoiler_text: "cw :blue_gif:",
      poll: { options: ["yes :blobcat:", "no"], expires_in: 3600 },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const status = res.body;
    assert.match(status.content, /Hello :blobcat: and :secret:/);
    assert.deepEqual(status.emojis.map((e: any) => e.shortcode), ["blobcat", "blue_gif", "secret"]);
    assert.deepEqual(status.emojis[0], cat);
    assert.equal(status.emojis[2].visible_in_picker, false);
    assert.deepEqual(status.poll.emojis.map((e: any) => e.shortcode), ["blobcat"]);
    const shown = await callJson(a, null, "GET", `/api/v1/statuses/${status.id}`);
    assert.deepEqual(shown.body.emojis, status.emojis);
    const poll = await callJson(a, alice, "GET", `/api/v1/polls/${status.poll.id}`);
    assert.deepEqual(poll.body.emojis.map((e: any) => e.shortcode), ["blobcat"]);
    // A boost shows the emoji in the boosted status, none of its own.
    const boost = await callJson(a, alice, "POST", `/api/v1/statuses/${status.id}/reblog`);
    assert.deepEqual(boost.body.emojis, []);
    assert.equal(boost.body.reblog.emojis.length, 3);
    const timeline = await callJson(a, alice, "GET", `/api/v1/accounts/${alice.id}/statuses`);
    assert.equal(timeline.body.find((s: any) => s.id === status.id).emojis.length, 3);

    // An edit reads the emoji again; the history shows each version's.
    const edited = await callJson(a, alice, "PUT", `/api/v1/statuses/${status.id}`, {
      status: "Now only :blue_gif:",
    });
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    assert.deepEqual(edited.body.emojis.map((e: any) => e.shortcode), ["blobcat", "blue_gif"]);
    const history = await callJson(a, alice, "GET", `/api/v1/statuses/${status.id}/history`);
    assert.deepEqual(
      history.body.map((v: any) => v.emojis.map((e: any) => e.shortcode)),
      [["blobcat", "blue_gif", "secret"], ["blobcat", "blue_gif"]],
    );
    const plain = await callJson(a, alice, "POST", "/api/v1/statuses", { status: "no emoji" });
    assert.deepEqual(plain.body.emojis, []);

    // The Note carries Emoji tags; the emoji's id answers its Emoji object.
    const note = await json(await a.request(status.uri, { headers: AP }));
    const tags = (Array.isArray(note.tag) ? note.tag : [note.tag]).filter((t: any) =>
      t.type === "Emoji"
    );
    assert.deepEqual(tags.map((t: any) => t.name).sort(), [":blobcat:", ":blue_gif:"]);
    const tag = tags.find((t: any) => t.name === ":blobcat:");
    assert.equal(tag.id, `${a.origin}/emojis/${blobcat.id}`);
    assert.equal(tag.icon.type, "Image");
    assert.equal(tag.icon.mediaType, "image/png");
    assert.equal(tag.icon.url, cat.url);
    assert.ok(tag.updated);
    const object = await json(await a.request(tag.id, { headers: AP }));
    assert.equal(object.type, "Emoji");
    assert.equal(object.name, ":blobcat:");
    assert.equal(object.icon.url, cat.url);
    assert.equal((await a.request(`${a.origin}/emojis/1`, { headers: AP })).status, 404);

    // Removing an emoji: its files go, statuses keep the text and lose it from the list.
    const { database, media } = a.rookery.ctx;
    await removeLocalEmoji(database.db, media, "blue_gif");
    assert.equal((await fetchImage(a, list.body[1].url)).status, 404);
    const after = await callJson(a, null, "GET", `/api/v1/statuses/${status.id}`);
    assert.deepEqual(after.body.emojis.map((e: any) => e.shortcode), ["blobcat"]);
    assert.match(after.body.content, /:blue_gif:/);
  } finally {
    await a.close({ destroy: true });
  }
});

test("custom emoji in profiles: display name, note and fields", async () => {
  const a = await startInstance();
  try {
    await addEmoji(a, "blobcat");
    await addEmoji(a, "ablobwave", { image: await pngImage("#00ff00") });
    const alice = await createUser(a, "alice");
    const bob = await createUser(a, "bob");
    const updated = await callJson(a, alice, "PATCH", "/api/v1/accounts/update_credentials", {
      display_name: "Alice :blobcat:",
      note: "I wave :ablobwave:",
      fields_attributes: { "0": { name: "Pet", value: ":blobcat: cat" } },
    });
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    assert.equal(updated.body.display_name, "Alice :blobcat:");
    assert.deepEqual(updated.body.emojis.map((e: any) => e.shortcode), ["ablobwave", "blobcat"]);
    const verified = await callJson(a, alice, "GET", "/api/v1/accounts/verify_credentials");
    assert.deepEqual(verified.body.emojis, updated.body.emojis);
    const seen = await callJson(a, bob, "GET", `/api/v1/accounts/${alice.id}`);
    assert.deepEqual(seen.body.emojis, updated.body.emojis);
    const image = await fetchImage(a, seen.body.emojis[1].url);
    assert.equal(image.status, 200);
    assert.equal(image.type, "image/png");
    // Statuses show their author's emoji too.
    const posted = await callJson(a, alice, "POST", "/api/v1/statuses", { status: "hi" });
    assert.deepEqual(posted.body.account.emojis, updated.body.emojis);
    assert.deepEqual(posted.body.emojis, []);

    // The actor carries Emoji tags.
    const actor = await json(await a.request(`${a.origin}/users/alice`, { headers: AP }));
    const tags = (Array.isArray(actor.tag) ? actor.tag : [actor.tag]).filter(Boolean);
    assert.deepEqual(tags.map((t: any) => t.name).sort(), [":ablobwave:", ":blobcat:"]);
    assert.ok(tags.every((t: any) => t.type === "Emoji" && t.icon?.url));

    // Changing only the note keeps the display name's emoji; dropping them empties the list.
    const noteOnly = await callJson(a, alice, "PATCH", "/api/v1/accounts/update_credentials", {
      note: "plain",
      fields_attributes: {},
    });
    assert.equal(noteOnly.status, 200, JSON.stringify(noteOnly.body));
    assert.deepEqual(noteOnly.body.emojis.map((e: any) => e.shortcode), ["blobcat"]);
    const cleared = await callJson(a, alice, "PATCH", "/api/v1/accounts/update_credentials", {
      display_name: "Alice",
    });
    assert.deepEqual(cleared.body.emojis, []);
    assert.deepEqual(
      (await callJson(a, bob, "GET", `/api/v1/accounts/${alice.id}`)).body.emojis,
      [],
    );
  } finally {
    await a.close({ destroy: true });
  }
});
