/**
 * The web app's composer fields and the pages around a post, over HTTP (no
 * browser, no script): language, content warning, visibility, a poll only
 * when ticked, two images with alt text from the file slots (and a refused
 * third file keeping the two uploaded), a schedule typed in UTC, the
 * scheduled posts page (reschedule, cancel, someone else's is 404), the
 * edit history, delete and redraft (the composer comes back with the text
 * and the media, which post again), and the account's posts read shared
 * with the API.
 */
import assert from "node:assert/strict";
import { afterAll, startInstance, test } from "../harness.ts";
import { ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { signInOverHttp } from "../admin_web/http_session.ts";
import { image } from "../media/helpers.ts";

const instance = await startInstance();
afterAll(() => instance.close({ destroy: true }));

const ann = await createUser(instance, "ann");
const bob = await createUser(instance, "bob");
const session = await signInOverHttp(instance, "ann", "/");

/** Posts a multipart form as the session (repeated keys allowed). */
function postForm(path: string, fields: [string, string | File][]): Promise<Response> {
  const body = new FormData();
  body.append("authenticity_token", session.token);
  for (const [key, value] of fields) body.append(key, value);
  return instance.request(path, {
    method: "POST",
    redirect: "manual",
    headers: { cookie: session.cookie },
    body,
  });
}

async function annStatuses(): Promise<Record<string, unknown>[]> {
  return await ok(instance, ann.token, "GET", `/api/v1/accounts/${ann.id}/statuses`);
}

async function png(size: number): Promise<File> {
  return new File([await image("png", size, size)], "p.png", { type: "image/png" });
}

test("the composer's fields reach the post", async (t) => {
  await t.step("the page offers them", async () => {
    const html = await (await session.get("/statuses/new")).text();
    for (
      const part of [
        'enctype="multipart/form-data"',
        'name="language"',
        'name="poll_enabled"',
        'name="poll[options][]"',
        'name="scheduled_local"',
        'name="media[0][file]"',
        'name="media[3][description]"',
      ]
    ) assert.ok(html.includes(part), part);
  });

  await t.step("language, warning, visibility, poll", async () => {
    const res = await postForm("/statuses", [
      ["status", "Which sail?"],
      ["spoiler_text", "Boats"],
      ["visibility", "unlisted"],
      ["language", "fr"],
      ["poll_enabled", "true"],
      ["poll[options][]", "Jib"],
      ["poll[options][]", "Genoa"],
      ["poll[options][]", ""],
      ["poll[expires_in]", "3600"],
      ["poll[multiple]", "true"],
      ["idempotency_key", crypto.randomUUID()],
    ]);
    assert.equal(res.status, 303);
    const [status] = await annStatuses();
    assert.equal(status.spoiler_text, "Boats");
    assert.equal(status.visibility, "unlisted");
    assert.equal(status.language, "fr");
    const poll = status.poll as { options: { title: string }[]; multiple: boolean };
    assert.deepEqual(poll.options.map((o) => o.title), ["Jib", "Genoa"]);
    assert.equal(poll.multiple, true);
  });

  await t.step("a poll left unticked is not posted", async () => {
    const res = await postForm("/statuses", [
      ["status", "No poll here"],
      ["poll[options][]", "A"],
      ["poll[options][]", "B"],
      ["poll[expires_in]", "3600"],
    ]);
    assert.equal(res.status, 303);
    const [status] = await annStatuses();
    assert.equal(status.poll, null);
  });

  await t.step("two images with alt text from the slots", async () => {
    const res = await postForm("/statuses", [
      ["status", "Two pictures"],
      ["media[0][file]", await png(20)],
      ["media[0][description]", "A red square"],
      ["media[1][file]", await png(30)],
      ["media[1][description]", "A bigger square"],
      ["sensitive", "true"],
    ]);
    assert.equal(res.status, 303);
    const [status] = await annStatuses();
    const media = status.media_attachments as { description: string }[];
    assert.deepEqual(media.map((m) => m.description), ["A red square", "A bigger square"]);
    assert.equal(status.sensitive, true);
  });

  await t.step("a refused file keeps the ones uploaded before it", async () => {
    const res = await postForm("/statuses", [
      ["status", "Keep my picture"],
      ["media[0][file]", await png(20)],
      ["media[0][description]", "Kept"],
      ["media[1][file]", new File(["not an image"], "x.txt", { type: "text/plain" })],
    ]);
    assert.equal(res.status, 422);
    const html = await res.text();
    assert.ok(html.includes("Keep my picture"));
    const kept = html.match(/name="media_ids\[\]" value="(\d+)"/);
    assert.ok(kept, "the uploaded file is kept");
    assert.ok(html.includes(">Kept</textarea>"));
    const again = await postForm("/statuses", [
      ["status", "Keep my picture"],
      ["media_ids[]", kept[1]],
      [`media_attributes[${kept[1]}][id]`, kept[1]],
      [`media_attributes[${kept[1]}][description]`, "Kept, described again"],
    ]);
    assert.equal(again.status, 303);
    const [status] = await annStatuses();
    const media = status.media_attachments as { id: string; description: string }[];
    assert.deepEqual(media.map((m) => [m.id, m.description]), [[kept[1], "Kept, described again"]]);
  });

  await t.step("someone else's media id is not attached", async () => {
    const bobs = await ok(instance, bob.token, "POST", "/api/v1/statuses", { status: "x" });
    const res = await postForm("/statuses", [["status", "Not yours"], ["media_ids[]", bobs.id]]);
    assert.equal(res.status, 303);
    const [status] = await annStatuses();
    assert.deepEqual(status.media_attachments, []);
  });
});

test("scheduled posts: scheduled in UTC, listed, moved, cancelled", async (t) => {
  const at = new Date(Date.now() + 2 * 3600_000);
  const local = at.toISOString().slice(0, 16);
  const res = await postForm("/statuses", [["status", "Later, please"], [
    "scheduled_local",
    local,
  ]]);
  assert.equal(res.status, 303);
  assert.match(res.headers.get("location")!, /^\/scheduled_statuses\?notice=scheduled/);
  const [scheduled] = await ok(instance, ann.token, "GET", "/api/v1/scheduled_statuses");
  assert.equal(scheduled.scheduled_at.slice(0, 16), local);

  await t.step("the page lists it", async () => {
    const html = await (await session.get("/scheduled_statuses")).text();
    assert.ok(html.includes("Later, please"));
    assert.ok(html.includes(`action="/scheduled_statuses/${scheduled.id}/update"`));
  });

  await t.step("too soon is refused with the API's message", async () => {
    const soon = new Date(Date.now() + 60_000).toISOString().slice(0, 16);
    const res = await postForm(`/scheduled_statuses/${scheduled.id}/update`, [
      ["scheduled_local", soon],
    ]);
    assert.equal(res.status, 422);
    assert.ok((await res.text()).includes('role="alert"'));
  });

  await t.step("rescheduled", async () => {
    const later = new Date(Date.now() + 5 * 3600_000).toISOString().slice(0, 16);
    const res = await postForm(`/scheduled_statuses/${scheduled.id}/update`, [
      ["scheduled_local", later],
    ]);
    assert.equal(res.status, 303);
    const row = await ok(instance, ann.token, "GET", `/api/v1/scheduled_statuses/${scheduled.id}`);
    assert.equal(row.scheduled_at.slice(0, 16), later);
  });

  await t.step("someone else's is not found", async () => {
    const bobSession = await signInOverHttp(instance, "bob", "/");
    const res = await bobSession.post(`/scheduled_statuses/${scheduled.id}/delete`);
    assert.equal(res.status, 404);
  });

  await t.step("cancelled", async () => {
    const res = await postForm(`/scheduled_statuses/${scheduled.id}/delete`, []);
    assert.equal(res.status, 303);
    assert.deepEqual(await ok(instance, ann.token, "GET", "/api/v1/scheduled_statuses"), []);
  });
});

test("history, delete and redraft", async (t) => {
  const original = await postStatus(instance, ann.token, "First words");
  await ok(instance, ann.token, "PUT", `/api/v1/statuses/${original.id}`, {
    status: "Second words",
  });

  await t.step("the history shows both versions, newest first", async () => {
    const html = await (await session.get(`/statuses/${original.id}/history`)).text();
    const second = html.indexOf("Second words");
    const first = html.indexOf("First words");
    assert.ok(second > 0 && first > second);
  });

  await t.step("the confirmation offers redraft", async () => {
    const html = await (await session.get(`/statuses/${original.id}/delete`)).text();
    assert.ok(html.includes("Delete and redraft"));
    assert.ok(html.includes('name="redraft" value="1"'));
  });

  await t.step("redraft: the composer with the text and the media", async () => {
    const picture = await postForm("/statuses", [
      ["status", "Redraft me"],
      ["spoiler_text", "Careful"],
      ["media[0][file]", await png(24)],
      ["media[0][description]", "Square"],
    ]);
    assert.equal(picture.status, 303);
    const [status] = await annStatuses();
    const mediaId = (status.media_attachments as { id: string }[])[0].id;
    const res = await postForm(`/statuses/${status.id}/delete`, [["redraft", "1"]]);
    assert.equal(res.status, 200);
    const html = await res.text();
    assert.ok(html.includes(">Redraft me</textarea>"));
    assert.ok(html.includes('value="Careful"'));
    assert.ok(html.includes(`name="media_ids[]" value="${mediaId}"`));
    const again = await postForm("/statuses", [
      ["status", "Redraft me, again"],
      ["media_ids[]", mediaId],
    ]);
    assert.equal(again.status, 303);
    const [posted] = await annStatuses();
    assert.equal(posted.content, "<p>Redraft me, again</p>");
    assert.deepEqual((posted.media_attachments as { id: string }[]).map((m) => m.id), [mediaId]);
  });
});

test("the script's uploads: POST /media, GET /media/:id, POST /media/:id/delete", async (t) => {
  const fragment = { "Rookery-Fragment": "1" };
  const send = async (path: string, fields: [string, string | File][]) => {
    const body = new FormData();
    body.append("authenticity_token", session.token);
    for (const [key, value] of fields) body.append(key, value);
    return await instance.request(path, {
      method: "POST",
      headers: { cookie: session.cookie, ...fragment },
      body,
    });
  };
  let id = "";

  await t.step("an image: the attachment item to append", async () => {
    const res = await send("/media", [["file", await png(20)], ["description", "Dot"]]);
    assert.equal(res.status, 200);
    const html = await res.text();
    assert.match(
      html,
      /^<li class="attachment" id="attachment-(\d+)"[^>]*data-append="attachments"/,
    );
    assert.ok(html.includes(">Dot</textarea>"));
    id = html.match(/name="media_ids\[\]" value="(\d+)"/)![1];
  });

  await t.step("a refused file: a 422 alert with the API's words", async () => {
    const res = await send("/media", [["file", new File(["x"], "x.txt", { type: "text/plain" })]]);
    assert.equal(res.status, 422);
    assert.ok((await res.text()).includes("File content type is invalid"));
  });

  await t.step("polled, then removed; someone else's is 404", async () => {
    const again = await instance.request(`/media/${id}`, {
      headers: { cookie: session.cookie, ...fragment },
    });
    assert.equal(again.status, 200);
    assert.ok((await again.text()).includes(`data-replace="attachment-${id}"`));
    const bobSession = await signInOverHttp(instance, "bob", "/");
    const bobs = await bobSession.post(`/media/${id}/delete`);
    assert.equal(bobs.status, 404);
    await bobs.body?.cancel();
    const res = await send(`/media/${id}/delete`, []);
    assert.equal(res.status, 200);
    assert.ok((await res.text()).includes(`data-remove="attachment-${id}"`));
    const gone = await send(`/media/${id}/delete`, []);
    assert.equal(gone.status, 404);
    await gone.body?.cancel();
  });
});

test("replies and quotes start from their target", async (t) => {
  const parent = await postStatus(instance, bob.token, "Bob asks @ann something", {
    visibility: "private",
  });
  await ok(instance, ann.token, "POST", `/api/v1/accounts/${bob.id}/follow`);

  await t.step("a reply: the target above, mentions and the narrower visibility", async () => {
    const res = await session.get(`/statuses/new?in_reply_to_id=${parent.id}`);
    assert.equal(res.status, 200);
    const html = await res.text();
    assert.ok(html.includes("Replying to"));
    assert.ok(html.includes("Bob asks"));
    assert.ok(html.includes(">@bob </textarea>"), "the author mentioned, not oneself");
    assert.match(html, /<option value="private" selected/);
  });

  await t.step("a quote with a quote policy", async () => {
    const quoted = await postStatus(instance, bob.token, "Quote me");
    const page = await (await session.get(`/statuses/new?quoted_status_id=${quoted.id}`)).text();
    assert.ok(page.includes("Quoting"));
    assert.ok(page.includes(`name="quoted_status_id" value="${quoted.id}"`));
    const res = await postForm("/statuses", [
      ["status", "Quoting Bob"],
      ["quoted_status_id", quoted.id],
      ["quote_approval_policy", "followers"],
    ]);
    assert.equal(res.status, 303);
    const [status] = await annStatuses();
    assert.equal((status.quote as { quoted_status: { id: string } }).quoted_status.id, quoted.id);
    assert.deepEqual(
      (status.quote_approval as { automatic: string[] }).automatic,
      ["followers"],
    );
  });

  await t.step("a target the viewer may not see is not shown", async () => {
    const hidden = await postStatus(instance, bob.token, "Secret", { visibility: "direct" });
    const html = await (await session.get(`/statuses/new?in_reply_to_id=${hidden.id}`)).text();
    assert.ok(!html.includes("Secret"));
  });
});

test("refused composer input comes back as the page, never a 500", async (t) => {
  const refused = async (fields: [string, string | File][], words: string) => {
    const res = await postForm("/statuses", [["status", "Refused post"], ...fields]);
    assert.equal(res.status, 422);
    const html = await res.text();
    assert.ok(html.includes(words), `${words} in the alert`);
    assert.ok(html.includes(">Refused post</textarea>"), "the text is kept");
  };
  await t.step("more than four files", async () => {
    const files: [string, File][] = [];
    for (let i = 0; i < 5; i++) files.push([`media[${i}][file]`, await png(10)]);
    await refused(files, "at most 4 files");
  });
  await t.step("a ticked poll without choices", async () => {
    await refused([["poll_enabled", "true"], ["poll[expires_in]", "3600"]], "Poll");
  });
  await t.step("a schedule that is not a time", async () => {
    await refused([["scheduled_local", "tomorrow-ish"]], "Scheduled at is invalid");
  });
  await t.step("an alt text over the limit", async () => {
    await refused(
      [["media[0][file]", await png(10)], ["media[0][description]", "x".repeat(10_001)]],
      "too long",
    );
  });
});

test("editing keeps the poll unless ticked and changes alt texts", async () => {
  const posted = await postForm("/statuses", [
    ["status", "Edit my picture"],
    ["media[0][file]", await png(16)],
    ["media[0][description]", "Old words"],
  ]);
  assert.equal(posted.status, 303);
  const [status] = await annStatuses();
  const mediaId = (status.media_attachments as { id: string }[])[0].id;
  const page = await (await session.get(`/statuses/${status.id}/edit`)).text();
  assert.ok(page.includes(">Old words</textarea>"));
  assert.ok(!page.includes('name="media[0][file]"'), "no new files in an edit");
  const res = await postForm(`/statuses/${status.id}/update`, [
    ["status", "Edited picture"],
    ["media_ids[]", mediaId],
    [`media_attributes[${mediaId}][id]`, mediaId],
    [`media_attributes[${mediaId}][description]`, "New words"],
  ]);
  assert.equal(res.status, 303);
  const after = await ok(instance, ann.token, "GET", `/api/v1/statuses/${status.id}`);
  assert.equal(after.media_attachments[0].description, "New words");
  assert.equal(after.content, "<p>Edited picture</p>");
});

test("saving an edit's text leaves its poll, votes and end alone", async () => {
  const status = await postStatus(instance, ann.token, "Vote now", {
    poll: { options: ["Yes", "No"], expires_in: 3600 },
  });
  const poll = status.poll as { id: string; expires_at: string };
  await ok(instance, bob.token, "POST", `/api/v1/polls/${poll.id}/votes`, { choices: ["0"] });
  const page = await (await session.get(`/statuses/${status.id}/edit`)).text();
  assert.ok(page.includes('value="Yes"'));
  assert.ok(!/name="poll_enabled" value="true" checked/.test(page), "the poll box is not ticked");
  // What the page sends back as it is: the choices and the default duration, unticked.
  const res = await postForm(`/statuses/${status.id}/update`, [
    ["status", "Vote now, please"],
    ["poll[options][]", "Yes"],
    ["poll[options][]", "No"],
    ["poll[expires_in]", "86400"],
  ]);
  assert.equal(res.status, 303);
  const after = await ok(instance, ann.token, "GET", `/api/v1/statuses/${status.id}`);
  assert.equal(after.poll.expires_at, poll.expires_at);
  assert.equal(after.poll.votes_count, 1);
});

test("the script's delete: the article's data-remove, no redirect", async () => {
  const status = await postStatus(instance, ann.token, "Delete me quietly");
  const body = new FormData();
  body.append("authenticity_token", session.token);
  const res = await instance.request(`/statuses/${status.id}/delete`, {
    method: "POST",
    headers: { cookie: session.cookie, "Rookery-Fragment": "1" },
    body,
  });
  assert.equal(res.status, 200);
  assert.match(await res.text(), new RegExp(`^<div data-remove="status-${status.id}"`));
  const gone = await instance.request(`/api/v1/statuses/${status.id}`, {
    headers: { authorization: `Bearer ${ann.token}` },
  });
  assert.equal(gone.status, 404);
  await gone.body?.cancel();
});
