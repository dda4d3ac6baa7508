/**
 * Rookery behind a real TLS-terminating reverse proxy, nginx and then Caddy
 * (tests/fixtures/proxy.ts), running docs/running.md's configuration with
 * TRUST_PROXY=true and an https ORIGIN. Through each: the API, the OAuth
 * and sign-in pages and a settings form (Secure cookies, CSRF token,
 * redirects on the https origin), live updates over WebSocket and SSE,
 * uploads up to MAX_BODY_BYTES, signed deliveries into our inboxes (another
 * Rookery and a fake peer signing the https URL with RFC 9421) and signed
 * fetches of our objects in AUTHORIZED_FETCH mode.
 *
 * One instance (A) is shared by both proxies, which take turns on its
 * public port; B is a second Rookery over direct TLS, the fake peer plain
 * http. Each proxy's steps use accounts of their own.
 */
import assert from "node:assert/strict";
import { signRequest } from "@fedify/fedify";
import { afterAll, DB_KIND, startInstance, type TestInstance } from "../harness.ts";
import { callJson, links, ok, postStatus } from "../fixtures/api.ts";
import { createUser, type TestUser } from "../fixtures/users.ts";
import { arrived, followRemote } from "../fixtures/federation.ts";
import { type FakePeer, startFakePeer, statusOf } from "../fixtures/fake_peer.ts";
import { inboundCreate, ldSigned } from "../../bench/inbound.ts";
import { freePort } from "../fixtures/server_process.ts";
import { eventually } from "../fixtures/wait.ts";
import { PROXY_KINDS, proxyIgnored, type ProxyKind, startProxy } from "../fixtures/proxy.ts";
import { caddySite, nginxSite, PRODUCTION_SITE } from "../fixtures/proxy_configs.ts";
import { SseClient, WsClient } from "../streaming/helpers.ts";
import { image, pngChunk } from "../media/helpers.ts";
import { multipartBody, type Part } from "../fixtures/multipart.ts";
import { signInOverHttp } from "../admin_web/http_session.ts";
import {
  authorizeInBrowser,
  Browser,
  createUser as createPasswordUser,
  pkcePair,
  registerApp,
  tokenRequest,
} from "../oauth/helpers.ts";
import { getKeyPairs, INSTANCE_KEY_OWNER } from "../../federation/dispatchers/keys.ts";
import { instanceContext } from "../../federation/fetch/lookup.ts";
import { resolveRemoteStatus } from "../../federation/remote/statuses.ts";
import { FetchBudget } from "../../federation/fetch/budget.ts";

const AP = "application/activity+json";
/** A's MAX_BODY_BYTES, and the proxies' body limit. */
const MAX_BODY = 8 * 1024 * 1024;

interface Servers {
  a: TestInstance;
  b: TestInstance;
  peer: FakePeer;
  port: number;
}

async function startServers(): Promise<Servers> {
  const port = freePort();
  const a = await startInstance({
    origin: `https://localhost:${port}`,
    env: {
      TRUST_PROXY: "true",
      AUTHORIZED_FETCH: "true",
      MAX_BODY_BYTES: String(MAX_BODY),
    },
  });
  const b = await startInstance({ tls: true });
  const peer = await startFakePeer();
  return { a, b, peer, port };
}

const anyProxy = PROXY_KINDS.some((kind) => !proxyIgnored(kind));
const servers = anyProxy ? await startServers() : null;
afterAll(async () => {
  if (!servers) return;
  await servers.peer.close();
  await servers.b.close({ destroy: true });
  await servers.a.close({ destroy: true });
});

/** A redirect's target stays on the public https origin (or is relative to it). */
function onOrigin(res: Response, origin: string): string {
  const location = res.headers.get("location");
  assert.ok(location, `a redirect (${res.status})`);
  assert.doesNotMatch(location, /^http:/, "no plain-http redirect");
  const target = new URL(location, origin);
  assert.equal(target.origin, origin, location);
  return target.pathname + target.search;
}

async function apiStep({ a }: Servers, alice: TestUser): Promise<void> {
  const me = await ok(a, alice, "GET", "/api/v1/accounts/verify_credentials");
  assert.equal(me.url, `${a.origin}/@${alice.username}`);
  const status = await postStatus(a, alice, "Through the proxy");
  assert.ok(status.uri.startsWith(`${a.origin}/`), status.uri);
  await postStatus(a, alice, "And once more");
  const page = await callJson(a, alice, "GET", `/api/v1/accounts/${alice.id}/statuses?limit=1`);
  assert.equal(page.status, 200);
  // Pagination links name the public URL, not Rookery's own address.
  assert.equal(links(page.headers.get("link")).next.origin, a.origin);
}

async function oauthStep({ a }: Servers, login: string): Promise<void> {
  const app = await registerApp(a, { redirect_uris: "https://client.example/callback" });
  const browser = new Browser(a);
  const signInPage = await browser.get("/auth/sign_in");
  await signInPage.body?.cancel();
  const csrf = signInPage.headers.getSetCookie().find((c) => c.startsWith("_rookery_csrf="));
  assert.match(csrf ?? "", /;\s*Secure/i, "the form cookie is Secure on https");
  const { verifier, challenge } = await pkcePair();
  const redirect = await authorizeInBrowser(browser, {
    client_id: app.client_id,
    redirect_uri: "https://client.example/callback",
    response_type: "code",
    scope: "read write",
    code_challenge: challenge,
    code_challenge_method: "S256",
  }, login);
  assert.ok(browser.cookies.has("_rookery_session"), "signed in");
  const res = await tokenRequest(a, {
    grant_type: "authorization_code",
    code: redirect.searchParams.get("code")!,
    redirect_uri: "https://client.example/callback",
    client_id: app.client_id,
    client_secret: app.client_secret,
    code_verifier: verifier,
  });
  const token = (await res.json()).access_token;
  assert.equal(res.status, 200);
  const me = await ok(a, token, "GET", "/api/v1/accounts/verify_credentials");
  assert.equal(`${me.username}@example.com`, login);
}

async function settingsStep({ a }: Servers, alice: TestUser): Promise<void> {
  const anonymous = await a.request("/settings/profile", { redirect: "manual" });
  await anonymous.body?.cancel();
  assert.match(onOrigin(anonymous, a.origin), /^\/auth\/sign_in/);
  const session = await signInOverHttp(a, `${alice.username}@example.com`, "/settings/profile");
  const post = (token: string) => {
    const form = new FormData();
    form.set("authenticity_token", token);
    form.set("display_name", "Alice behind a proxy");
    return a.request("/settings/profile", {
      method: "POST",
      headers: { cookie: session.cookie },
      body: form,
      redirect: "manual",
    });
  };
  const forged = await post("not-the-token");
  await forged.body?.cancel();
  assert.equal(forged.status, 403, "a post without the form token is refused");
  const saved = await post(session.token);
  await saved.body?.cancel();
  assert.equal(saved.status, 303);
  const page = await session.get(onOrigin(saved, a.origin));
  assert.match(await page.text(), /Your profile was saved/);
  const me = await ok(a, alice, "GET", "/api/v1/accounts/verify_credentials");
  assert.equal(me.display_name, "Alice behind a proxy");
}

async function streamingStep({ a }: Servers, alice: TestUser): Promise<void> {
  const ws = await WsClient.open(a, `/api/v1/streaming?stream=user&access_token=${alice.token}`);
  const sse = await SseClient.open(a, "/api/v1/streaming/user", alice.token);
  try {
    // A frame from the client reaches Rookery through the upgraded connection.
    ws.send({ type: "subscribe", stream: "hashtag", tag: "proxied" });
    const status = await postStatus(a, alice, "Live through the proxy #proxied");
    assert.equal(JSON.parse((await ws.next("update", "user", 10_000)).payload!).id, status.id);
    assert.equal(JSON.parse((await ws.next("update", "hashtag", 10_000)).payload!).id, status.id);
    assert.equal(JSON.parse((await sse.next("update", 10_000)).data).id, status.id);
  } finally {
    await ws.close();
    await sse.close();
  }
}

/** A multipart upload of a PNG padded (with a private chunk) to exactly `total` bytes. */
async function paddedUpload(
  total: number,
): Promise<{ body: Uint8Array<ArrayBuffer>; type: string }> {
  const part = (png: Uint8Array): Part => [
    ['Content-Disposition: form-data; name="file"; filename="big.png"', "Content-Type: image/png"],
    png,
  ];
  const overhead = multipartBody([part(new Uint8Array())]).body.length;
  const png = await image("png", 40, 30);
  // Decoders skip an ancillary chunk they do not know; it goes before IEND (the last 12 bytes).
  const padding = pngChunk("ruPd", new Uint8Array(total - overhead - png.length - 12));
  const padded = new Blob([png.subarray(0, -12), padding, png.subarray(-12)]);
  const upload = multipartBody([part(new Uint8Array(await padded.arrayBuffer()))]);
  assert.equal(upload.body.length, total);
  return upload;
}

async function uploadStep({ a }: Servers, alice: TestUser): Promise<void> {
  const send = async (total: number) => {
    const { body, type } = await paddedUpload(total);
    return a.request("/api/v2/media", {
      method: "POST",
      headers: { authorization: `Bearer ${alice.token}`, "content-type": type },
      body,
    });
  };
  const accepted = await send(MAX_BODY);
  const media = await accepted.json();
  assert.ok(accepted.status === 200 || accepted.status === 202, JSON.stringify(media));
  assert.equal(media.type, "image");
  const refused = await send(MAX_BODY + 1);
  await refused.body?.cancel();
  assert.equal(refused.status, 413, "one byte over the limit");
}

async function deliveriesStep(
  { a, b, peer }: Servers,
  alice: TestUser,
  bob: TestUser,
  kind: ProxyKind,
): Promise<void> {
  // Another Rookery follows through the proxy (WebFinger, signed actor
  // fetch, its Follow into A's inbox, the Accept back) and likes a post.
  await followRemote(b, bob, a, alice);
  const posted = await postStatus(a, alice, "For my followers on B");
  const onB = await arrived(b, posted.uri, "alice's post");
  await ok(b, bob, "POST", `/api/v1/statuses/${onB.id}/favourite`);
  await eventually(
    "bob's Like on A",
    async () => (await ok(a, alice, "GET", `/api/v1/statuses/${posted.id}`)).favourites_count === 1,
  );

  // RFC 9421 signs the whole target URI, scheme included.
  const name = `${kind}_peer`;
  const actor = peer.publishActor(name);
  const inbox = `${a.origin}/users/${alice.username}/inbox`;
  const follow = (n: number) => ({
    "@context": "https://www.w3.org/ns/activitystreams",
    id: `${actor}/follows/${n}`,
    type: "Follow",
    actor,
    object: `${a.origin}/users/${alice.username}`,
  });
  const keyId = `${actor}#main-key`;
  const signedForBackend = await peer.deliver(
    `${a.listenOrigin}/users/${alice.username}/inbox`,
    follow(1),
    {
      keyId,
      spec: "rfc9421",
      send: async (signed) => {
        const headers = new Headers(signed.headers);
        headers.delete("host");
        return await fetch(inbox, { method: "POST", headers, body: await signed.arrayBuffer() });
      },
    },
  );
  assert.equal(await statusOf(signedForBackend), 401, "signed for Rookery's own http address");
  const delivered = await peer.deliver(inbox, follow(2), { keyId, spec: "rfc9421" });
  assert.equal(await statusOf(delivered), 202, "signed for the public https URL");
  const acct = `${name}@${new URL(peer.origin).host}`;
  await eventually("the peer's follow", async () => {
    const followers = await ok(a, alice, "GET", `/api/v1/accounts/${alice.id}/followers`);
    return followers.some((f: { acct: string }) => f.acct === acct);
  });

  // A public note Linked-Data-signed as Mastodon signs it, through the
  // proxy: the inbox guard's mark for an actor's own delivery
  // (federation/inbox/guard.ts) survives the forwarded request rebuilt.
  const noteId = `${actor}/statuses/proxied-ld`;
  const create = await ldSigned(
    inboundCreate("minimal", actor, noteId, `${kind} LD-signed`),
    peer.keys.privateKey,
    keyId,
  );
  const signedNote = await peer.deliver(inbox, create, { keyId, spec: "rfc9421" });
  assert.equal(await statusOf(signedNote), 202, "an LD-signed note through the proxy");
  const stored = await arrived(a, noteId, "the LD-signed note");
  assert.match(stored.content, new RegExp(`${kind} LD-signed`));
}

/** A GET signed (RFC 9421) with B's instance key for `signedFor`, sent to `url`. */
async function signedGet(b: TestInstance, url: string, signedFor = url): Promise<Response> {
  const [rsa] = await getKeyPairs(b.rookery.ctx, INSTANCE_KEY_OWNER);
  const signed = await signRequest(
    new Request(signedFor, { headers: { Accept: AP } }),
    rsa.privateKey,
    new URL(`${b.origin}/actor#main-key`),
    { spec: "rfc9421" },
  );
  const headers = new Headers(signed.headers);
  headers.delete("host");
  return await fetch(url, { headers });
}

async function fetchesStep({ a, b }: Servers, carol: TestUser): Promise<void> {
  const post = await postStatus(a, carol, "Nobody on B follows carol");
  const row = await resolveRemoteStatus(
    instanceContext(b.rookery.ctx),
    post.uri,
    FetchBudget.of(b.rookery.ctx),
  );
  assert.ok(row, "B fetched carol's status through the proxy, signed");
  assert.match(row.content, /Nobody on B follows carol/);
  const signed = await signedGet(b, post.uri);
  assert.equal(signed.status, 200);
  assert.equal((await signed.json()).id, post.uri);
  assert.equal(await statusOf(await fetch(post.uri, { headers: { Accept: AP } })), 401, "unsigned");
  const backendUrl = post.uri.replace(a.origin, a.listenOrigin!);
  assert.equal(await statusOf(await signedGet(b, post.uri, backendUrl)), 401, "signed for http");
}

for (const kind of PROXY_KINDS) {
  Deno.test({
    name: `[${DB_KIND}] behind ${kind}: API, pages, streaming, uploads, federation`,
    ignore: proxyIgnored(kind),
    sanitizeOps: false,
    sanitizeResources: false,
    async fn(t) {
      const s = servers!;
      const proxy = await startProxy(kind, {
        port: s.port,
        upstream: s.a.listenOrigin!,
        maxBodyBytes: MAX_BODY,
      });
      try {
        const alice = await createUser(s.a, `${kind}_alice`);
        const carol = await createUser(s.a, `${kind}_carol`);
        const olga = await createPasswordUser(s.a, `${kind}_olga`);
        const bob = await createUser(s.b, `${kind}_bob`);
        await t.step("the API answers with the https origin", () => apiStep(s, alice));
        await t.step(
          "OAuth: authorize, sign in, approve, token; Secure cookies",
          () => oauthStep(s, `${olga.username}@example.com`),
        );
        await t.step(
          "a settings form posts with its token; redirects stay https",
          () => settingsStep(s, alice),
        );
        await t.step("WebSocket and SSE: live updates arrive", () => streamingStep(s, alice));
        await t.step(
          "uploads up to MAX_BODY_BYTES pass, one byte more is refused",
          () => uploadStep(s, alice),
        );
        await t.step(
          "signed deliveries into our inboxes, verified against the https URL",
          () => deliveriesStep(s, alice, bob, kind),
        );
        await t.step(
          "signed fetches of our objects (AUTHORIZED_FETCH)",
          () => fetchesStep(s, carol),
        );
      } catch (error) {
        console.error(`${kind}'s log:\n${await proxy.log()}`);
        throw error;
      } finally {
        await proxy.close();
      }
    },
  });
}

Deno.test(`[${DB_KIND}] docs/running.md gives the configurations these tests run`, async () => {
  const guide = await Deno.readTextFile(new URL("../../docs/running.md", import.meta.url));
  for (const config of [nginxSite(PRODUCTION_SITE), caddySite(PRODUCTION_SITE)]) {
    assert.ok(guide.includes(config), `docs/running.md should show:\n${config}`);
  }
});
