/**
 * Handles that do not resolve say why (issue 19, item 5): a search with
 * `resolve=true` that finds nothing logs, at info level, one of the
 * reasons of federation/fetch/webfinger_client.ts's LookupFailure, so an operator
 * can tell "no such account" from "could not ask":
 *
 * - not_found (WebFinger 404), invalid_answer (not a JRD), no_actor_link,
 *   actor_unavailable (the actor URL 404s), not_an_actor (a Note),
 *   unreachable (nothing listens), blocked (a domain block), and
 *   private_address (an instance with ALLOW_PRIVATE_ADDRESS off asked
 *   about a loopback peer);
 * - a handle that resolves logs none of them.
 */
import assert from "node:assert/strict";
import type { LogRecord } from "@logtape/logtape";
import { runAdminCommand } from "../../admin/commands.ts";
import { startInstance, test } from "../harness.ts";
import { startFakePeer } from "../fixtures/fake_peer.ts";
import { ok } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { captureLogs } from "../fixtures/log_capture.ts";
import { domainRuleSeen } from "../fixtures/wait.ts";

const AS = "https://www.w3.org/ns/activitystreams";

test("handles that do not resolve log why, at info level", async (t) => {
  const logs = await captureLogs();
  const rookery = await startInstance();
  const peer = await startFakePeer();
  const host = new URL(peer.origin).host;
  const actor = peer.publishActor("real");
  const jrd = (name: string, self: string | null) => ({
    subject: `acct:${name}@${host}`,
    links: self ? [{ rel: "self", type: "application/activity+json", href: self }] : [],
  });
  peer.serve(`/notes/1`, {
    "@context": AS,
    id: `${peer.origin}/notes/1`,
    type: "Note",
    content: "not an actor",
  });
  peer.route("/.well-known/webfinger", (request) => {
    const resource = new URL(request.url).searchParams.get("resource") ?? "";
    const name = /^acct:([^@]+)@/.exec(resource)?.[1] ?? "";
    switch (name) {
      case "real":
        return Response.json(jrd(name, actor));
      case "linkless":
        return Response.json(jrd(name, null));
      case "gone":
        return Response.json(jrd(name, `${peer.origin}/users/gone`));
      case "note":
        return Response.json(jrd(name, `${peer.origin}/notes/1`));
      case "garbled":
        return new Response("<html>hello</html>", { headers: { "Content-Type": "text/html" } });
      default:
        return new Response("no such account", { status: 404 });
    }
  });
  const alice = await createUser(rookery, "alice");
  /** The handle lookup's records for `query` (the one line an operator greps for). */
  const reasonsFor = (query: string) =>
    logs.records.filter((r: LogRecord) =>
      r.category.join(".") === "rookery.federation.handles" && r.properties.query === query
    );
  const lookUp = async (on: typeof rookery, who: typeof alice, query: string) => {
    const found = await ok(
      on,
      who,
      "GET",
      `/api/v1/accounts/search?q=${encodeURIComponent(query)}&resolve=true`,
    );
    return found as { acct: string }[];
  };
  const expectReason = async (query: string, reason: string, on = rookery, who = alice) => {
    const found = await lookUp(on, who, query);
    assert.deepEqual(found, [], `${query} found nothing`);
    const records = reasonsFor(query);
    assert.equal(records.length, 1, `one record for ${query}`);
    assert.equal(records[0].level, "info");
    assert.equal(records[0].properties.reason, reason, `${query}: ${logs.text(records[0])}`);
  };
  try {
    await t.step("a handle that resolves logs no reason", async () => {
      const found = await lookUp(rookery, alice, `real@${host}`);
      assert.equal(found.length, 1);
      assert.deepEqual(reasonsFor(`real@${host}`), []);
    });
    await t.step("WebFinger says no such account: not_found", async () => {
      await expectReason(`nobody@${host}`, "not_found");
    });
    await t.step("WebFinger answers no JRD: invalid_answer", async () => {
      await expectReason(`garbled@${host}`, "invalid_answer");
    });
    await t.step("the JRD names no actor: no_actor_link", async () => {
      await expectReason(`linkless@${host}`, "no_actor_link");
    });
    await t.step("the actor cannot be fetched: actor_unavailable", async () => {
      await expectReason(`gone@${host}`, "actor_unavailable");
    });
    await t.step("the document is not an actor: not_an_actor", async () => {
      await expectReason(`note@${host}`, "not_an_actor");
    });
    await t.step("nothing listens: unreachable", async () => {
      // A port that was free a moment ago.
      const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      const port = (listener.addr as Deno.NetAddr).port;
      listener.close();
      await expectReason(`someone@127.0.0.1:${port}`, "unreachable");
    });
    await t.step("a blocked domain: blocked", async () => {
      const { ctx } = rookery.rookery;
      const env = { db: ctx.database.db, config: ctx.config, media: ctx.media };
      const blocked = await runAdminCommand(env, ["domain", "block", "blocked.example"]);
      assert.equal(blocked.exitCode, 0, blocked.stderr);
      await domainRuleSeen(ctx.core.domainRules, "blocked.example");
      await expectReason("someone@blocked.example", "blocked");
    });
    await t.step("a loopback peer, private addresses refused: private_address", async () => {
      // Last: the setting is the process's for outbound requests (outbound_fetch.ts).
      const strict = await startInstance({ env: { ALLOW_PRIVATE_ADDRESS: "false" } });
      try {
        const carol = await createUser(strict, "carol");
        await expectReason(`real@${host}`, "private_address", strict, carol);
      } finally {
        await strict.close({ destroy: true });
      }
    });
    await t.step("the reasons are not errors", () => {
      const handles = logs.records.filter((r) =>
        r.category.join(".") === "rookery.federation.handles"
      );
      assert.ok(handles.every((r) => r.level === "info"));
    });
  } finally {
    await peer.close();
    await rookery.close({ destroy: true });
    await logs.stop();
  }
});
