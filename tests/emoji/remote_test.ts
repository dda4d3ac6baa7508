/**
 * Remote Emoji tags (no network): well-formed ones are read, hostile or
 * malformed ones ignored, their number capped; stored once per domain and
 * shortcode, updated when the image moves, linked only when the text uses
 * them; a remote actor's emoji come with it.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { Note, Person } from "@fedify/vocab";
import { startInstance, test } from "../harness.ts";
import { callJson } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { newId } from "../../db/ids.ts";
import { accounts, customEmojis } from "../../db/schema/mod.ts";
import { parseStatusObject } from "../../federation/objects/remote_status.ts";
import { upsertRemoteActor } from "../../federation/remote/accounts.ts";
import { createStatus } from "../../actors/statuses/create.ts";

const CONTEXT = [
  "https://www.w3.org/ns/activitystreams",
  { toot: "http://joinmastodon.org/ns#", Emoji: "toot:Emoji" },
];

function emojiTag(name: string, url: unknown, extra: Record<string, unknown> = {}) {
  return {
    id: `https://remote.example/emojis/${encodeURIComponent(name)}`,
    type: "Emoji",
    name,
    icon: { type: "Image", mediaType: "image/png", url },
    ...extra,
  };
}

test("remote Emoji tags: read, refused when malformed, capped", async () => {
  const many = Array.from(
    { length: 60 },
    (_, i) => emojiTag(`:e${i}x:`, `https://r.example/${i}.png`),
  );
  const raw = {
    "@context": CONTEXT,
    id: "https://remote.example/notes/1",
    type: "Note",
    attributedTo: "https://remote.example/users/zed",
    content: "<p>:good: :bad_scheme:</p>",
    to: ["https://www.w3.org/ns/activitystreams#Public"],
    tag: [
      emojiTag(":good:", "https://cdn.remote.example/good.png", {
        updated: "2024-01-01T00:00:00Z",
      }),
      emojiTag(":good:", "https://cdn.remote.example/again.png"), // the first one wins
      emojiTag(":bad_scheme:", "javascript:alert(1)"),
      emojiTag(":ftp_icon:", "ftp://remote.example/x.png"),
      emojiTag("no_colons", "https://remote.example/x.png"),
      emojiTag(":bad-chars:", "https://remote.example/x.png"),
      emojiTag(":x:", "https://remote.example/x.png"), // too short
      emojiTag(`:${"a".repeat(200)}:`, "https://remote.example/x.png"),
      { type: "Emoji", name: ":no_icon:" },
      { type: "Emoji", name: ":icon_link_only:", icon: "https://remote.example/icon" },
      ...many,
    ],
  };
  const note = await Note.fromJsonLd(raw);
  const parsed = await parseStatusObject(note, { followersUrl: null, raw, maxMedia: 4 });
  assert.ok(parsed);
  assert.deepEqual(parsed.emojis[0], {
    shortcode: "good",
    url: "https://cdn.remote.example/good.png",
    uri: "https://remote.example/emojis/%3Agood%3A",
    contentType: "image/png",
  });
  const codes = parsed.emojis.map((e) => e.shortcode);
  assert.equal(codes.length, 50);
  assert.equal(new Set(codes).size, 50);
  for (const bad of ["bad_scheme", "ftp_icon", "no_colons", "x", "no_icon", "icon_link_only"]) {
    assert.ok(!codes.includes(bad), bad);
  }
  assert.ok(codes.every((c) => /^[a-zA-Z0-9_]{2,128}$/.test(c)));
});

test("remote emoji stored per domain, updated, linked when used; remote profile emoji", async () => {
  const a = await startInstance();
  try {
    const ctx = a.rookery.ctx;
    const db = ctx.database.db;
    const viewer = await createUser(a, "viewer");
    const [zed] = await db.insert(accounts).values({
      id: newId(),
      username: "zed",
      domain: "remote.example",
      uri: "https://remote.example/users/zed",
      fetchedAt: new Date(),
    }).returning();
    const remote = (n: number, content: string, url: string) =>
      createStatus(ctx, {
        local: false,
        accountId: zed.id,
        uri: `https://remote.example/notes/${n}`,
        content,
        visibility: "public",
        emojis: [
          { shortcode: "party", url, uri: null, contentType: "image/gif" },
          {
            shortcode: "unused",
            url: "https://cdn.remote.example/u.png",
            uri: null,
            contentType: null,
          },
        ],
      });
    const first = await remote(1, "<p>let's :party:</p>", "https://cdn.remote.example/party1.gif");
    const shown = await callJson(a, viewer, "GET", `/api/v1/statuses/${first.id}`);
    // Shown through the media proxy (which keeps a copy), never at the CDN's URL.
    const [party] = await db.select().from(customEmojis)
      .where(eq(customEmojis.shortcode, "party"));
    const proxy = (variant: "original" | "static") =>
      a.rookery.ctx.mediaUrls.proxy({ kind: "emoji", variant }, party.id);
    assert.deepEqual(shown.body.emojis, [{
      shortcode: "party",
      url: proxy("original"),
      static_url: proxy("static"),
      visible_in_picker: true,
      category: null,
    }]);
    // A tag the text does not use is not stored.
    assert.equal(
      (await db.select().from(customEmojis).where(eq(customEmojis.shortcode, "unused"))).length,
      0,
    );
    // The same emoji with a new image: one row, updated; older statuses follow.
    const second = await remote(2, "<p>:party: again</p>", "https://cdn.remote.example/party2.gif");
    const rows = await db.select().from(customEmojis).where(eq(customEmojis.shortcode, "party"));
    assert.equal(rows.length, 1);
    assert.equal(rows[0].domain, "remote.example");
    assert.equal(rows[0].remoteUrl, "https://cdn.remote.example/party2.gif");
    // Clients get the media proxy's URL of the emoji (it fetches the new image), never the CDN's.
    const proxied = a.rookery.ctx.mediaUrls.proxy(
      { kind: "emoji", variant: "original" },
      rows[0].id,
    );
    for (const id of [first.id, second.id]) {
      const res = await callJson(a, viewer, "GET", `/api/v1/statuses/${id}`);
      assert.equal(res.body.emojis[0].url, proxied);
    }
    // A local post never picks up another server's emoji.
    const local = await callJson(a, viewer, "POST", "/api/v1/statuses", { status: ":party:" });
    assert.deepEqual(local.body.emojis, []);

    // A remote actor's profile emoji come with its document; an update replaces them.
    const person = (name: string, tags: unknown[]) =>
      Person.fromJsonLd({
        "@context": CONTEXT,
        id: "https://remote.example/users/yan",
        type: "Person",
        preferredUsername: "yan",
        name,
        summary: "<p>hello :wave:</p>",
        inbox: "https://remote.example/users/yan/inbox",
        tag: tags,
      });
    const yan = await upsertRemoteActor(
      ctx,
      await person("Yan :blobfox: :evil:", [
        emojiTag(":blobfox:", "https://cdn.remote.example/fox.png"),
        emojiTag(":wave:", "https://cdn.remote.example/wave.png"),
        emojiTag(":evil:", "data:image/png;base64,AAAA"),
      ]),
    );
    assert.ok(yan);
    const profile = await callJson(a, viewer, "GET", `/api/v1/accounts/${yan.id}`);
    assert.deepEqual(
      profile.body.emojis.map((e: any) => [e.shortcode, e.url.replace(/\/\d+\/.*$/, "")]),
      [["blobfox", `${a.origin}/media_proxy/emojis`], ["wave", `${a.origin}/media_proxy/emojis`]],
    );
    await upsertRemoteActor(ctx, await person("Yan", []));
    const after = await callJson(a, viewer, "GET", `/api/v1/accounts/${yan.id}`);
    assert.deepEqual(after.body.emojis, []);
  } finally {
    await a.close({ destroy: true });
  }
});
