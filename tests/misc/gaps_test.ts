/**
 * The small gaps of issue 13, over HTTP on one instance: lists of an
 * account, identity proofs, conversation unread, the domain block preview,
 * accounts of a notification group, peers search, and the privacy policy and
 * terms of service read from the operator's files.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { startInstance, test } from "../harness.ts";
import { callJson, links, ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { newId } from "../../db/ids.ts";
import { accounts, follows } from "../../db/schema/mod.ts";

const dir = await Deno.makeTempDir({ prefix: "rookery-docs-" });
const privacyFile = join(dir, "privacy.md");
const termsFile = join(dir, "terms.html");
await Deno.writeTextFile(
  privacyFile,
  "# Privacy\n\nWe keep *little*.\n\n- your posts\n- <b>nothing else</b>\n",
);
await Deno.writeTextFile(termsFile, "<h2>Terms</h2>\n<p>Be kind.</p>\n");
const instance = await startInstance({
  env: { PRIVACY_POLICY_FILE: privacyFile, TERMS_OF_SERVICE_FILE: termsFile },
});
const db = instance.rookery.ctx.database.db;

async function remote(username: string, domain: string): Promise<string> {
  const [row] = await db.insert(accounts).values({
    id: newId(),
    username,
    domain,
    uri: `https://${domain}/users/${username}`,
    url: `https://${domain}/@${username}`,
    fetchedAt: new Date(),
  }).returning();
  return row.id;
}

async function follow(from: string, to: string) {
  await db.insert(follows).values({ id: newId(), accountId: from, targetAccountId: to });
}

test("small gaps of the Mastodon API", async (t) => {
  try {
    await steps(t);
  } finally {
    await instance.close({ destroy: true });
    await Deno.remove(dir, { recursive: true });
  }
});

async function steps(t: Deno.TestContext) {
  const [alice, bob, carol] = await Promise.all([
    createUser(instance, "alice"),
    createUser(instance, "bob"),
    createUser(instance, "carol"),
  ]);

  await t.step(
    "GET /api/v1/accounts/:id/lists: the caller's lists holding the account",
    async () => {
      await ok(instance, alice, "POST", `/api/v1/accounts/${bob.id}/follow`);
      await ok(instance, carol, "POST", `/api/v1/accounts/${bob.id}/follow`);
      const friends = await ok(instance, alice, "POST", "/api/v1/lists", { title: "Friends" });
      const work = await ok(instance, alice, "POST", "/api/v1/lists", { title: "Work" });
      await ok(instance, alice, "POST", "/api/v1/lists", { title: "Empty" });
      const carols = await ok(instance, carol, "POST", "/api/v1/lists", { title: "Carol's" });
      for (const [who, list] of [[alice, friends], [alice, work], [carol, carols]] as const) {
        await ok(instance, who, "POST", `/api/v1/lists/${list.id}/accounts`, {
          account_ids: [bob.id],
        });
      }
      const lists = await ok<any[]>(instance, alice, "GET", `/api/v1/accounts/${bob.id}/lists`);
      assert.deepEqual(lists, [friends, work], "oldest first, only alice's lists");
      assert.deepEqual(await ok(instance, alice, "GET", `/api/v1/accounts/${carol.id}/lists`), []);
      assert.deepEqual(
        (await ok<any[]>(instance, carol, "GET", `/api/v1/accounts/${bob.id}/lists`)).map((l) =>
          l.id
        ),
        [carols.id],
      );
      // After removal it is gone; unknown account 404; no token 401.
      await ok(instance, alice, "DELETE", `/api/v1/lists/${work.id}/accounts`, {
        account_ids: [bob.id],
      });
      assert.deepEqual(await ok(instance, alice, "GET", `/api/v1/accounts/${bob.id}/lists`), [
        friends,
      ]);
      assert.equal(
        (await callJson(instance, alice, "GET", "/api/v1/accounts/999999/lists")).status,
        404,
      );
      assert.equal(
        (await callJson(instance, null, "GET", `/api/v1/accounts/${bob.id}/lists`)).status,
        401,
      );
    },
  );

  await t.step("GET /api/v1/accounts/:id/identity_proofs: always []", async () => {
    assert.deepEqual(
      await ok(instance, alice, "GET", `/api/v1/accounts/${bob.id}/identity_proofs`),
      [],
    );
    const missing = await callJson(
      instance,
      alice,
      "GET",
      "/api/v1/accounts/999999/identity_proofs",
    );
    assert.equal(missing.status, 404);
  });

  await t.step("POST /api/v1/conversations/:id/unread", async () => {
    await postStatus(instance, alice, `@bob secret`, { visibility: "direct" });
    const [conv] = await ok<any[]>(instance, alice, "GET", "/api/v1/conversations");
    assert.equal(conv.unread, false);
    const unread = await ok(instance, alice, "POST", `/api/v1/conversations/${conv.id}/unread`);
    assert.equal(unread.id, conv.id);
    assert.equal(unread.unread, true);
    assert.equal(
      (await ok<any[]>(instance, alice, "GET", "/api/v1/conversations"))[0].unread,
      true,
    );
    const read = await ok(instance, alice, "POST", `/api/v1/conversations/${conv.id}/read`);
    assert.equal(read.unread, false);
    // Someone else's conversation, an unknown one, a malformed id: 404.
    for (const path of [`${conv.id}/unread`, "999999/unread", "abc/unread"]) {
      const res = await callJson(instance, carol, "POST", `/api/v1/conversations/${path}`);
      assert.equal(res.status, 404, path);
      assert.deepEqual(res.body, { error: "Record not found" });
    }
    const readOnly = await createUser(instance, "reader", { scopes: ["read"] });
    const refused = await callJson(
      instance,
      readOnly,
      "POST",
      `/api/v1/conversations/${conv.id}/unread`,
    );
    assert.equal(refused.status, 403);
  });

  await t.step("GET /api/v1/domain_blocks/preview: follows a block would end", async () => {
    const r1 = await remote("r1", "far.example");
    const r2 = await remote("r2", "far.example");
    const r3 = await remote("r3", "far.example");
    const other = await remote("o", "near.example");
    await follow(alice.id, r1);
    await follow(alice.id, r2);
    await follow(r3, alice.id);
    await follow(alice.id, other);
    await follow(bob.id, r1);
    const preview = await ok(
      instance,
      alice,
      "GET",
      "/api/v1/domain_blocks/preview?domain=FAR.example",
    );
    assert.deepEqual(preview, { following_count: 2, followers_count: 1 });
    assert.deepEqual(
      await ok(instance, alice, "GET", "/api/v1/domain_blocks/preview?domain=unknown.example"),
      { following_count: 0, followers_count: 0 },
    );
    for (const q of ["", "?domain=", "?domain=not%20a%20domain"]) {
      const res = await callJson(instance, alice, "GET", `/api/v1/domain_blocks/preview${q}`);
      assert.equal(res.status, 422, q);
      assert.match(res.body.error, /^Validation failed: Domain /);
    }
    // Nothing changed: the preview writes nothing.
    assert.equal(
      (await db.select().from(follows).where(eq(follows.accountId, alice.id))).length,
      4,
    );
    assert.equal(
      (await callJson(instance, null, "GET", "/api/v1/domain_blocks/preview?domain=far.example"))
        .status,
      401,
    );
  });

  await t.step("GET /api/v2/notifications/:group_key/accounts", async () => {
    const post = await postStatus(instance, alice, "fave me");
    const fans = [bob, carol];
    for (const name of ["dave", "erin"]) fans.push(await createUser(instance, name));
    for (const fan of fans) {
      await ok(instance, fan, "POST", `/api/v1/statuses/${post.id}/favourite`);
    }
    const grouped = await ok(instance, alice, "GET", "/api/v2/notifications?types[]=favourite");
    const group = grouped.notification_groups[0];
    assert.equal(group.notifications_count, 4);
    const path = `/api/v2/notifications/${group.group_key}/accounts`;
    const all = await ok<any[]>(instance, alice, "GET", path);
    assert.deepEqual(all.map((a) => a.username), ["erin", "dave", "carol", "bob"]);
    assert.ok(all[0].avatar && all[0].acct === "erin", "whole Account entities");
    const page1 = await callJson<any[]>(instance, alice, "GET", `${path}?limit=2`);
    assert.deepEqual(page1.body.map((a) => a.username), ["erin", "dave"]);
    const next = links(page1.headers.get("link")).next;
    const page2 = await ok<any[]>(instance, alice, "GET", next.pathname + next.search);
    assert.deepEqual(page2.map((a) => a.username), ["carol", "bob"]);
    // Also under v2_alpha; an ungrouped key; someone else's group or junk: 404.
    assert.equal(
      (await ok<any[]>(instance, alice, "GET", `/api/v2_alpha${path.slice(7)}`)).length,
      4,
    );
    await postStatus(instance, bob, "hi @alice");
    const mentions = await ok(instance, alice, "GET", "/api/v2/notifications?types[]=mention");
    const key = mentions.notification_groups[0].group_key;
    assert.match(key, /^ungrouped-/);
    assert.deepEqual(
      (await ok<any[]>(instance, alice, "GET", `/api/v2/notifications/${key}/accounts`))
        .map((a) => a.username),
      ["bob"],
    );
    for (const who of [bob, alice]) {
      const res = await callJson(
        instance,
        who,
        "GET",
        who === bob ? path : "/api/v2/notifications/favourite-0-0/accounts",
      );
      assert.equal(res.status, 404);
    }
    assert.equal(
      (await callJson(instance, alice, "GET", "/api/v2/notifications/a%20b/accounts")).status,
      404,
    );
  });

  await t.step("GET /api/v1/instance/peers/search and /api/v1/peers/search", async () => {
    await remote("p1", "mastodon.social");
    await remote("p2", "mastodon.online");
    await remote("p3", "misskey.io");
    await remote("p4", "m_x.example");
    for (const base of ["/api/v1/instance/peers/search", "/api/v1/peers/search"]) {
      assert.deepEqual(await ok(instance, null, "GET", `${base}?q=mastodon.`), [
        "mastodon.online",
        "mastodon.social",
      ]);
    }
    assert.deepEqual(await ok(instance, null, "GET", "/api/v1/peers/search?q=MISS"), [
      "misskey.io",
    ]);
    // `_` and `%` match themselves, not any character.
    assert.deepEqual(await ok(instance, null, "GET", "/api/v1/peers/search?q=m_"), ["m_x.example"]);
    assert.deepEqual(await ok(instance, null, "GET", "/api/v1/peers/search?q=%25"), []);
    assert.deepEqual(await ok(instance, null, "GET", "/api/v1/peers/search"), []);
    for (let i = 0; i < 12; i++) await remote("x", `zz${String(i).padStart(2, "0")}.example`);
    const ten = await ok<string[]>(instance, null, "GET", "/api/v1/peers/search?q=zz");
    assert.equal(ten.length, 10);
    assert.equal(ten[0], "zz00.example");
  });

  await t.step("privacy policy and terms of service from the configured files", async () => {
    const privacy = await ok(instance, null, "GET", "/api/v1/instance/privacy_policy");
    assert.deepEqual(Object.keys(privacy).sort(), ["content", "updated_at"]);
    assert.equal(
      privacy.updated_at,
      (await Deno.stat(privacyFile)).mtime!.toISOString(),
    );
    assert.match(privacy.content, /^<h1>Privacy<\/h1>/);
    assert.match(privacy.content, /<p>We keep <em>little<\/em>\.<\/p>/);
    assert.match(privacy.content, /<li><b>nothing else<\/b><\/li>/);

    const terms = await ok(instance, null, "GET", "/api/v1/instance/terms_of_service");
    const date = (await Deno.stat(termsFile)).mtime!.toISOString().slice(0, 10);
    assert.deepEqual(terms, {
      effective_date: date,
      effective: true,
      content: "<h2>Terms</h2>\n<p>Be kind.</p>",
      succeeded_by: null,
    });
    assert.deepEqual(
      await ok(instance, null, "GET", `/api/v1/instance/terms_of_service/${date}`),
      terms,
    );
    const other = await callJson(
      instance,
      null,
      "GET",
      "/api/v1/instance/terms_of_service/2001-01-01",
    );
    assert.equal(other.status, 404);

    const v2 = await ok(instance, null, "GET", "/api/v2/instance");
    assert.equal(v2.configuration.urls.privacy_policy, `${instance.origin}/privacy-policy`);
    assert.equal(v2.configuration.urls.terms_of_service, `${instance.origin}/terms-of-service`);
    const page = await instance.request("/privacy-policy");
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<h1>Privacy<\/h1>/);

    // An edit shows at once; a file that went away is a 404, not a 500.
    await Deno.writeTextFile(termsFile, "<p>New terms.</p>");
    assert.equal(
      (await ok(instance, null, "GET", "/api/v1/instance/terms_of_service")).content,
      "<p>New terms.</p>",
    );
    await Deno.remove(termsFile);
    const gone = await callJson(instance, null, "GET", "/api/v1/instance/terms_of_service");
    assert.equal(gone.status, 404);
    assert.deepEqual(gone.body, { error: "Record not found" });
    assert.equal((await instance.request("/terms-of-service")).status, 404);
  });
}
