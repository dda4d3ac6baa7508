/** Reading, editing and deleting statuses, and who may see what. */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { accounts, blocks, mediaAttachments, statusEdits, statuses } from "../../db/schema/mod.ts";
import { newId } from "../../db/ids.ts";
import { startInstance, test } from "../harness.ts";
import { callJson, postStatus } from "../fixtures/api.ts";
import { mediaRow } from "../fixtures/media.ts";
import { createUser } from "../fixtures/users.ts";
import { makeFollower } from "./helpers.ts";

const AP = { Accept: "application/activity+json" };

test("visibility: private and direct are 404 to outsiders everywhere, visible to their audience", async () => {
  const a = await startInstance();
  try {
    const alice = await createUser(a, "alice");
    const follower = await createUser(a, "follower");
    const mentioned = await createUser(a, "mentioned");
    const outsider = await createUser(a, "outsider");
    await makeFollower(a, follower, alice);
    const pub = await postStatus(a, alice, { status: "public" });
    const unlisted = await postStatus(a, alice, { status: "unlisted", visibility: "unlisted" });
    const priv = await postStatus(a, alice, {
      status: "private @mentioned",
      visibility: "private",
    });
    const dm = await postStatus(a, alice, { status: "@mentioned direct", visibility: "direct" });
    // Replies in a thread under the public post, one of them private.
    const r1 = await postStatus(a, alice, { status: "reply public", in_reply_to_id: pub.id });
    const r2 = await postStatus(a, alice, {
      status: "reply private",
      in_reply_to_id: r1.id,
      visibility: "private",
    });
    const r3 = await postStatus(a, alice, { status: "reply to private", in_reply_to_id: r2.id });

    const canSee = async (user: typeof alice | null, id: string) =>
      (await callJson(a, user, "GET", `/api/v1/statuses/${id}`)).status === 200;
    for (const s of [pub, unlisted]) {
      for (const u of [null, alice, follower, mentioned, outsider]) {
        assert.ok(await canSee(u, s.id));
      }
    }
    assert.deepEqual(
      await Promise.all(
        [null, alice, follower, mentioned, outsider].map((u) => canSee(u, priv.id)),
      ),
      [false, true, true, true, false],
    );
    assert.deepEqual(
      await Promise.all([null, alice, follower, mentioned, outsider].map((u) => canSee(u, dm.id))),
      [false, true, false, true, false],
    );
    const hidden = await callJson(a, outsider, "GET", `/api/v1/statuses/${priv.id}`);
    assert.deepEqual(hidden.body, { error: "Record not found" });
    assert.equal((await callJson(a, null, "GET", "/api/v1/statuses/99999999")).status, 404);
    assert.equal((await callJson(a, null, "GET", "/api/v1/statuses/junk")).status, 404);

    // id[]: hidden and unknown ids are skipped, the order is kept.
    const ids = [dm.id, pub.id, "123", priv.id, unlisted.id];
    const q = ids.map((id) => `id[]=${id}`).join("&");
    const anon = await callJson(a, null, "GET", `/api/v1/statuses?${q}`);
    assert.deepEqual(anon.body.map((s: any) => s.id), [pub.id, unlisted.id]);
    const asMentioned = await callJson(a, mentioned, "GET", `/api/v1/statuses?${q}`);
    assert.deepEqual(asMentioned.body.map((s: any) => s.id), [dm.id, pub.id, priv.id, unlisted.id]);
    const many = Array.from({ length: 41 }, (_, i) => `id[]=${i + 1}`).join("&");
    assert.equal((await callJson(a, null, "GET", `/api/v1/statuses?${many}`)).status, 422);

    // Context: hidden statuses drop out, their visible replies stay.
    const ctxAnon = await callJson(a, null, "GET", `/api/v1/statuses/${pub.id}/context`);
    assert.deepEqual(ctxAnon.body.ancestors, []);
    assert.deepEqual(ctxAnon.body.descendants.map((s: any) => s.id), [r1.id, r3.id]);
    const ctxFollower = await callJson(a, follower, "GET", `/api/v1/statuses/${pub.id}/context`);
    assert.deepEqual(ctxFollower.body.descendants.map((s: any) => s.id), [r1.id, r2.id, r3.id]);
    const up = await callJson(a, follower, "GET", `/api/v1/statuses/${r3.id}/context`);
    assert.deepEqual(up.body.ancestors.map((s: any) => s.id), [pub.id, r1.id, r2.id]);
    assert.equal(
      (await callJson(a, outsider, "GET", `/api/v1/statuses/${priv.id}/context`)).status,
      404,
    );
    assert.equal((await callJson(a, null, "GET", `/api/v1/statuses/${dm.id}/history`)).status, 404);

    // HTML pages and the ActivityPub object: only public and unlisted, anonymously.
    const page = await a.request(`/@alice/${pub.id}`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get("link") ?? "", new RegExp(`<${pub.uri}>; rel="alternate"`));
    const html = await page.text();
    assert.match(html, /<link rel="alternate" type="application\/activity\+json"/);
    assert.match(html, /public/);
    for (const s of [priv, dm]) {
      const p = await a.request(`/@alice/${s.id}`);
      assert.equal(p.status, 404);
      await p.body?.cancel();
      const obj = await a.request(`/users/alice/statuses/${s.id}`, { headers: AP });
      assert.equal(obj.status, 404);
      await obj.body?.cancel();
      const neg = await a.request(`/@alice/${s.id}`, { headers: AP });
      assert.equal(neg.status, 404);
      await neg.body?.cancel();
    }
    const note = await a.request(`/users/alice/statuses/${pub.id}`, { headers: AP });
    assert.equal(note.status, 200);
    const doc = await note.json();
    assert.equal(doc.type, "Note");
    assert.equal(doc.id, pub.uri);
    assert.equal(doc.attributedTo, `${a.origin}/users/alice`);
    assert.equal(doc.content, pub.content);
    assert.ok(
      [doc.to].flat().includes("https://www.w3.org/ns/activitystreams#Public") ||
        [doc.to].flat().includes("as:Public"),
    );
    const viaPage = await a.request(`/@alice/${pub.id}`, { headers: AP });
    assert.equal(viaPage.status, 200);
    assert.equal((await viaPage.json()).id, pub.uri);
    const un = await (await a.request(`/users/alice/statuses/${unlisted.id}`, { headers: AP }))
      .json();
    assert.equal(un.type, "Note");
    // A wrong username in the path is not the status.
    const wrong = await a.request(`/users/follower/statuses/${pub.id}`, { headers: AP });
    assert.equal(wrong.status, 404);
    await wrong.body?.cancel();

    // Blocks hide both ways; a block does not hide one's own posts.
    await a.rookery.ctx.database.db.insert(blocks).values({
      id: newId(),
      accountId: outsider.id,
      targetAccountId: alice.id,
    });
    assert.equal(await canSee(outsider, pub.id), false);
    assert.equal(await canSee(alice, pub.id), true);
    // Boosts of invisible statuses are invisible.
    const boost = newId();
    await a.rookery.ctx.database.db.insert(statuses).values({
      id: boost,
      uri: `${a.origin}/users/mentioned/statuses/${boost}/activity`,
      accountId: mentioned.id,
      local: true,
      visibility: "public",
      reblogOfId: dm.id,
    });
    assert.equal(await canSee(null, boost), false);
    assert.equal(await canSee(outsider, boost), false);
    const seen = await callJson(a, mentioned, "GET", `/api/v1/statuses/${boost}`);
    assert.equal(seen.status, 200);
    assert.equal(seen.body.reblog.id, dm.id);
    assert.equal(seen.body.content, "");

    // Deleted: 404 in the API, 410 for the page and the object.
    const del = await callJson(a, alice, "DELETE", `/api/v1/statuses/${unlisted.id}`);
    assert.equal(del.status, 200);
    assert.equal((await callJson(a, alice, "GET", `/api/v1/statuses/${unlisted.id}`)).status, 404);
    const gone = await a.request(`/users/alice/statuses/${unlisted.id}`, { headers: AP });
    assert.equal(gone.status, 410);
    assert.equal((await gone.json()).type, "Tombstone");
    const gonePage = await a.request(`/@alice/${unlisted.id}`);
    assert.equal(gonePage.status, 410);
    await gonePage.body?.cancel();
  } finally {
    await a.close({ destroy: true });
  }
});

test("edit, history, source, delete with redraft text, and scopes", async () => {
  const a = await startInstance();
  try {
    const alice = await createUser(a, "alice");
    const bob = await createUser(a, "bob");
    const reader = await createUser(a, "reader", { scopes: ["read"] });
    const db = a.rookery.ctx.database.db;
    const m1 = await mediaRow(a, alice);
    const s = await postStatus(a, alice, {
      status: "first #one",
      media_ids: [m1],
      spoiler_text: "",
    });
    const history0 = await callJson(a, null, "GET", `/api/v1/statuses/${s.id}/history`);
    assert.equal(history0.body.length, 1);
    assert.equal(history0.body[0].content, s.content);

    const edited = await callJson(a, alice, "PUT", `/api/v1/statuses/${s.id}`, {
      status: "second @bob #two",
      spoiler_text: "cw",
      language: "fr",
      media_ids: [m1],
      media_attributes: [{ id: m1, description: "new words", focus: "0.5,-0.5" }],
    });
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    assert.ok(edited.body.edited_at);
    assert.equal(edited.body.spoiler_text, "cw");
    assert.equal(edited.body.sensitive, true);
    assert.equal(edited.body.language, "fr");
    assert.deepEqual(edited.body.tags.map((t: any) => t.name), ["two"]);
    assert.deepEqual(edited.body.mentions.map((m: any) => m.id), [bob.id]);
    assert.equal(edited.body.media_attachments[0].description, "new words");
    assert.deepEqual(edited.body.media_attachments[0].meta.focus, { x: 0.5, y: -0.5 });
    const history = await callJson(a, null, "GET", `/api/v1/statuses/${s.id}/history`);
    assert.equal(history.body.length, 2);
    assert.match(history.body[0].content, /first/);
    assert.match(history.body[1].content, /second/);
    assert.equal(history.body[1].spoiler_text, "cw");
    assert.equal(history.body[0].account.id, alice.id);
    assert.equal(history.body[0].media_attachments.length, 1);
    assert.equal((await db.select().from(statusEdits)).length, 2);
    const source = await callJson(a, alice, "GET", `/api/v1/statuses/${s.id}/source`);
    assert.deepEqual(source.body, { id: s.id, text: "second @bob #two", spoiler_text: "cw" });
    assert.equal((await callJson(a, null, "GET", `/api/v1/statuses/${s.id}/source`)).status, 401);
    // Editing someone else's status, or with bad input.
    assert.equal(
      (await callJson(a, bob, "PUT", `/api/v1/statuses/${s.id}`, { status: "x" })).status,
      404,
    );
    const blank = await callJson(a, alice, "PUT", `/api/v1/statuses/${s.id}`, {
      status: "",
      media_ids: [],
    });
    assert.equal(blank.status, 422);
    assert.equal(blank.body.error, "Validation failed: Text can't be blank");
    const p = await postStatus(a, alice, {
      status: "poll",
      poll: { options: ["a", "b"], expires_in: 600 },
    });
    const repoll = await callJson(a, alice, "PUT", `/api/v1/statuses/${p.id}`, {
      status: "poll 2",
      poll: { options: ["c", "d", "e"], expires_in: 900 },
    });
    assert.deepEqual(repoll.body.poll.options.map((o: any) => o.title), ["c", "d", "e"]);
    const pollHistory = await callJson(a, alice, "GET", `/api/v1/statuses/${p.id}/history`);
    assert.deepEqual(pollHistory.body[0].poll, { options: [{ title: "a" }, { title: "b" }] });

    // Delete: own only; the answer carries the source text, media and poll for redraft.
    const reply = await postStatus(a, bob, { status: "reply", in_reply_to_id: s.id });
    assert.equal((await callJson(a, alice, "DELETE", `/api/v1/statuses/${reply.id}`)).status, 404);
    const [before] = await db.select().from(accounts).where(eq(accounts.id, bob.id));
    const gone = await callJson(a, bob, "DELETE", `/api/v1/statuses/${reply.id}`);
    assert.equal(gone.status, 200);
    assert.equal(gone.body.text, "reply");
    const [after] = await db.select().from(accounts).where(eq(accounts.id, bob.id));
    assert.equal(after.statusesCount, before.statusesCount - 1);
    const [parent] = await db.select().from(statuses).where(eq(statuses.id, s.id));
    assert.equal(parent.repliesCount, 0);
    assert.equal((await callJson(a, bob, "DELETE", `/api/v1/statuses/${reply.id}`)).status, 404);
    const redraft = await callJson(a, alice, "DELETE", `/api/v1/statuses/${s.id}`);
    assert.equal(redraft.body.text, "second @bob #two");
    assert.equal(redraft.body.media_attachments[0].id, m1);
    // The media may be attached again (redraft) …
    assert.ok((await postStatus(a, alice, { status: "again", media_ids: [m1] })).id);
    // … unless delete_media removed them.
    const m2 = await mediaRow(a, alice);
    const withMedia = await postStatus(a, alice, { media_ids: [m2] });
    await callJson(a, alice, "DELETE", `/api/v1/statuses/${withMedia.id}?delete_media=true`);
    assert.equal(
      (await db.select().from(mediaAttachments).where(eq(mediaAttachments.id, m2))).length,
      0,
    );
    const pollGone = await callJson(a, alice, "DELETE", `/api/v1/statuses/${p.id}`);
    assert.deepEqual(pollGone.body.poll.options.map((o: any) => o.title), ["c", "d", "e"]);

    // Scopes: write needs write:statuses and a user; reads take read:statuses when a token comes.
    const readOnly = await callJson(a, reader, "POST", "/api/v1/statuses", { status: "x" });
    assert.equal(readOnly.status, 403);
    assert.equal(
      (await callJson(a, null, "POST", "/api/v1/statuses", { status: "x" })).status,
      401,
    );
    const other = await postStatus(a, bob, { status: "public" });
    assert.equal((await callJson(a, reader, "GET", `/api/v1/statuses/${other.id}`)).status, 200);
    const writer = await createUser(a, "writer", { scopes: ["write"] });
    assert.equal((await callJson(a, writer, "GET", `/api/v1/statuses/${other.id}`)).status, 403);
    assert.equal(
      (await callJson(a, writer, "POST", "/api/v1/statuses", { status: "ok" })).status,
      200,
    );
    assert.equal((await callJson(a, writer, "DELETE", `/api/v1/statuses/${other.id}`)).status, 404);
  } finally {
    await a.close({ destroy: true });
  }
});
