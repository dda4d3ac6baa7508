/**
 * A signature made for another server is not ours to honour: server B signs
 * a GET or a delivery for server X (whose paths look like ours), and X, or
 * anyone who saw it, replays it to us with `Host: X`. Only requests for our
 * own host (any spelling of it; the forwarded one behind TRUST_PROXY) are
 * answered, so the replay is refused before any handler, whatever it
 * carries. Written on raw sockets: `fetch` will not send a Host of our
 * choosing.
 */
import assert from "node:assert/strict";
import { signRequest } from "@fedify/fedify";
import { startInstance, test } from "../harness.ts";
import { startFakePeer, statusOf } from "../fixtures/fake_peer.ts";
import { ok, postStatus } from "../fixtures/api.ts";
import { storedStatus } from "../fixtures/federation.ts";
import { createUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";
import { type RawAnswer, rawRequest } from "../fixtures/raw_http.ts";

const AS = "https://www.w3.org/ns/activitystreams";
const AP = "application/activity+json";

test("request host: signatures for another server are refused at the door", async (t) => {
  const rookery = await startInstance({ listen: true, env: { AUTHORIZED_FETCH: "true" } });
  const port = Number(new URL(rookery.origin).port);
  const signer = await startFakePeer();
  const blocked = await startFakePeer();
  const keyId = new URL(`${signer.publishActor("b")}#main-key`);
  const elsewhere = new URL(blocked.origin).host;
  /** What `request`, signed by B, gets when sent to us with its own Host header. */
  const replay = async (request: Request, body = ""): Promise<RawAnswer> => {
    const url = new URL(request.url);
    const target = url.pathname + url.search;
    return await rawRequest(
      port,
      { method: request.method, target, headers: request.headers },
      body,
    );
  };
  const signedGet = (url: string) =>
    signRequest(new Request(url, { headers: { Accept: AP } }), signer.keys.privateKey, keyId);
  try {
    const alice = await createUser(rookery, "alice");
    // alice wants nothing to do with X.
    await ok(rookery, alice, "POST", "/api/v1/domain_blocks", { domain: elsewhere });
    const post = await postStatus(rookery, alice, "not for server X");
    const path = new URL(post.uri).pathname;

    await t.step("a GET B signed for X, replayed with Host: X, is refused", async () => {
      const mine = await replay(await signedGet(post.uri));
      assert.equal(mine.status, 200, "B's signature for our host: the post");
      const replayed = await replay(await signedGet(`${blocked.origin}${path}`));
      assert.equal(replayed.status, 403, replayed.body);
      assert.deepEqual(JSON.parse(replayed.body), { error: "Blocked host" });
      assert.doesNotMatch(replayed.body, /not for server X/);
      // RFC 9421 (@authority, @target-uri) as well.
      const rfc = await signRequest(
        new Request(`${blocked.origin}${path}`, { headers: { Accept: AP } }),
        signer.keys.privateKey,
        keyId,
        { spec: "rfc9421" },
      );
      assert.equal((await replay(rfc)).status, 403);
    });

    await t.step(
      "a delivery B signed for X's inbox, replayed with Host: X, is refused",
      async () => {
        const note = (n: number) => ({
          "@context": AS,
          id: `${signer.origin}/notes/${n}/activity`,
          type: "Create",
          actor: `${signer.origin}/users/b`,
          to: [`${AS}#Public`],
          object: {
            id: `${signer.origin}/notes/${n}`,
            type: "Note",
            attributedTo: `${signer.origin}/users/b`,
            to: [`${AS}#Public`],
            content: `note ${n}`,
          },
        });
        let sent: { request: Request; body: string } | null = null;
        const capture = async (request: Request) => {
          sent = { request, body: await request.text() };
          return new Response(null, { status: 202 });
        };
        await signer.deliver(`${blocked.origin}/inbox`, note(1), {
          keyId: keyId.href,
          send: capture,
        });
        const replayed = await replay(sent!.request, sent!.body);
        assert.equal(replayed.status, 403, replayed.body);
        // The same delivery signed for our inbox is taken: the refusal was the host.
        await signer.deliver(`${rookery.origin}/inbox`, note(2), {
          keyId: keyId.href,
          send: capture,
        });
        assert.equal((await replay(sent!.request, sent!.body)).status, 202);
        await eventually("note 2", () => storedStatus(rookery, `${signer.origin}/notes/2`));
        assert.equal(await storedStatus(rookery, `${signer.origin}/notes/1`), undefined);
      },
    );

    await t.step("an absolute request target does not hide another Host", async () => {
      const signed = await signedGet(`${blocked.origin}${path}`);
      // The target names us, the signed Host header names X.
      const answer = await rawRequest(port, { target: post.uri, headers: signed.headers });
      assert.equal(answer.status, 403, answer.body);
    });

    await t.step("any spelling of our host is ours; other hosts and ports are not", async () => {
      const get = (host: string, target = "/api/v1/instance") =>
        rawRequest(port, { target, headers: { Host: host } }).then((a) => a.status);
      for (const host of [`localhost:${port}`, `LocalHost:${port}`, `localhost.:${port}`]) {
        assert.equal(await get(host), 200, host);
      }
      for (
        const host of [
          "localhost",
          `localhost:${port + 1}`,
          `127.0.0.1:${port}`,
          "evil.example",
          `evil.example@localhost:${port}`,
          `localhost:${port}/x`,
        ]
      ) {
        assert.equal(await get(host), 403, host);
      }
      // The health check answers a load balancer that asks by address, as Mastodon's does.
      assert.equal(await get(`127.0.0.1:${port}`, "/health"), 200);
    });
  } finally {
    await signer.close();
    await blocked.close();
    await rookery.close({ destroy: true });
  }
});

test("request host: a development origin with a port, IPv6, and the forwarded host", async (t) => {
  const byAddress = await startInstance({ listen: true, originHost: "127.0.0.1" });
  const ipv6 = await startInstance({ worker: false, env: { ORIGIN: "http://[::1]:8080" } });
  const proxied = await startInstance({
    worker: false,
    env: { ORIGIN: "https://rookery.example", TRUST_PROXY: "true" },
  });
  const peer = await startFakePeer();
  try {
    await t.step("http://127.0.0.1:PORT answers that host with that port only", async () => {
      const port = Number(new URL(byAddress.origin).port);
      const get = (host: string) =>
        rawRequest(port, { target: "/api/v1/instance", headers: { Host: host } })
          .then((a) => a.status);
      assert.equal(await get(`127.0.0.1:${port}`), 200);
      assert.equal(await get("127.0.0.1"), 403);
      assert.equal(await get(`localhost:${port}`), 403);
    });

    await t.step("IPv6 origins, written short or long", async () => {
      const get = (url: string) =>
        ipv6.rookery.fetch(new Request(url)).then((res) => statusOf(res));
      assert.equal(await get("http://[::1]:8080/api/v1/instance"), 200);
      assert.equal(await get("http://[0:0:0:0:0:0:0:1]:8080/api/v1/instance"), 200);
      assert.equal(await get("http://[::2]:8080/api/v1/instance"), 403);
      assert.equal(await get("http://[::1]:8081/api/v1/instance"), 403);
    });

    await t.step("behind TRUST_PROXY the forwarded host is the one that counts", async () => {
      /** A request as the proxy hands it on: to our port, the public host forwarded. */
      const viaProxy = async (request: Request, forwardedHost: string) => {
        const url = new URL(request.url);
        const headers = new Headers(request.headers);
        headers.set("host", "127.0.0.1:3000");
        headers.set("x-forwarded-proto", "https");
        headers.set("x-forwarded-host", forwardedHost);
        const body = request.method === "GET" ? undefined : await request.arrayBuffer();
        return await proxied.rookery.fetch(
          new Request(`http://127.0.0.1:3000${url.pathname}${url.search}`, {
            method: request.method,
            headers,
            body,
          }),
        );
      };
      const instance = new Request("https://rookery.example/api/v1/instance");
      assert.equal(await statusOf(await viaProxy(instance, "rookery.example")), 200);
      assert.equal(await statusOf(await viaProxy(instance, "Rookery.Example.")), 200);
      assert.equal(await statusOf(await viaProxy(instance, "evil.example")), 403);
      // Without the forwarded host, our port's address is not our name.
      assert.equal(
        await statusOf(await proxied.rookery.fetch(new Request("http://127.0.0.1:3000/"))),
        403,
      );
      // A delivery signed for our public name is taken; one signed for X is not.
      const actor = peer.publishActor("sender");
      const create = (n: number) => ({
        "@context": AS,
        id: `${actor}/notes/${n}/activity`,
        type: "Create",
        actor,
        object: { id: `${actor}/notes/${n}`, type: "Note", attributedTo: actor, content: "hi" },
      });
      const deliverVia = (inbox: string, forwardedHost: string, n: number) =>
        peer.deliver(inbox, create(n), {
          keyId: `${actor}#main-key`,
          send: (request) => viaProxy(request, forwardedHost),
        }).then((res) => statusOf(res));
      assert.equal(await deliverVia("https://rookery.example/inbox", "rookery.example", 1), 202);
      assert.equal(await deliverVia("https://x.example/inbox", "x.example", 2), 403);
    });
  } finally {
    await peer.close();
    await byAddress.close({ destroy: true });
    await ipv6.close({ destroy: true });
    await proxied.close({ destroy: true });
  }
});
