/**
 * DNS rebinding, for the requests Fedify makes itself (deliveries,
 * WebFinger, NodeInfo): with ALLOW_PRIVATE_ADDRESS off they connect to the
 * address that was checked, through actors/net/public_fetch.ts
 * (federation/fetch/outbound_fetch.ts wraps fetch for them).
 *
 * - A whole exchange runs over the pinned path: the peer's name exists only
 *   in our test resolver (Deno's own resolver has never heard of it), and its
 *   loopback address is let through as if it were public. Resolving the actor
 *   and delivering a signed Follow to its inbox both reach it.
 * - A signed request to a name that answers public, then loopback, never
 *   reaches the loopback listener; the same request unpinned does (the
 *   control that shows the listener counts).
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { callJson } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";
import { startFakePeer } from "../fixtures/fake_peer.ts";
import { addressPolicy, dnsResolver } from "../../actors/net/public_fetch.ts";
import { OutboundFetchGuard } from "../../federation/fetch/outbound_fetch.ts";

const PEER_NAME = "peer.rookery-pinned.test";

test("pinned connections for Fedify's own requests", async (t) => {
  const originalLookup = dnsResolver.lookup;
  const originalPolicy = addressPolicy.isPublic;
  let lookups = 0;
  dnsResolver.lookup = (name) => {
    lookups++;
    return name === PEER_NAME
      ? Promise.resolve([{ address: "127.0.0.1", family: 4 }])
      : originalLookup(name);
  };
  addressPolicy.isPublic = (address, family) =>
    address === "127.0.0.1" || originalPolicy(address, family);
  const peer = await startFakePeer({ hostname: PEER_NAME });
  const a = await startInstance({ env: { ALLOW_PRIVATE_ADDRESS: "false" } });
  try {
    await t.step(
      "resolve an actor and deliver a Follow to a name only our resolver knows",
      async () => {
        const bob = peer.publishActor("bob");
        const inboxPath = "/users/bob/inbox";
        const deliveries: { host: string | null; signed: boolean; type: string }[] = [];
        peer.route(inboxPath, async (request) => {
          const body = await request.json();
          deliveries.push({
            host: request.headers.get("host"),
            signed: request.headers.has("signature") || request.headers.has("signature-input"),
            type: body.type,
          });
          return new Response(null, { status: 202 });
        });
        const alice = await createUser(a, "alice");
        const found = await callJson(
          a,
          alice,
          "GET",
          `/api/v1/accounts/search?resolve=true&q=${encodeURIComponent(bob)}`,
        );
        assert.equal(found.status, 200);
        assert.equal(found.body.length, 1, "the actor was fetched over the pinned path");
        lookups = 0;
        const follow = await callJson(
          a,
          alice,
          "POST",
          `/api/v1/accounts/${found.body[0].id}/follow`,
        );
        assert.equal(follow.status, 200);
        await eventually("the Follow delivered", () => Promise.resolve(deliveries.length > 0));
        assert.equal(deliveries[0].type, "Follow");
        assert.equal(deliveries[0].signed, true);
        assert.equal(deliveries[0].host, new URL(peer.origin).host);
        assert.ok(lookups >= 1, "the delivery's address came from our resolver");
      },
    );

    await t.step(
      "an actor id spelt with a trailing dot is stored under the bare domain",
      async () => {
        // The peer's documents name it `peer.….test.:port`; accounts of that
        // domain must carry the same domain a block or a handle names.
        const dotted = await startFakePeer({ hostname: `${PEER_NAME}.` });
        try {
          const carol = dotted.publishActor("carol");
          const alice = await createUser(a, "alice2");
          const found = await callJson(
            a,
            alice,
            "GET",
            `/api/v1/accounts/search?resolve=true&q=${encodeURIComponent(carol)}`,
          );
          assert.equal(found.body.length, 1);
          const port = new URL(dotted.origin).port;
          assert.equal(found.body[0].acct, `carol@${PEER_NAME}:${port}`);
          const byHandle = await callJson(
            a,
            alice,
            "GET",
            `/api/v1/accounts/lookup?acct=${encodeURIComponent(`carol@${PEER_NAME}:${port}`)}`,
          );
          assert.equal(byHandle.status, 200);
          assert.equal(byHandle.body.id, found.body[0].id);
        } finally {
          await dotted.close();
        }
      },
    );

    await t.step("a name rebound to loopback after the check is never connected to", async () => {
      const trap = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      let connections = 0;
      (async () => {
        try {
          for await (const conn of trap) {
            connections++;
            conn.close();
          }
        } catch {
          // closed
        }
      })();
      const port = (trap.addr as Deno.NetAddr).port;
      // This machine's name resolves to loopback through /etc/hosts; our
      // resolver answers a "public" address first, one that refuses at once
      // (nothing listens on 127.0.0.2): the request ends there, without a
      // wait, and had it been sent to the name's other address the trap
      // would have counted the connection before resetting it.
      const name = Deno.hostname();
      let asked = 0;
      dnsResolver.lookup = () => {
        asked++;
        return Promise.resolve([{ address: asked === 1 ? "127.0.0.2" : "127.0.0.1", family: 4 }]);
      };
      addressPolicy.isPublic = (address) => address === "127.0.0.2";
      const send = () =>
        fetch(`http://${name}:${port}/inbox`, {
          method: "POST",
          headers: {
            "User-Agent": "Rookery/test",
            Signature: 'keyId="https://example.com/actor#main-key",signature="AAAA"',
          },
          body: "{}",
          signal: AbortSignal.timeout(30_000),
        }).then((r) => r.body?.cancel(), (error) => error);
      let unpinned: OutboundFetchGuard | undefined;
      try {
        const refused = await send();
        assert.ok(refused instanceof TypeError, `refused, not timed out: ${refused}`);
        assert.equal(asked, 1);
        assert.equal(connections, 0);
        // Control: unpinned (ALLOW_PRIVATE_ADDRESS on), fetch resolves the
        // name itself and reaches the listener.
        // Outermost, this guard handles our requests until it is uninstalled.
        unpinned = OutboundFetchGuard.install({ timeoutMs: 10_000, allowPrivateAddress: true });
        await send();
        await eventually("a connection", () => Promise.resolve(connections === 1));
      } finally {
        unpinned?.uninstall();
        trap.close();
      }
    });
  } finally {
    dnsResolver.lookup = originalLookup;
    addressPolicy.isPublic = originalPolicy;
    await a.close({ destroy: true });
    await peer.close();
  }
});
