/**
 * The HTTP entrance with TRUST_PROXY=true, without a proxy binary (the real
 * nginx and Caddy are in reverse_proxy_test.ts): a client sending what a
 * proxy sends. The WebSocket upgrades the connection's own request while the
 * rest sees the public URL; bodies are passed on unread; forwarding headers
 * that are not a plain scheme or host change nothing.
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { WsClient } from "../streaming/helpers.ts";
import { forwardedRequest } from "../../api/forwarded.ts";

test("TRUST_PROXY: streaming and bodies behind forwarding headers", async (t) => {
  const instance = await startInstance({ listen: true, env: { TRUST_PROXY: "true" } });
  // What a proxy in front of this very instance sends (another host would get 403).
  const forwarded = { "X-Forwarded-Proto": "https", "X-Forwarded-Host": instance.domain };
  try {
    const alice = await createUser(instance, "alice");

    await t.step("a WebSocket opened through forwarding headers carries live updates", async () => {
      const ws = await WsClient.open(
        instance,
        `/api/v1/streaming?stream=user&access_token=${alice.token}`,
        undefined,
        forwarded,
      );
      try {
        // A frame from the client reaches the server: the connection was upgraded.
        ws.send({ type: "subscribe", stream: "hashtag", tag: "upgraded" });
        const status = await postStatus(instance, alice, "Live #upgraded");
        assert.equal(JSON.parse((await ws.next("update", "user", 10_000)).payload!).id, status.id);
        assert.equal(
          JSON.parse((await ws.next("update", "hashtag", 10_000)).payload!).id,
          status.id,
        );
      } finally {
        await ws.close();
      }
    });

    await t.step("an unsigned delivery is refused before its body has ended", async () => {
      // The body sends one chunk and stays open until the answer has come:
      // reading it whole before the inbox guard would never answer.
      const answered = Promise.withResolvers<void>();
      const body = new ReadableStream<Uint8Array>({
        async start(controller) {
          controller.enqueue(new TextEncoder().encode('{"type":"Create",'));
          await answered.promise;
          controller.close();
        },
      });
      const res = await fetch(`${instance.listenOrigin}/inbox`, {
        method: "POST",
        headers: { ...forwarded, "Content-Type": "application/activity+json" },
        body,
        // Bounds the wait when the body is read first (there is no answer then).
        signal: AbortSignal.timeout(30_000),
      });
      answered.resolve();
      await res.body?.cancel();
      assert.equal(res.status, 401);
    });
  } finally {
    await instance.close({ destroy: true });
  }
});

test("TRUST_PROXY: forwarding headers that are not a scheme or a host are ignored", () => {
  const at = (headers: Record<string, string>) =>
    forwardedRequest(new Request("http://127.0.0.1:8080/users/a?x=1", { headers })).url;
  assert.equal(at({ "x-forwarded-proto": "https" }), "https://127.0.0.1:8080/users/a?x=1");
  assert.equal(
    at({ "x-forwarded-proto": "https", "x-forwarded-host": "social.example" }),
    "https://social.example/users/a?x=1",
  );
  assert.equal(
    at({ "x-forwarded-proto": "https, http", "x-forwarded-host": "social.example:4443, inner" }),
    "https://social.example:4443/users/a?x=1",
  );
  assert.equal(at({ "x-forwarded-host": "[::1]:4443" }), "http://[::1]:4443/users/a?x=1");
  for (
    const host of [
      "evil.example/x?",
      "a@evil.example",
      "evil.example:99999",
      "",
      "a b",
      "é.example",
    ]
  ) {
    assert.equal(
      at({ "x-forwarded-proto": "https", "x-forwarded-host": host }),
      "https://127.0.0.1:8080/users/a?x=1",
      host,
    );
  }
  assert.equal(at({ "x-forwarded-proto": "javascript" }), "http://127.0.0.1:8080/users/a?x=1");
  const rebuilt = forwardedRequest(
    new Request("http://127.0.0.1:8080/", { headers: { "x-forwarded-host": "social.example" } }),
  );
  assert.equal(rebuilt.headers.get("host"), "social.example");
});
