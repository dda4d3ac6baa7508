/**
 * /settings/profile. In headless Chromium: a user edits the profile (name,
 * bio, a field, switches) and uploads an avatar; the API's
 * verify_credentials then shows it, a follower's server receives the
 * Update(Person), the avatar is served and can be removed; axe and
 * screenshots of the page, plain and with refused input. Over HTTP: forged
 * and anonymous posts, another user's session, oversized and non-image
 * uploads, too long text and too many fields (422 with the problems beside
 * the fields and the form as typed, nothing saved), hand-made bodies.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import sharp from "sharp";
import { eq } from "drizzle-orm";
import { accounts, follows } from "../../db/schema/mod.ts";
import { newId } from "../../db/ids.ts";
import { resolveRemoteAccount } from "../../federation/remote/accounts.ts";
import { afterAll, startInstance, test, type TestInstance } from "../harness.ts";
import { ok } from "../fixtures/api.ts";
import { createAccount, createUser, TEST_PASSWORD } from "../fixtures/users.ts";
import { browserTest, signInWithForm } from "../fixtures/browser.ts";
import { eventually } from "../fixtures/wait.ts";
import { includes, type PageSession, signInOverHttp } from "../admin_web/http_session.ts";
import { checkPage } from "./page_checks.ts";

// A follower's server (b) that records what it is sent, and ours (a).
const received: { type?: string; object?: { name?: string; icon?: { url?: string } } }[] = [];
const b = await startInstance({
  tls: true,
  onRequest: (request) => {
    if (request.method !== "POST") return;
    request.clone().json().then((body) => received.push(body)).catch(() => {});
  },
});
const a = await startInstance({ tls: true });
afterAll(async () => {
  await a.close({ destroy: true });
  await b.close({ destroy: true });
});
const db = a.rookery.ctx.database.db;
const ann = await createUser(a, "ann");
const ben = await createUser(a, "ben");

// Bob on b follows ann (rows written directly: the follow itself has tests of its own).
await createAccount(b, "bob");
const bobOnA = await resolveRemoteAccount(a.rookery.ctx, `bob@${b.domain}`);
assert.ok(bobOnA, "a stored b's actor");
await db.insert(follows).values({ id: newId(), accountId: bobOnA.id, targetAccountId: ann.id });

async function png(size = 64): Promise<Uint8Array<ArrayBuffer>> {
  return new Uint8Array(
    await sharp({ create: { width: size, height: size, channels: 3, background: "#3366cc" } })
      .png().toBuffer(),
  );
}

const credentials = (who: { token: string }) =>
  ok(a, who, "GET", "/api/v1/accounts/verify_credentials");

/** Posts the profile form as multipart, as the page's form does. */
function postProfile(
  instance: TestInstance,
  session: PageSession,
  fields: Record<string, string>,
  files: Record<string, File> = {},
  token = session.token,
): Promise<Response> {
  const form = new FormData();
  form.set("authenticity_token", token);
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  for (const [k, v] of Object.entries(files)) form.set(k, v);
  return instance.request("/settings/profile", {
    method: "POST",
    headers: { cookie: session.cookie },
    body: form,
    redirect: "manual",
  });
}

browserTest("a user edits the profile and uploads an avatar in a browser", async (browser) => {
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  const page = await context.newPage();
  await page.goto(`${a.origin}/settings/profile`);
  await signInWithForm(page, "ann", TEST_PASSWORD);
  assert.equal(new URL(page.url()).pathname, "/settings/profile");

  await page.fill("#display_name", "Ann Example");
  await page.fill("#note", "Knits socks. Likes #yarn.");
  await page.fill("#field-0-name", "Pronouns");
  await page.fill("#field-0-value", "she/her");
  await page.check("#locked");
  await page.check("#bot");
  await page.setInputFiles("#avatar", {
    name: "me.png",
    mimeType: "image/png",
    buffer: Buffer.from(await png()),
  });
  await Promise.all([page.waitForNavigation(), page.click(".profile-form button[type=submit]")]);
  assert.equal(new URL(page.url()).pathname, "/settings/profile");
  includes((await page.textContent("main"))!, "Your profile was saved.");
  // The form shows what is stored now.
  assert.equal(await page.inputValue("#display_name"), "Ann Example");
  assert.equal(await page.inputValue("#field-0-value"), "she/her");
  assert.equal(await page.isChecked("#locked"), true);

  // The API sees the same profile.
  const me = await credentials(ann);
  assert.equal(me.display_name, "Ann Example");
  assert.equal(me.source.note, "Knits socks. Likes #yarn.");
  assert.deepEqual(
    me.source.fields.map((f: { name: string; value: string }) => [f.name, f.value]),
    [
      ["Pronouns", "she/her"],
    ],
  );
  assert.equal(me.locked, true);
  assert.equal(me.bot, true);
  // Boxes left alone keep their value.
  for (
    const [box, value] of [["#discoverable", me.source.discoverable], [
      "#indexable",
      me.source.indexable,
    ]] as const
  ) {
    assert.equal(await page.isChecked(box), value, box);
  }
  assert.ok(!me.avatar.endsWith("/avatars/original/missing.png"), me.avatar);
  // The page shows the stored avatar, and it is served as a 400×400 image.
  assert.equal(await page.getAttribute("img.current-avatar", "src"), me.avatar);
  const served = await a.request(me.avatar);
  assert.equal(served.status, 200);
  assert.equal((await sharp(new Uint8Array(await served.arrayBuffer())).metadata()).width, 400);

  // The follower's server received the Update(Person) with the new name.
  const update = await eventually("b received the Update", () =>
    Promise.resolve(
      received.find((r) => r.type === "Update" && r.object?.name === "Ann Example"),
    ));
  assert.ok(update.object?.icon?.url, "the Update carries the avatar");

  const cookies = await context.cookies();
  await checkPage(browser, {
    origin: a.origin,
    name: "settings_profile",
    path: "/settings/profile",
    cookies,
  });
  await checkPage(browser, {
    origin: a.origin,
    name: "settings_profile_refused",
    path: "/settings/profile",
    cookies,
    async prepare(tab) {
      await tab.fill("#display_name", "x".repeat(31));
      await tab.setInputFiles("#header", {
        name: "notes.txt",
        mimeType: "text/plain",
        buffer: Buffer.from("not an image"),
      });
      await Promise.all([tab.waitForNavigation(), tab.click(".profile-form button[type=submit]")]);
      includes((await tab.textContent("#display_name-error"))!, "Display name is too long");
      assert.ok(await tab.textContent("#header-error"));
    },
  });

  // Removing the avatar brings back the default picture.
  await Promise.all([
    page.waitForNavigation(),
    page.click('form[action="/settings/profile/avatar/remove"] button'),
  ]);
  includes((await page.textContent("main"))!, "Your avatar was removed.");
  assert.equal(await page.$("img.current-avatar"), null);
  assert.ok((await credentials(ann)).avatar.endsWith("/avatars/original/missing.png"));
  await context.close();
});

test("the profile form over HTTP: hostile and refused input", async (t) => {
  const benSession = await signInOverHttp(a, "ben", "/settings/profile");
  const annSession = await signInOverHttp(a, "ann", "/settings/profile");
  const nameOf = async (id: string) =>
    (await db.select({ n: accounts.displayName }).from(accounts).where(eq(accounts.id, id)))[0].n;

  await t.step("forged and anonymous posts are refused and change nothing", async () => {
    const forged = await postProfile(a, benSession, { display_name: "Forged" }, {}, "forged");
    assert.equal(forged.status, 403);
    await forged.body?.cancel();
    // Ann's form token with Ben's cookie: a token belongs to its session.
    const crossed = await postProfile(
      a,
      benSession,
      { display_name: "Crossed" },
      {},
      annSession.token,
    );
    assert.equal(crossed.status, 403);
    await crossed.body?.cancel();
    const anonymous = await a.request("/settings/profile", {
      method: "POST",
      body: new URLSearchParams({ display_name: "Anonymous" }),
      redirect: "manual",
    });
    assert.equal(anonymous.status, 403);
    await anonymous.body?.cancel();
    const removal = await a.request("/settings/profile/avatar/remove", {
      method: "POST",
      redirect: "manual",
    });
    assert.equal(removal.status, 403);
    await removal.body?.cancel();
    assert.equal(await nameOf(ben.id), "");
    const page = await a.request("/settings/profile", { redirect: "manual" });
    assert.equal(page.status, 303);
    includes(page.headers.get("location")!, "/auth/sign_in");
  });

  await t.step("a session changes its own profile only", async () => {
    const before = await nameOf(ann.id);
    const res = await postProfile(a, benSession, { display_name: "Ben B", note: "Hi" });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/settings/profile?notice=saved");
    assert.equal(await nameOf(ben.id), "Ben B");
    assert.equal(await nameOf(ann.id), before);
    const unknown = await benSession.post("/settings/profile/portrait/remove");
    assert.equal(unknown.status, 404);
    await unknown.body?.cancel();
  });

  await t.step("an oversized upload is refused beside its field; nothing is saved", async () => {
    const big = new Uint8Array(16 * 1024 * 1024 + 1);
    big.set(await png(), 0);
    const res = await postProfile(a, benSession, { display_name: "Too Big" }, {
      avatar: new File([big], "big.png", { type: "image/png" }),
    });
    assert.equal(res.status, 422);
    const html = await res.text();
    includes(html, 'id="avatar-error"');
    includes(html, "Avatar file size must be less than 16 MB");
    // The form keeps what was typed.
    includes(html, 'value="Too Big"');
    assert.equal(await nameOf(ben.id), "Ben B");
  });

  await t.step("a file that is not an image is refused", async () => {
    const res = await postProfile(a, benSession, { display_name: "Ben C" }, {
      header: new File(["<svg onload=alert(1)>"], "x.png", { type: "image/png" }),
    });
    assert.equal(res.status, 422);
    const html = await res.text();
    includes(html, 'id="header-error"');
    assert.ok(!html.includes("<svg onload"), "the upload is never echoed");
    assert.equal(await nameOf(ben.id), "Ben B");
  });

  await t.step("too long text and too many fields: 422, the typed form kept", async () => {
    const fields: Record<string, string> = { display_name: "Ben D", note: "n".repeat(501) };
    for (let i = 0; i < 5; i++) {
      fields[`fields_attributes[${i}][name]`] = `Label ${i}`;
      fields[`fields_attributes[${i}][value]`] = `<b>value ${i}</b>`;
    }
    const res = await postProfile(a, benSession, fields);
    assert.equal(res.status, 422);
    const html = await res.text();
    includes(html, "Note is too long (maximum is 500 characters)");
    includes(html, "Fields is too long (maximum is 4 fields)");
    includes(html, 'value="Ben D"');
    // Typed values come back escaped, all five rows of them.
    includes(html, 'value="&lt;b&gt;value 4&lt;/b&gt;"');
    assert.equal(await nameOf(ben.id), "Ben B");
  });

  await t.step("hand-made bodies of the wrong shape answer 422, not 500", async () => {
    for (
      const body of [
        { "display_name[nested]": "x" } as Record<string, string>,
        { note: "x".repeat(10_001) },
      ]
    ) {
      const res = await postProfile(a, benSession, body);
      assert.equal(res.status, 422, JSON.stringify(Object.keys(body)));
      includes(await res.text(), "The profile was not saved");
    }
    assert.equal(await nameOf(ben.id), "Ben B");
    // A scalar where the fields go is dropped, as Rails' strong parameters drop it.
    const scalar = await postProfile(a, benSession, {
      display_name: "Ben B",
      fields_attributes: "not a list",
    });
    assert.equal(scalar.status, 303);
    assert.equal(await nameOf(ben.id), "Ben B");
  });

  await t.step("an unchecked switch turns it off; the API agrees", async () => {
    await ok(a, ben, "PATCH", "/api/v1/accounts/update_credentials", {
      discoverable: true,
      hide_collections: true,
    });
    const res = await postProfile(a, benSession, { display_name: "Ben B", indexable: "1" });
    assert.equal(res.status, 303);
    const me = await credentials(ben);
    assert.equal(me.source.discoverable, false);
    assert.equal(me.source.hide_collections, false);
    assert.equal(me.source.indexable, true);
  });

  await t.step("a verified link shows its mark, and keeps it when saved unchanged", async () => {
    await ok(a, ben, "PATCH", "/api/v1/accounts/update_credentials", {
      fields_attributes: [{ name: "Site", value: "https://ben.example" }, {
        name: "X",
        value: "y",
      }],
    });
    // The link check is the verifier's job (tests of its own): mark it done here.
    const [row] = await db.select({ fields: accounts.fields }).from(accounts)
      .where(eq(accounts.id, ben.id));
    const verifiedAt = "2026-01-02T03:04:05.000Z";
    await db.update(accounts).set({
      fields: row.fields.map((f, i) => i === 0 ? { ...f, verified_at: verifiedAt } : f),
    }).where(eq(accounts.id, ben.id));
    const html = await (await benSession.get("/settings/profile")).text();
    assert.equal([...html.matchAll(/class="verified"/g)].length, 1);
    includes(html, "Verified link (checked 2026-01-02)");
    const res = await postProfile(a, benSession, {
      display_name: "Ben B",
      "fields_attributes[0][name]": "Website",
      "fields_attributes[0][value]": "https://ben.example",
      "fields_attributes[1][name]": "X",
      "fields_attributes[1][value]": "z",
    });
    assert.equal(res.status, 303);
    const me = await credentials(ben);
    assert.deepEqual(
      me.fields.map((f: { verified_at: string | null }) => f.verified_at),
      [verifiedAt, null],
    );
  });
});
