/**
 * SSRF: with ALLOW_PRIVATE_ADDRESS off (the production default), no
 * user-supplied or remote-supplied address makes the server connect to
 * loopback, private, link-local, carrier-grade NAT, NAT64 or 6to4 forms of
 * them, or follow `data:`/`file:` URLs. A raw TCP listener on loopback (v4
 * and, where the host has it, v6) counts every connection it accepts: a
 * single one fails the test, whatever the protocol spoken.
 *
 * Paths covered: account search with resolve (handles and URLs), mentions
 * resolved when posting, link previews (cards, including a name that is
 * rebound to loopback between check and connect), and the keyId and actor
 * of an inbox delivery. Rookery keeps remote media as remote URLs (it fetches
 * none), so there is no media fetch to guard.
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { callJson, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { getStatus, jobsDrained } from "../cards/helpers.ts";
import { dnsResolver } from "../../actors/net/public_fetch.ts";
import { fetchHtmlPage } from "../../jobs/link_cards/fetch_page.ts";

/** A TCP listener that counts connections and closes them at once. */
interface Trap {
  port: number;
  connections: number;
  close(): void;
}

function listenTrap(hostname: string, port = 0): Trap | null {
  let listener: Deno.TcpListener;
  try {
    listener = Deno.listen({ hostname, port });
  } catch {
    return null; // no IPv6 loopback on this host
  }
  const trap: Trap = {
    port: (listener.addr as Deno.NetAddr).port,
    connections: 0,
    close: () => listener.close(),
  };
  (async () => {
    try {
      for await (const conn of listener) {
        trap.connections++;
        conn.close();
      }
    } catch {
      // closed
    }
  })();
  return trap;
}

/** Every spelling of "this machine or its private network" we refuse. */
function hostileHosts(port: number): string[] {
  return [
    `127.0.0.1:${port}`,
    `localhost:${port}`,
    `10.0.0.1:${port}`,
    `192.168.1.1:${port}`,
    `172.16.0.1:${port}`,
    `169.254.169.254:${port}`,
    `[::1]:${port}`,
    `[::ffff:127.0.0.1]:${port}`,
    `[64:ff9b::7f00:1]:${port}`,
    `[2002:7f00:1::]:${port}`,
    `100.64.0.1:${port}`,
    `0.0.0.0:${port}`,
    `2130706433:${port}`,
    `0177.0.0.1:${port}`,
    `0x7f.1:${port}`,
    `127.1:${port}`,
    `LOCALHOST.:${port}`,
    `app.localhost:${port}`,
    `[::]:${port}`,
    `[0:0:0:0:0:0:0:1]:${port}`,
  ];
}

function hostileUrls(port: number): string[] {
  return [
    ...hostileHosts(port).flatMap((h) => [`http://${h}/users/x`, `https://${h}/users/x`]),
    "data:application/activity+json,%7B%22type%22%3A%22Person%22%7D",
    "file:///etc/passwd",
  ];
}

function connections(traps: Trap[]): number {
  return traps.reduce((n, t) => n + t.connections, 0);
}

test("ssrf: no private or loopback address is ever connected to", async (t) => {
  const v4 = listenTrap("127.0.0.1")!;
  const v6 = listenTrap("::1", v4.port);
  const traps = v6 ? [v4, v6] : [v4];
  const port = v4.port;
  const a = await startInstance({ env: { ALLOW_PRIVATE_ADDRESS: "false" } });
  try {
    const alice = await createUser(a, "alice");

    await t.step("account search with resolve: handles and URLs", async () => {
      const queries = [...hostileHosts(port).map((h) => `x@${h}`), ...hostileUrls(port)];
      for (const q of queries) {
        const res = await callJson(
          a,
          alice,
          "GET",
          `/api/v1/accounts/search?resolve=true&q=${encodeURIComponent(q)}`,
        );
        assert.equal(res.status, 200, q);
        assert.deepEqual(res.body, [], q);
      }
      assert.equal(connections(traps), 0);
    });

    await t.step("mentions resolved when posting", async () => {
      for (const h of hostileHosts(port)) {
        const res = await callJson(a, alice, "POST", "/api/v1/statuses", {
          status: `hello @x@${h}`,
        });
        assert.equal(res.status, 200, h);
        assert.deepEqual(res.body.mentions, [], h);
      }
      assert.equal(connections(traps), 0);
    });

    await t.step("link previews (cards)", async () => {
      const posted = [];
      for (const url of hostileUrls(port)) {
        posted.push(await postStatus(a, alice, { status: `look ${url}` }));
      }
      await jobsDrained(a);
      for (const s of posted) assert.equal((await getStatus(a, alice, s.id)).card, null);
      assert.equal(connections(traps), 0);
    });

    await t.step("inbox deliveries naming a private keyId or actor", async () => {
      for (const url of hostileUrls(port)) {
        const activity = JSON.stringify({
          "@context": "https://www.w3.org/ns/activitystreams",
          id: `${url}#create`,
          type: "Create",
          actor: url,
          object: { id: `${url}/note`, type: "Note", attributedTo: url, content: "hi" },
        });
        const res = await a.request("/inbox", {
          method: "POST",
          headers: {
            "Content-Type": "application/activity+json",
            Date: new Date().toUTCString(),
            Signature: `keyId="${url}#main-key",algorithm="rsa-sha256",` +
              `headers="(request-target) host date",signature="AAAA"`,
          },
          body: activity,
        });
        await res.body?.cancel();
        assert.ok(res.status >= 400 && res.status < 500, `${url}: ${res.status}`);
      }
      await jobsDrained(a);
      assert.equal(connections(traps), 0);
    });
    await t.step("DNS rebinding: the connection goes to the address checked", async () => {
      // This machine's own name resolves to loopback through /etc/hosts; our
      // resolver answers a public address once. A fetch that resolved the
      // name again to connect would reach the trap.
      const name = Deno.hostname();
      let lookups = 0;
      const original = dnsResolver.lookup;
      dnsResolver.lookup = () => {
        lookups++;
        return Promise.resolve(
          lookups === 1
            ? [{ address: "1.1.1.1", family: 4 }]
            : [{ address: "127.0.0.1", family: 4 }],
        );
      };
      try {
        await fetchHtmlPage(`http://${name}:${port}/page`, {
          userAgent: "test",
          allowPrivateAddress: false,
          timeoutMs: 1500,
        }).catch(() => null);
      } finally {
        dnsResolver.lookup = original;
      }
      assert.equal(lookups, 1);
      assert.equal(connections(traps), 0);
    });
  } finally {
    await a.close({ destroy: true });
    for (const trap of traps) trap.close();
  }
});
