/** POST /api/v1/statuses: every parameter, every refusal. */
import assert from "node:assert/strict";
import { and, eq } from "drizzle-orm";
import {
  accounts,
  idempotencyKeys,
  mediaAttachments,
  mentions,
  polls,
  quotes,
  scheduledStatuses,
  statuses,
  statusTags,
  tags,
} from "../../db/schema/mod.ts";
import { startInstance, test } from "../harness.ts";
import { callJson, postStatus } from "../fixtures/api.ts";
import { mediaRow } from "../fixtures/media.ts";
import { createUser } from "../fixtures/users.ts";
import { makeFollower } from "./helpers.ts";

test("posting: text to HTML, mentions, hashtags, counters, application, entity shape", async () => {
  const a = await startInstance();
  try {
    const alice = await createUser(a, "alice");
    const bob = await createUser(a, "bob");
    const db = a.rookery.ctx.database.db;
    const s = await postStatus(a, alice, {
      status: "Hello @bob and @nobody@unknown.invalid see https://example.com/a #Rookery #rookery",
      sensitive: "true",
      spoiler_text: "cw",
      visibility: "unlisted",
      language: "en",
    });
    assert.equal(s.account.id, alice.id);
    assert.equal(s.visibility, "unlisted");
    assert.equal(s.language, "en");
    assert.equal(s.sensitive, true);
    assert.equal(s.spoiler_text, "cw");
    assert.equal(s.uri, `${a.origin}/users/alice/statuses/${s.id}`);
    assert.equal(s.url, `${a.origin}/@alice/${s.id}`);
    assert.match(s.content, /class="u-url mention">@<span>bob<\/span>/);
    // An unknown remote mention stays plain text.
    assert.match(s.content, /@nobody@unknown\.invalid/);
    assert.match(s.content, /<a href="https:\/\/example\.com\/a"/);
    assert.match(s.content, /class="mention hashtag" rel="tag">#<span>Rookery<\/span>/);
    assert.deepEqual(s.mentions, [{
      id: bob.id,
      username: "bob",
      url: `${a.origin}/@bob`,
      acct: "bob",
    }]);
    assert.deepEqual(s.tags, [{ name: "rookery", url: `${a.origin}/tags/rookery` }]);
    assert.deepEqual(s.application, { name: "Test app", website: "https://app.example" });
    assert.equal(s.favourited, false);
    assert.equal(s.reblogged, false);
    assert.equal(s.bookmarked, false);
    assert.equal(s.muted, false);
    assert.equal(s.pinned, false);
    assert.deepEqual(s.filtered, []);
    assert.equal(s.reblog, null);
    assert.equal(s.poll, null);
    assert.equal(s.card, null);
    assert.equal(s.quote, null);
    assert.equal(s.edited_at, null);
    assert.deepEqual(s.quote_approval, {
      automatic: ["public"],
      manual: [],
      current_user: "automatic",
    });
    for (const key of ["replies_count", "reblogs_count", "favourites_count", "quotes_count"]) {
      assert.equal(s[key], 0, key);
    }
    assert.equal("text" in s, false);
    // One tag row for both spellings, and a link row.
    const tagRows = await db.select().from(tags);
    assert.equal(tagRows.length, 1);
    assert.equal(
      (await db.select().from(statusTags).where(eq(statusTags.statusId, s.id))).length,
      1,
    );
    // Mixed-case reuse.
    const s2 = await postStatus(a, bob, { status: "#ROOKERY again" });
    assert.deepEqual(s2.tags.map((t: any) => t.name), ["rookery"]);
    assert.equal((await db.select().from(tags)).length, 1);
    const [row] = await db.select().from(accounts).where(eq(accounts.id, alice.id));
    assert.equal(row.statusesCount, 1);
    assert.ok(row.lastStatusAt);
    const mentionRows = await db.select().from(mentions).where(eq(mentions.statusId, s.id));
    assert.deepEqual(mentionRows.map((m) => m.accountId), [bob.id]);

    // Visibility defaults to the user's preference, then public; a locked account's is private.
    const carol = await createUser(a, "carol", { settings: { default_privacy: "private" } });
    assert.equal((await postStatus(a, carol, { status: "x" })).visibility, "private");
    assert.equal((await postStatus(a, bob, { status: "y" })).visibility, "public");
    const dave = await createUser(a, "dave", { account: { locked: true } });
    assert.equal((await postStatus(a, dave, { status: "z" })).visibility, "private");

    // Replies: in_reply_to_*, replies_count, the thread.
    const reply = await postStatus(a, bob, { status: "@alice hi", in_reply_to_id: s.id });
    assert.equal(reply.in_reply_to_id, s.id);
    assert.equal(reply.in_reply_to_account_id, alice.id);
    const [parent] = await db.select().from(statuses).where(eq(statuses.id, s.id));
    assert.equal(parent.repliesCount, 1);
    const [child] = await db.select().from(statuses).where(eq(statuses.id, reply.id));
    assert.equal(child.conversationId, parent.conversationId);
    assert.ok(child.conversationId);
    const shown = await callJson(a, alice, "GET", `/api/v1/statuses/${s.id}`);
    assert.equal(shown.body.replies_count, 1);
  } finally {
    await a.close({ destroy: true });
  }
});

test("posting: validation errors, limits, languages, media and polls", async () => {
  const a = await startInstance();
  try {
    const alice = await createUser(a, "alice");
    const bob = await createUser(a, "bob");
    const db = a.rookery.ctx.database.db;
    const fail = async (body: Record<string, unknown>, status: number, error?: string | RegExp) => {
      const res = await callJson(a, alice, "POST", "/api/v1/statuses", body);
      assert.equal(res.status, status, JSON.stringify(body) + " → " + JSON.stringify(res.body));
      if (typeof error === "string") assert.equal(res.body.error, error);
      else if (error) assert.match(res.body.error, error);
    };
    await fail({}, 422, "Validation failed: Text can't be blank");
    await fail({ status: "   " }, 422, "Validation failed: Text can't be blank");
    await fail(
      { status: "x".repeat(501) },
      422,
      "Validation failed: Text character limit of 500 exceeded",
    );
    // The content warning counts too.
    await fail({ status: "x".repeat(400), spoiler_text: "y".repeat(101) }, 422, /character limit/);
    assert.equal(
      (await postStatus(a, alice, { status: "x".repeat(500) })).content.length > 500,
      true,
    );
    // A URL counts as 23 characters, whatever its length.
    const url = `https://example.com/${"a".repeat(600)}`;
    const withUrl = await postStatus(a, alice, { status: `${"b".repeat(470)} ${url}` });
    assert.ok(withUrl.id);
    await fail({ status: `${"b".repeat(477)} ${url}` }, 422, /character limit/);
    // Remote mentions count by username only.
    const remoteMention = `@someone@${"d".repeat(60)}.example`;
    assert.ok((await postStatus(a, alice, { status: `${"c".repeat(480)} ${remoteMention}` })).id);

    await fail({ status: "x", visibility: "everyone" }, 422, /Visibility/);
    await fail({ status: "x", language: "english" }, 422, /Language/);
    await fail({ status: "x", language: "xx" }, 422, /Language/);
    assert.equal((await postStatus(a, alice, { status: "x", language: "DE" })).language, "de");
    await fail({ status: "x", in_reply_to_id: "99999999" }, 404, /does not appear to exist/);
    await fail({ status: "x", in_reply_to_id: "junk" }, 404);
    await fail({ status: "x", quoted_status_id: "99999999" }, 404, /does not appear to exist/);
    await fail({ status: "x", quote_approval_policy: "everyone" }, 422);

    // Media: own and unattached only, at most four, status optional.
    const m1 = await mediaRow(a, alice);
    const withMedia = await postStatus(a, alice, { media_ids: [m1] });
    assert.equal(withMedia.content, "");
    assert.equal(withMedia.media_attachments.length, 1);
    const att = withMedia.media_attachments[0];
    assert.equal(att.id, m1);
    assert.equal(att.type, "image");
    assert.equal(att.description, "a picture");
    assert.match(att.url, new RegExp(`^${a.origin}/system/media_attachments/files/`));
    assert.ok(att.preview_url);
    assert.equal(att.remote_url, null);
    assert.deepEqual(att.meta.original, { width: 2, height: 1, size: "2x1", aspect: 2 });
    assert.ok(att.blurhash);
    await fail({ media_ids: [m1] }, 422, /not found or already attached/);
    const theirs = await mediaRow(a, bob);
    await fail({ status: "x", media_ids: [theirs] }, 422, /not found or already attached/);
    await fail({ status: "x", media_ids: ["12345"] }, 422);
    const five = [];
    for (let i = 0; i < 5; i++) five.push(await mediaRow(a, alice));
    await fail({ status: "x", media_ids: five }, 422, "Cannot attach more than 4 files");
    // Nothing half-written: the refused media stay unattached.
    const [stillFree] = await db.select().from(mediaAttachments)
      .where(eq(mediaAttachments.id, theirs));
    assert.equal(stillFree.statusId, null);

    // Polls.
    const poll = (over: Record<string, unknown> = {}) => ({
      options: ["a", "b"],
      expires_in: 3600,
      ...over,
    });
    const p = await postStatus(a, alice, {
      status: "vote",
      poll: poll({ multiple: true, hide_totals: true }),
    });
    assert.equal(p.poll.multiple, true);
    assert.equal(p.poll.expired, false);
    // Hidden totals: no counts for anyone while open, the author included.
    assert.deepEqual(p.poll.options, [{ title: "a", votes_count: null }, {
      title: "b",
      votes_count: null,
    }]);
    assert.equal(p.poll.voted, true);
    assert.deepEqual(p.poll.own_votes, []);
    assert.equal(p.poll.votes_count, 0);
    assert.equal(p.poll.voters_count, 0);
    const expires = Date.parse(p.poll.expires_at) - Date.now();
    assert.ok(expires > 3500_000 && expires <= 3600_000, String(expires));
    const seen = await callJson(a, bob, "GET", `/api/v1/statuses/${p.id}`);
    assert.deepEqual(seen.body.poll.options, [{ title: "a", votes_count: null }, {
      title: "b",
      votes_count: null,
    }]);
    assert.equal(seen.body.poll.voted, false);
    const single = await postStatus(a, alice, { status: "v", poll: poll() });
    assert.equal(single.poll.voters_count, null);
    // Form-encoded, as most clients send it.
    const form = new URLSearchParams();
    form.append("status", "form poll");
    form.append("poll[options][]", "yes");
    form.append("poll[options][]", "no");
    form.append("poll[expires_in]", "600");
    form.append("poll[multiple]", "false");
    const res = await a.request("/api/v1/statuses", {
      method: "POST",
      headers: { Authorization: `Bearer ${alice.token}` },
      body: form,
    });
    assert.equal(res.status, 200);
    assert.deepEqual((await res.json()).poll.options.map((o: any) => o.title), ["yes", "no"]);

    await fail({ status: "x", poll: poll({ options: ["a"] }) }, 422, /Poll options/);
    await fail(
      { status: "x", poll: poll({ options: ["a", "b", "c", "d", "e"] }) },
      422,
      /Poll options/,
    );
    await fail(
      { status: "x", poll: poll({ options: ["a", "x".repeat(51)] }) },
      422,
      /50 characters/,
    );
    await fail({ status: "x", poll: poll({ options: ["a", "a"] }) }, 422, /duplicate/);
    await fail({ status: "x", poll: poll({ expires_in: 60 }) }, 422, /too soon/);
    await fail({ status: "x", poll: poll({ expires_in: 2_629_747 }) }, 422, /too far/);
    await fail({ status: "x", poll: { options: ["a", "b"] } }, 422);
    // A poll and media together (Mastodon 4.7).
    const m2 = await mediaRow(a, alice);
    const both = await postStatus(a, alice, { status: "x", media_ids: [m2], poll: poll() });
    assert.equal(both.media_attachments.length, 1);
    assert.deepEqual(both.poll.options.map((o: any) => o.title), ["a", "b"]);
    assert.equal(both.card, null);
    // A poll alone may go without text.
    assert.ok((await postStatus(a, alice, { poll: poll() })).poll);
    assert.equal((await db.select().from(polls)).length, 5);
  } finally {
    await a.close({ destroy: true });
  }
});

test("posting: Idempotency-Key, scheduled_at, quotes", async () => {
  const a = await startInstance();
  try {
    const alice = await createUser(a, "alice");
    const bob = await createUser(a, "bob");
    const carol = await createUser(a, "carol");
    const db = a.rookery.ctx.database.db;

    // Idempotency: the same key gives the same status, one row.
    const headers = { "Idempotency-Key": "abc-123" };
    const first = await callJson(a, alice, "POST", "/api/v1/statuses", { status: "once" }, headers);
    const second = await callJson(
      a,
      alice,
      "POST",
      "/api/v1/statuses",
      { status: "once" },
      headers,
    );
    assert.equal(first.status, 200);
    assert.equal(second.body.id, first.body.id);
    const rows = await db.select().from(statuses).where(eq(statuses.accountId, alice.id));
    assert.equal(rows.length, 1);
    // Another user's identical key is theirs alone; an expired key starts over.
    const other = await callJson(a, bob, "POST", "/api/v1/statuses", { status: "once" }, headers);
    assert.notEqual(other.body.id, first.body.id);
    await db.update(idempotencyKeys).set({ createdAt: new Date(Date.now() - 2 * 3600_000) })
      .where(and(eq(idempotencyKeys.accountId, alice.id)));
    const later = await callJson(a, alice, "POST", "/api/v1/statuses", { status: "once" }, headers);
    assert.notEqual(later.body.id, first.body.id);

    // Scheduling.
    const at = new Date(Date.now() + 10 * 60_000).toISOString();
    const m = await mediaRow(a, alice);
    const scheduled = await callJson(a, alice, "POST", "/api/v1/statuses", {
      status: "later",
      scheduled_at: at,
      media_ids: [m],
      visibility: "unlisted",
    });
    assert.equal(scheduled.status, 200, JSON.stringify(scheduled.body));
    assert.equal(scheduled.body.scheduled_at, at);
    assert.deepEqual(Object.keys(scheduled.body).sort(), [
      "id",
      "media_attachments",
      "params",
      "scheduled_at",
    ]);
    assert.equal(scheduled.body.params.text, "later");
    assert.equal(scheduled.body.params.visibility, "unlisted");
    assert.deepEqual(scheduled.body.params.media_ids, [m]);
    assert.equal(scheduled.body.params.poll, null);
    assert.equal(scheduled.body.params.in_reply_to_id, null);
    assert.equal(scheduled.body.params.scheduled_at, null);
    assert.equal(scheduled.body.media_attachments[0].id, m);
    const [stored] = await db.select().from(scheduledStatuses);
    assert.deepEqual(stored.params, scheduled.body.params);
    assert.equal(
      (await db.select().from(statuses).where(eq(statuses.content, "<p>later</p>"))).length,
      0,
    );
    // The reserved media cannot go on another post.
    const taken = await callJson(a, alice, "POST", "/api/v1/statuses", { media_ids: [m] });
    assert.equal(taken.status, 422);
    const early = await callJson(a, alice, "POST", "/api/v1/statuses", {
      status: "too soon",
      scheduled_at: new Date(Date.now() + 60_000).toISOString(),
    });
    assert.equal(early.status, 422);
    assert.equal(
      early.body.error,
      "Validation failed: Scheduled at The scheduled date must be in the future",
    );
    const bad = await callJson(a, alice, "POST", "/api/v1/statuses", {
      status: "x",
      scheduled_at: "soon",
    });
    assert.equal(bad.status, 422);

    // Quotes: public policy, accepted at once, counted, inline RE: link.
    const original = await postStatus(a, bob, { status: "quote me" });
    const q = await postStatus(a, alice, { status: "look", quoted_status_id: original.id });
    assert.equal(q.quote.state, "accepted");
    assert.equal(q.quote.quoted_status.id, original.id);
    assert.match(q.content, /^<p class="quote-inline">RE: <a href=/);
    const [qs] = await db.select().from(statuses).where(eq(statuses.id, original.id));
    assert.equal(qs.quotesCount, 1);
    const [qrow] = await db.select().from(quotes).where(eq(quotes.statusId, q.id));
    assert.equal(qrow.state, "accepted");
    // With the link in the text, no inline paragraph.
    const linked = await postStatus(a, alice, {
      status: `see ${original.url}`,
      quoted_status_id: original.id,
    });
    assert.doesNotMatch(linked.content, /quote-inline/);

    // Policies: nobody refuses, followers needs a follow.
    const closed = await postStatus(a, bob, {
      status: "no quotes",
      quote_approval_policy: "nobody",
    });
    assert.deepEqual(closed.quote_approval.automatic, []);
    const refused = await callJson(a, alice, "POST", "/api/v1/statuses", {
      status: "x",
      quoted_status_id: closed.id,
    });
    assert.equal(refused.status, 422);
    // Its author may still quote it.
    assert.ok((await postStatus(a, bob, { status: "self", quoted_status_id: closed.id })).quote);
    const fans = await postStatus(a, bob, {
      status: "followers",
      quote_approval_policy: "followers",
    });
    const notYet = await callJson(a, carol, "POST", "/api/v1/statuses", {
      status: "x",
      quoted_status_id: fans.id,
    });
    assert.equal(notYet.status, 422);
    await makeFollower(a, carol, bob);
    assert.ok((await postStatus(a, carol, { status: "x", quoted_status_id: fans.id })).quote);
    // Private posts: others cannot quote; the author's quote becomes private.
    const secret = await postStatus(a, bob, { status: "private", visibility: "private" });
    assert.equal(secret.quote_approval.current_user, "automatic");
    const viaFollower = await callJson(a, carol, "POST", "/api/v1/statuses", {
      status: "x",
      quoted_status_id: secret.id,
    });
    assert.equal(viaFollower.status, 422);
    const own = await postStatus(a, bob, {
      status: "mine",
      quoted_status_id: secret.id,
      visibility: "public",
    });
    assert.equal(own.visibility, "private");
    // Direct posts cannot be quoted, not even by their author.
    const dm = await postStatus(a, bob, { status: "@alice psst", visibility: "direct" });
    const dmQuote = await callJson(a, bob, "POST", "/api/v1/statuses", {
      status: "x",
      quoted_status_id: dm.id,
    });
    assert.equal(dmQuote.status, 422);
    // A direct quote must mention the quoted author.
    const direct = await callJson(a, alice, "POST", "/api/v1/statuses", {
      status: "x",
      quoted_status_id: original.id,
      visibility: "direct",
    });
    assert.equal(direct.status, 422);
    assert.ok(
      (await postStatus(a, alice, {
        status: "@bob x",
        quoted_status_id: original.id,
        visibility: "direct",
      })).quote,
    );
    // Quote approval policy of private posts is nobody.
    const [secretRow] = await db.select().from(statuses).where(eq(statuses.id, secret.id));
    assert.equal(secretRow.quoteApprovalPolicy, "nobody");
  } finally {
    await a.close({ destroy: true });
  }
});
