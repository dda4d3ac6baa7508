/**
 * Reporting from the web app over HTTP (no browser): a post's More menu and
 * a profile link to /reports/new; the form offers the API's categories,
 * this server's rules, the account's posts (the reported one ticked) and,
 * for a remote account, forwarding; POST /reports files the same report as
 * POST /api/v1/reports (stored rows checked), rules only with "breaks the
 * rules"; refusals come back on the form (422, what was chosen kept) or as
 * a 404 page, never a 500 and never a row.
 */
import assert from "node:assert/strict";
import { desc, eq } from "drizzle-orm";
import { afterAll, startInstance, test } from "../harness.ts";
import { postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { signInOverHttp } from "../admin_web/http_session.ts";
import { insertRemoteAccount } from "../discovery/helpers.ts";
import { addRule } from "../../actors/moderation/instance_rules.ts";
import { reports } from "../../db/schema/mod.ts";

const instance = await startInstance();
afterAll(() => instance.close({ destroy: true }));
const { db } = instance.rookery.ctx.database;

const ann = await createUser(instance, "ann");
const bob = await createUser(instance, "bob");
const rule1 = await addRule(db, { text: "Be nice" });
const rule2 = await addRule(db, { text: "No spam" });
const older = await postStatus(instance, bob.token, "Bob's older post");
const reported = await postStatus(instance, bob.token, "Bob's rude post");
const hidden = await postStatus(instance, bob.token, "Bob's followers-only post", {
  visibility: "private",
});
const annsOwn = await postStatus(instance, ann.token, "Ann's own post");
const remote = await insertRemoteAccount(instance, "faraway", "remote.example", {
  inboxUrl: "https://remote.example/users/faraway/inbox",
});
const session = await signInOverHttp(instance, "ann", "/");

/** Posts the report form's fields (repeated names allowed) as the session. */
async function send(fields: [string, string][]): Promise<Response> {
  const body = new URLSearchParams([["authenticity_token", session.token], ...fields]);
  return await instance.request("/reports", {
    method: "POST",
    redirect: "manual",
    headers: { cookie: session.cookie, "content-type": "application/x-www-form-urlencoded" },
    body,
  });
}

async function reportRows() {
  return await db.select().from(reports).where(eq(reports.accountId, ann.id))
    .orderBy(desc(reports.id));
}

test("reporting a post or an account from the web app", async (t) => {
  await t.step("the post's More menu and the profile link to the form", async () => {
    const thread = await session.get(`/@bob/${reported.id}`).then((r) => r.text());
    assert.ok(thread.includes(
      `href="/reports/new?account_id=${bob.id}&amp;status_ids%5B%5D=${reported.id}&amp;return_to=`,
    ));
    const own = await session.get(`/@ann/${annsOwn.id}`).then((r) => r.text());
    assert.ok(!own.includes("/reports/new"), "no Report on one's own post");
    const profile = await session.get("/@bob").then((r) => r.text());
    assert.ok(profile.includes(`href="/reports/new?account_id=${bob.id}&amp;return_to=%2F%40bob"`));
  });

  await t.step("the form: categories, rules, posts (the reported one ticked)", async () => {
    const res = await session.get(
      `/reports/new?account_id=${bob.id}&status_ids%5B%5D=${reported.id}`,
    );
    assert.equal(res.status, 200);
    const html = await res.text();
    for (const category of ["spam", "legal", "violation", "other"]) {
      assert.ok(html.includes(`name="category" value="${category}"`), category);
    }
    assert.ok(html.includes(`name="rule_ids[]" value="${rule1.id}"`));
    assert.ok(html.includes("No spam"));
    assert.ok(html.includes(`name="status_ids[]" value="${reported.id}" checked`));
    assert.match(html, new RegExp(`name="status_ids\\[\\]" value="${older.id}"(?! checked)`));
    assert.ok(!html.includes(hidden.id), "a post Ann may not see is not offered");
    assert.ok(!html.includes('name="forward"'), "a local account: nothing to forward");
    assert.ok(html.includes('maxlength="1000"'));
  });

  await t.step("a violation with rules, posts and a comment is filed", async () => {
    const res = await send([
      ["account_id", bob.id],
      ["category", "violation"],
      ["rule_ids[]", rule2.id],
      ["status_ids[]", reported.id],
      ["status_ids[]", older.id],
      ["comment", "Rude and spammy"],
      ["return_to", `/@bob/${reported.id}#status-${reported.id}`],
    ]);
    assert.equal(res.status, 303);
    assert.equal(
      res.headers.get("location"),
      `/@bob/${reported.id}?notice=reported#status-${reported.id}`,
    );
    const [row] = await reportRows();
    assert.equal(row.targetAccountId, bob.id);
    assert.equal(row.category, "violation");
    assert.deepEqual(row.ruleIds, [rule2.id]);
    assert.deepEqual(row.statusIds, [reported.id, older.id]);
    assert.equal(row.comment, "Rude and spammy");
    assert.equal(row.forwarded, false);
    const page = await session.get(res.headers.get("location")!).then((r) => r.text());
    assert.ok(page.includes("the report was sent to the moderators"));
  });

  await t.step("rules count only with 'breaks the rules'", async () => {
    const res = await send([
      ["account_id", bob.id],
      ["category", "spam"],
      ["rule_ids[]", rule1.id],
    ]);
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/@bob?notice=reported");
    const [row] = await reportRows();
    assert.equal(row.category, "spam");
    assert.equal(row.ruleIds, null);
  });

  await t.step("refused: back on the form with the message and the choices", async () => {
    const before = (await reportRows()).length;
    const noRules = await send([
      ["account_id", bob.id],
      ["category", "violation"],
      ["comment", "Kept when refused"],
    ]);
    assert.equal(noRules.status, 422);
    const html = await noRules.text();
    assert.ok(html.includes('role="alert"'));
    assert.ok(html.includes("Rule ids does not reference valid rules"));
    assert.ok(html.includes('name="category" value="violation" checked'));
    assert.ok(html.includes(">Kept when refused</textarea>"));
    const long = await send([["account_id", bob.id], ["comment", "x".repeat(1001)]]);
    assert.equal(long.status, 422);
    assert.ok((await long.text()).includes("Comment is too long (maximum is 1000 characters)"));
    const odd = await send([["account_id", bob.id], ["category", "bogus"]]);
    assert.equal(odd.status, 422);
    await odd.body?.cancel();
    assert.equal((await reportRows()).length, before);
  });

  await t.step("someone else's or a hidden post, an unknown account: 404", async () => {
    const before = (await reportRows()).length;
    for (
      const fields of [
        [["account_id", bob.id], ["status_ids[]", annsOwn.id]],
        [["account_id", bob.id], ["status_ids[]", hidden.id]],
        [["account_id", bob.id], ["status_ids[]", "not-an-id"]],
        [["account_id", "99999999999999999"]],
        [["account_id", "garbage"]],
        [],
      ] as [string, string][][]
    ) {
      const res = await send(fields);
      assert.equal(res.status, 404, JSON.stringify(fields));
      await res.body?.cancel();
    }
    assert.equal((await reportRows()).length, before);
    for (const query of [`account_id=${ann.id}`, "account_id=12345", ""]) {
      const res = await session.get(`/reports/new?${query}`);
      assert.equal(res.status, 404, query);
      await res.body?.cancel();
    }
  });

  await t.step("a remote account: the form offers forwarding, which is recorded", async () => {
    const form = await session.get(`/reports/new?account_id=${remote}`).then((r) => r.text());
    assert.ok(form.includes('name="forward" value="true"'));
    assert.ok(form.includes("moderators of remote.example"));
    const res = await send([["account_id", remote], ["category", "other"], ["forward", "true"]]);
    assert.equal(res.status, 303);
    await res.body?.cancel();
    const [row] = await reportRows();
    assert.equal(row.targetAccountId, remote);
    assert.equal(row.forwarded, true);
    assert.deepEqual(row.forwardToDomains, ["remote.example"]);
  });

  await t.step("a visitor, or a post without the form token, is refused", async () => {
    const visitor = await instance.request("/reports/new?account_id=" + bob.id, {
      redirect: "manual",
    });
    assert.equal(visitor.status, 303);
    await visitor.body?.cancel();
    const before = (await reportRows()).length;
    const forged = await instance.request("/reports", {
      method: "POST",
      redirect: "manual",
      headers: { cookie: session.cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ account_id: bob.id }),
    });
    assert.equal(forged.status, 403);
    await forged.body?.cancel();
    assert.equal((await reportRows()).length, before);
  });
});
