/**
 * The web app's streaming credential and its script, over HTTP (no
 * browser): the app page's web token is the HMAC of the session's cookie
 * secret and its id, opens the streaming API and nothing else, ends with
 * its session (sign-out) and is rotated by a password change, is never
 * another session's, and belongs to the built-in "Web" application,
 * which no OAuth client can use; the script is served versioned and
 * immutable under its hash, revalidated otherwise, pinned by the page's
 * integrity value; its pure helpers (backoff, stream list) behave.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { oauthAccessTokens, oauthApplications } from "../../db/schema/mod.ts";
import { afterAll, startInstance, test } from "../harness.ts";
import { createUser, TEST_PASSWORD } from "../fixtures/users.ts";
import { signInOverHttp } from "../admin_web/http_session.ts";
import { webTokenValue } from "../../actors/auth/web_tokens.ts";
import { findWebSession } from "../../actors/auth/sessions.ts";
import { backoffDelay, parseStreams, streamTokenIn } from "../../web/assets/rookery.js";

const instance = await startInstance();
afterAll(() => instance.close({ destroy: true }));
await createUser(instance, "ann");
const db = instance.rookery.ctx.database.db;

function metaOf(html: string, name: string): string | null {
  return html.match(new RegExp(`<meta name="${name}" content="([^"]*)"`))?.[1] ?? null;
}

async function statusOf(path: string, token: string): Promise<number> {
  const res = await instance.request(path, { headers: { authorization: `Bearer ${token}` } });
  await res.body?.cancel();
  return res.status;
}

test("the web token: derived, streaming-only, ended with its session", async () => {
  const session = await signInOverHttp(instance, "ann", "/");
  const home = await session.get("/");
  const html = await home.text();
  const token = metaOf(html, "rookery-stream-token")!;
  assert.equal(token.length, 43);
  assert.deepEqual(JSON.parse(metaOf(html, "rookery-streams")!.replaceAll("&quot;", '"')), [
    { stream: "user" },
  ]);
  // The HMAC of the cookie secret and the token's id; the same on every page.
  const secret = decodeURIComponent(session.cookie.slice(session.cookie.indexOf("=") + 1));
  const row = await findWebSession(db, instance.rookery.ctx.core.activity, secret);
  assert.ok(row?.webToken);
  assert.equal(token, webTokenValue(secret, row.webToken.id));
  assert.equal(
    metaOf(await (await session.get("/public/local")).text(), "rookery-stream-token"),
    token,
  );

  // The stream takes it; the rest of the API does not know it.
  assert.equal(await statusOf("/api/v1/streaming/user", token), 200);
  assert.equal(await statusOf("/api/v1/timelines/home", token), 401);
  assert.equal(await statusOf("/api/v1/accounts/verify_credentials", token), 401);

  // Its application is the built-in Web one, which is no OAuth client.
  const [web] = await db.select().from(oauthApplications)
    .where(eq(oauthApplications.id, row.webToken.applicationId!));
  assert.equal(web.name, "Web");
  assert.equal(web.superapp, true);
  const grant = await instance.request("/oauth/token", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: web.clientId,
      client_secret: "anything",
    }),
  });
  assert.equal(grant.status, 401);
  assert.equal((await grant.json()).error, "invalid_client");
  const apps = await session.get("/settings/applications");
  assert.ok(!(await apps.text()).includes(">Web<"), "the Web app is not an authorized app");

  // Signing out deletes the session and its token with it.
  const out = await session.post("/auth/sign_out");
  await out.body?.cancel();
  assert.equal(await statusOf("/api/v1/streaming/user", token), 401);
});

test("a password change rotates the changer's web token and ends the other session's", async () => {
  await createUser(instance, "bea");
  const changer = await signInOverHttp(instance, "bea", "/");
  const other = await signInOverHttp(instance, "bea", "/");
  const tokenOf = async (session: typeof changer) =>
    metaOf(await (await session.get("/")).text(), "rookery-stream-token")!;
  const [before, ended] = [await tokenOf(changer), await tokenOf(other)];
  const res = await changer.post("/settings/account/password", {
    current_password: TEST_PASSWORD,
    password: "a brand new password here",
    password_confirmation: "a brand new password here",
  });
  await res.body?.cancel();
  assert.ok(res.status < 400, `password change answered ${res.status}`);
  assert.equal(await statusOf("/api/v1/streaming/user", before), 401);
  assert.equal(await statusOf("/api/v1/streaming/user", ended), 401);
  // The changer stays signed in; its next page carries a new token, which works.
  const after = await tokenOf(changer);
  assert.equal(after.length, 43);
  assert.notEqual(after, before);
  assert.equal(await statusOf("/api/v1/streaming/user", after), 200);
  // The page the script reads a rotated token from carries it too.
  const shortcuts = await (await changer.get("/keyboard_shortcuts")).text();
  assert.equal(streamTokenIn(shortcuts), after);
});

test("a page embeds its own session's token, never another's", async () => {
  await createUser(instance, "cid");
  const sessions = [
    await signInOverHttp(instance, "cid", "/"),
    await signInOverHttp(instance, "cid", "/"),
    await signInOverHttp(instance, "ann", "/"),
  ];
  const tokens: string[] = [];
  for (const session of sessions) {
    const page = await session.get("/notifications");
    assert.equal(page.headers.get("cache-control"), "private, no-store");
    const token = metaOf(await page.text(), "rookery-stream-token")!;
    const secret = decodeURIComponent(session.cookie.slice(session.cookie.indexOf("=") + 1));
    const row = await findWebSession(db, instance.rookery.ctx.core.activity, secret);
    const [stored] = await db.select({ session: oauthAccessTokens.webSessionId })
      .from(oauthAccessTokens).where(eq(oauthAccessTokens.id, row!.webToken!.id));
    assert.equal(stored.session, row!.id, "the token row is the session's own");
    assert.equal(token, webTokenValue(secret, row!.webToken!.id));
    tokens.push(token);
  }
  assert.equal(new Set(tokens).size, 3, "every session has its own token");
  // One session ending leaves the others' tokens, and their pages, as they were.
  const out = await sessions[0].post("/auth/sign_out");
  await out.body?.cancel();
  assert.equal(await statusOf("/api/v1/streaming/user", tokens[0]), 401);
  const again = metaOf(await (await sessions[1].get("/")).text(), "rookery-stream-token");
  assert.equal(again, tokens[1]);
  assert.equal(await statusOf("/api/v1/streaming/user", tokens[1]), 200);
  // A signed-out browser's page carries no token at all.
  const signedOut = await instance.request("/about");
  assert.equal(metaOf(await signedOut.text(), "rookery-stream-token"), null);
});

test("the script: versioned, immutable under its hash, pinned by integrity", async () => {
  const session = await signInOverHttp(instance, "ann", "/");
  const html = await (await session.get("/")).text();
  const tag = html.match(/<script type="module" src="([^"]+)" integrity="([^"]+)"><\/script>/)!;
  const [src, integrity] = [tag[1].replaceAll("&amp;", "&"), tag[2]];
  assert.match(src, /^\/assets\/rookery\.js\?v=[0-9a-f]{16}$/);
  assert.ok(!/<script(?! type="module" src=)/.test(html), "no other script");
  const res = await instance.request(src);
  const body = new Uint8Array(await res.arrayBuffer());
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "text/javascript; charset=utf-8");
  assert.equal(res.headers.get("cache-control"), "public, max-age=31536000, immutable");
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-384", body));
  assert.equal(integrity, `sha384-${btoa(String.fromCharCode(...digest))}`);
  const plain = await instance.request("/assets/rookery.js");
  await plain.body?.cancel();
  assert.equal(plain.headers.get("cache-control"), "no-cache");
  const again = await instance.request("/assets/rookery.js", {
    headers: { "if-none-match": plain.headers.get("etag")! },
  });
  assert.equal(again.status, 304);
  await again.body?.cancel();
  const csp = (await session.get("/")).headers.get("content-security-policy")!;
  assert.ok(csp.includes(`script-src ${instance.origin}/assets/rookery.js`), csp);
  assert.ok(csp.includes("trusted-types rookery"), csp);
});

test("the script's helpers: backoff and the page's streams", () => {
  assert.deepEqual(
    [0, 1, 2, 3, 6, 10].map((attempt) => backoffDelay(attempt, () => 0.5)),
    [1000, 2000, 4000, 8000, 60000, 60000],
  );
  assert.ok(backoffDelay(0, () => 0) >= 750 && backoffDelay(0, () => 0.999) <= 1250);
  assert.deepEqual(parseStreams('[{"stream":"hashtag","tag":"x"},{"nope":1}]'), [
    { stream: "hashtag", tag: "x" },
  ]);
  assert.deepEqual(parseStreams("not json"), []);
});
