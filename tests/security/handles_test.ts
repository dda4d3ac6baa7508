/**
 * Remote handles are what WebFinger confirms, never what an actor document
 * or its host alone suggests (federation/remote/handles.ts). Fake peers on
 * loopback play every side, over plain http, against one instance whose
 * ORIGIN is http (so it asks WebFinger over http too):
 *
 * - `ap` (127.0.0.1:port) hosts the actors; `home` (localhost:port) is the
 *   domain of their handles when the test says so (a split domain);
 *   `evil` (127.0.0.1:another port) claims what is not its own.
 * - Split domain: the handle is `user@home`, found by handle as well.
 * - A peer claiming another server's handle keeps a handle on its own host.
 * - An impostor on the same host (by search and by a signed delivery)
 *   cannot take over a stored account's row, URI and key; the same move
 *   with WebFinger's word (the account was re-created) does.
 * - A self link pointing elsewhere, a subject on a domain that does not
 *   confirm, two subjects naming each other, an unreachable, oversized or
 *   malformed WebFinger answer.
 * - WebFinger redirects are followed, 3 at most.
 * - A handle the actor states (FEP-2c59 `webfinger`) counts once confirmed.
 * - A renamed actor keeps its handle until WebFinger confirms the new one.
 * - A handle WebFinger now gives another stored actor is taken from its
 *   holder, which shows an id-based handle until its refresh settles it (its
 *   new handle, or gone).
 * - Confirmations are cached: a second store asks nobody; a day later it does.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { isActor } from "@fedify/vocab";
import { accounts } from "../../db/schema/mod.ts";
import { startInstance, test } from "../harness.ts";
import { callJson } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { type FakePeer, rsaKeyPair, startFakePeer, statusOf } from "../fixtures/fake_peer.ts";
import { eventually } from "../fixtures/wait.ts";
import { storedStatus } from "../fixtures/federation.ts";
import { upsertRemoteActor } from "../../federation/remote/accounts.ts";
import { instanceContext, lookupRemote } from "../../federation/fetch/lookup.ts";
import { refreshRemoteAccount } from "../../federation/remote/account_refresh.ts";

const AS = "https://www.w3.org/ns/activitystreams";

/** What a peer's WebFinger answers for a resource: a subject and a self link. */
type Jrd = { subject: string; self: string };
/** Or: a 500, an oversized or malformed answer, or a redirect to a URL. */
type Answer = Jrd | "error" | "huge" | "garbage" | { redirect: string };

/** A WebFinger endpoint on `peer` answering from a table; it counts questions per resource. */
function serveWebFinger(peer: FakePeer) {
  const table = new Map<string, Answer>();
  const asked = new Map<string, number>();
  peer.route("/.well-known/webfinger", (request) => {
    const resource = new URL(request.url).searchParams.get("resource") ?? "";
    asked.set(resource, (asked.get(resource) ?? 0) + 1);
    const entry = table.get(resource);
    if (entry === "error") return new Response("down", { status: 500 });
    if (entry === "garbage") return new Response("<html>not a JRD", { status: 200 });
    if (typeof entry === "object" && "redirect" in entry) {
      return new Response(null, { status: 302, headers: { Location: entry.redirect } });
    }
    if (entry === "huge") {
      // A JRD that never ends: it must be cut off, not read (or parsed) whole.
      const links = Array.from({ length: 20_000 }, (_, i) => ({ rel: "x", href: `${i}` }));
      return new Response(JSON.stringify({ subject: resource, links }), {
        headers: { "Content-Type": "application/jrd+json" },
      });
    }
    if (!entry) return new Response("not found", { status: 404 });
    return new Response(
      JSON.stringify({
        subject: entry.subject,
        links: [{ rel: "self", type: "application/activity+json", href: entry.self }],
      }),
      { headers: { "Content-Type": "application/jrd+json" } },
    );
  });
  return {
    /** `acct:user@domain` answers with `answer`. */
    set: (acct: string, answer: Answer) => table.set(`acct:${acct}`, answer),
    asked: (acct: string) => asked.get(`acct:${acct}`) ?? 0,
  };
}

test("remote handles are confirmed by WebFinger", async (t) => {
  const r = await startInstance();
  const ap = await startFakePeer();
  const home = await startFakePeer({ hostname: "localhost" });
  const evil = await startFakePeer();
  const apWf = serveWebFinger(ap);
  const homeWf = serveWebFinger(home);
  const evilWf = serveWebFinger(evil);
  const AP = new URL(ap.origin).host;
  const HOME = new URL(home.origin).host;
  const EVIL = new URL(evil.origin).host;
  const db = r.rookery.ctx.database.db;
  try {
    const reader = await createUser(r, "reader");
    const resolve = async (q: string) => {
      const res = await callJson(
        r,
        reader,
        "GET",
        `/api/v1/accounts/search?resolve=true&q=${encodeURIComponent(q)}`,
      );
      assert.equal(res.status, 200);
      return res.body as any[];
    };
    const rowOf = async (uri: string) =>
      (await db.select().from(accounts).where(eq(accounts.uri, uri)))[0];
    const lookup = async (acct: string) =>
      await callJson(r, reader, "GET", `/api/v1/accounts/lookup?acct=${encodeURIComponent(acct)}`);

    const alice = ap.publishActor("alice");
    await t.step("split domain: the handle is the one the handle's domain confirms", async () => {
      apWf.set(`alice@${AP}`, { subject: `acct:alice@${HOME}`, self: alice });
      homeWf.set(`alice@${HOME}`, { subject: `acct:alice@${HOME}`, self: alice });
      const [found] = await resolve(alice);
      assert.equal(found?.acct, `alice@${HOME}`);
      assert.equal(found.uri, alice);
      // By handle on the handle's domain: WebFinger there, over http like our ORIGIN.
      await db.delete(accounts).where(eq(accounts.uri, alice));
      const [byHandle] = await resolve(`@alice@${HOME}`);
      assert.equal(byHandle?.acct, `alice@${HOME}`);
      assert.equal(byHandle.uri, alice);
      assert.equal((await lookup(`alice@${HOME}`)).body.uri, alice);
      assert.equal((await lookup(`alice@${AP}`)).status, 404, "no handle on the actor's host");
    });

    await t.step("a peer claiming another server's handle keeps one on its own host", async () => {
      const mallory = evil.publishActor("mallory", { preferredUsername: "alice" });
      // evil vouches for its actor, but names alice of home as its subject.
      evilWf.set(`alice@${EVIL}`, { subject: `acct:alice@${HOME}`, self: mallory });
      const before = await rowOf(alice);
      const [found] = await resolve(mallory);
      assert.equal(found?.acct, `alice@${EVIL}`);
      const after = await rowOf(alice);
      assert.equal(after.uri, alice);
      assert.equal(after.domain, HOME);
      assert.equal(after.publicKeyId, before.publicKeyId);
      assert.equal((await lookup(`alice@${HOME}`)).body.uri, alice);
    });

    const carol = ap.publishActor("carol");
    apWf.set(`carol@${AP}`, { subject: `acct:carol@${AP}`, self: carol });
    const carolId = (await resolve(carol))[0]?.id;
    const impostorKeys = await rsaKeyPair();
    const impostorPem = await (async () => {
      const der = new Uint8Array(await crypto.subtle.exportKey("spki", impostorKeys.publicKey));
      const lines = btoa(String.fromCharCode(...der)).match(/.{1,64}/g)!.join("\n");
      return `-----BEGIN PUBLIC KEY-----\n${lines}\n-----END PUBLIC KEY-----\n`;
    })();
    const impostor = `${ap.origin}/people/carol`;
    ap.serve("/people/carol", {
      "@context": [AS, "https://w3id.org/security/v1"],
      id: impostor,
      type: "Person",
      preferredUsername: "carol",
      inbox: `${impostor}/inbox`,
      publicKey: { id: `${impostor}#main-key`, owner: impostor, publicKeyPem: ap.publicKeyPem },
    });

    await t.step("an impostor on the same host does not take over a stored row", async () => {
      assert.ok(carolId);
      assert.equal((await lookup(`carol@${AP}`)).body.id, carolId);
      const before = await rowOf(carol);
      assert.deepEqual(await resolve(impostor), [], "WebFinger names carol, not the impostor");
      // Nor through a delivery signed by the impostor's key.
      const send = (request: Request) => r.request(request.url, request);
      const note = {
        id: `${impostor}/notes/1`,
        type: "Note",
        attributedTo: impostor,
        to: [`${AS}#Public`],
        content: "I am carol now",
      };
      const res = await ap.deliver(`${r.origin}/inbox`, {
        "@context": AS,
        id: `${note.id}/activity`,
        type: "Create",
        actor: impostor,
        to: note.to,
        object: note,
      }, { keyId: `${impostor}#main-key`, send });
      assert.ok([202, 401].includes(await statusOf(res)));
      // A marker from a real account: once it is stored, the impostor's delivery was handled.
      const marker = { ...note, id: `${carol}/notes/marker`, attributedTo: carol, content: "m" };
      const sent = await ap.deliver(`${r.origin}/inbox`, {
        "@context": AS,
        id: `${marker.id}/activity`,
        type: "Create",
        actor: carol,
        to: marker.to,
        object: marker,
      }, { keyId: `${carol}#main-key`, send });
      assert.equal(await statusOf(sent), 202);
      await eventually("the marker", () => storedStatus(r, marker.id));
      assert.equal(await storedStatus(r, note.id), undefined);
      const after = await rowOf(carol);
      assert.equal(after?.id, carolId, "carol's row kept its URI");
      assert.equal(after.publicKeyPem, before.publicKeyPem, "and its key");
      assert.equal(await rowOf(impostor), undefined);
    });

    await t.step("a re-created account takes its row with WebFinger's word", async () => {
      ap.serve("/people/carol", {
        "@context": [AS, "https://w3id.org/security/v1"],
        id: impostor,
        type: "Person",
        preferredUsername: "carol",
        inbox: `${impostor}/inbox`,
        publicKey: { id: `${impostor}#main-key`, owner: impostor, publicKeyPem: impostorPem },
      });
      apWf.set(`carol@${AP}`, { subject: `acct:carol@${AP}`, self: impostor });
      const [found] = await resolve(impostor);
      assert.equal(found?.id, carolId, "the same row");
      assert.equal(found.uri, impostor);
      assert.equal((await rowOf(impostor)).publicKeyPem, impostorPem);
      assert.equal(await rowOf(carol), undefined);
    });

    await t.step("a self link to someone else confirms nothing", async () => {
      const dan = ap.publishActor("dan");
      apWf.set(`dan@${AP}`, { subject: `acct:dan@${HOME}`, self: alice });
      homeWf.set(`dan@${HOME}`, { subject: `acct:dan@${HOME}`, self: dan });
      const [found] = await resolve(dan);
      assert.equal(found?.acct, `dan@${AP}`, "the host's answer did not point back");
      assert.equal(homeWf.asked(`dan@${HOME}`), 0, "its subject was never asked");
      assert.equal((await rowOf(dan)).lastWebfingeredAt != null, true);
    });

    await t.step("a subject that does not confirm, and subjects naming each other", async () => {
      const erin = ap.publishActor("erin");
      apWf.set(`erin@${AP}`, { subject: `acct:erin@${HOME}`, self: erin });
      homeWf.set(`erin@${HOME}`, { subject: `acct:erin@${HOME}`, self: `${ap.origin}/users/x` });
      assert.equal((await resolve(erin))[0]?.acct, `erin@${AP}`);

      const fay = ap.publishActor("fay");
      apWf.set(`fay@${AP}`, { subject: `acct:fay@${HOME}`, self: fay });
      homeWf.set(`fay@${HOME}`, { subject: `acct:fay@${AP}`, self: fay });
      assert.equal((await resolve(fay))[0]?.acct, `fay@${AP}`);
      assert.equal(apWf.asked(`fay@${AP}`), 1, "no loop: each side asked once");
      assert.equal(homeWf.asked(`fay@${HOME}`), 1);
    });

    await t.step(
      "an unreachable, oversized or malformed WebFinger stops neither an actor nor its deliveries",
      async () => {
        const gus = evil.publishActor("gus");
        evilWf.set(`gus@${EVIL}`, "error");
        const post = { id: `${gus}/notes/1`, type: "Note", attributedTo: gus, content: "hi" };
        const res = await evil.deliver(`${r.origin}/inbox`, {
          "@context": AS,
          id: `${post.id}/activity`,
          type: "Create",
          actor: gus,
          to: [`${AS}#Public`],
          object: { ...post, to: [`${AS}#Public`] },
        }, { keyId: `${gus}#main-key`, send: (request) => r.request(request.url, request) });
        assert.equal(await statusOf(res), 202);
        await eventually("gus's post", () => storedStatus(r, post.id));
        const row = await rowOf(gus);
        assert.equal(`${row.username}@${row.domain}`, `gus@${EVIL}`);
        assert.equal(evilWf.asked(`gus@${EVIL}`), 1);

        // Oversized and malformed answers confirm nothing and break nothing.
        for (const [name, answer] of [["hal", "huge"], ["ida", "garbage"]] as const) {
          const actor = evil.publishActor(name);
          evilWf.set(`${name}@${EVIL}`, answer);
          const [found] = await resolve(actor);
          assert.equal(found?.acct, `${name}@${EVIL}`);
          assert.equal(evilWf.asked(`${name}@${EVIL}`), 1);
        }
      },
    );

    await t.step("redirects are followed, a few at most", async () => {
      const ned = ap.publishActor("ned");
      const wf = (origin: string, acct: string) =>
        `${origin}/.well-known/webfinger?resource=${encodeURIComponent(`acct:${acct}`)}`;
      // ap sends its WebFinger to home, which names the split-domain handle.
      apWf.set(`ned@${AP}`, { redirect: wf(home.origin, `ned@${AP}`) });
      homeWf.set(`ned@${AP}`, { subject: `acct:ned@${HOME}`, self: ned });
      homeWf.set(`ned@${HOME}`, { subject: `acct:ned@${HOME}`, self: ned });
      assert.equal((await resolve(ned))[0]?.acct, `ned@${HOME}`);
      // A redirect loop ends after 3 hops; the actor is still stored.
      const oz = ap.publishActor("oz");
      apWf.set(`oz@${AP}`, { redirect: wf(ap.origin, `oz@${AP}`) });
      assert.equal((await resolve(oz))[0]?.acct, `oz@${AP}`);
      assert.equal(apWf.asked(`oz@${AP}`), 4);
    });

    await t.step(
      "a handle the actor states (FEP-2c59) counts once its domain confirms it",
      async () => {
        const lee = ap.publishActor("lee", { webfinger: `lee@${HOME}` });
        homeWf.set(`lee@${HOME}`, { subject: `acct:lee@${HOME}`, self: lee });
        assert.equal((await resolve(lee))[0]?.acct, `lee@${HOME}`);
        assert.equal(apWf.asked(`lee@${AP}`), 0, "the actor's host was not needed");
        // Stating someone else's handle gets nothing: home names its own alice.
        const max = evil.publishActor("max", { webfinger: `alice@${HOME}` });
        evilWf.set(`max@${EVIL}`, { subject: `acct:max@${EVIL}`, self: max });
        assert.equal((await resolve(max))[0]?.acct, `max@${EVIL}`);
        assert.equal((await rowOf(alice)).domain, HOME);
      },
    );

    await t.step(
      "a renamed actor keeps its handle until WebFinger confirms the new one",
      async () => {
        const ctx = r.rookery.ctx;
        const kim = ap.publishActor("kim");
        apWf.set(`kim@${AP}`, { subject: `acct:kim@${AP}`, self: kim });
        const [found] = await resolve(kim);
        assert.equal(found?.acct, `kim@${AP}`);
        ap.publishActor("kim", { preferredUsername: "kimberly" });
        const renamed = await lookupRemote(instanceContext(ctx), kim);
        assert.ok(isActor(renamed));
        const kept = await upsertRemoteActor(ctx, renamed);
        assert.equal(`${kept?.username}@${kept?.domain}`, `kim@${AP}`, "no confirmation yet");
        assert.equal(apWf.asked(`kimberly@${AP}`), 1, "the new name was asked at once");
        apWf.set(`kimberly@${AP}`, { subject: `acct:kimberly@${AP}`, self: kim });
        const moved = await upsertRemoteActor(ctx, renamed);
        assert.equal(moved?.id, found.id);
        assert.equal(`${moved?.username}@${moved?.domain}`, `kimberly@${AP}`);
      },
    );

    await t.step(
      "a handle WebFinger now gives another actor is taken from its holder, which is refreshed",
      async () => {
        const ctx = r.rookery.ctx;
        const first = ap.publishActor("first", { preferredUsername: "holly" });
        const second = ap.publishActor("second", { preferredUsername: "bert" });
        apWf.set(`holly@${AP}`, { subject: `acct:holly@${AP}`, self: first });
        apWf.set(`bert@${AP}`, { subject: `acct:bert@${AP}`, self: second });
        const [a] = await resolve(first);
        const [b] = await resolve(second);
        assert.equal(a?.acct, `holly@${AP}`);
        assert.equal(b?.acct, `bert@${AP}`);

        // Without WebFinger's word nothing moves: holly still names the first actor.
        const unconfirmed = await lookupRemote(instanceContext(ctx), second);
        ap.publishActor("second", { preferredUsername: "holly" });
        const claiming = await lookupRemote(instanceContext(ctx), second);
        assert.ok(isActor(unconfirmed) && isActor(claiming));
        const kept = await upsertRemoteActor(ctx, claiming);
        assert.equal(`${kept?.username}@${kept?.domain}`, `bert@${AP}`);
        assert.equal((await rowOf(first)).username, "holly");

        // The first actor's server fails for now; then WebFinger gives holly to the second,
        // which says so in a signed Update: the second takes holly, the first is invalidated.
        ap.route("/users/first", () => new Response("down", { status: 500 }));
        const firstFetches = ap.hits("/users/first");
        apWf.set(`holly@${AP}`, { subject: `acct:holly@${AP}`, self: second });
        const update = {
          "@context": [AS, "https://w3id.org/security/v1"],
          id: `${second}#updates/1`,
          type: "Update",
          actor: second,
          object: { ...ap.documentOf("/users/second"), "@context": undefined },
        };
        const res = await ap.deliver(`${r.origin}/inbox`, update, {
          keyId: `${second}#main-key`,
          send: (request) => r.request(request.url, request),
        });
        assert.equal(await statusOf(res), 202);
        await eventually(
          "the second actor named holly",
          async () => (await rowOf(second)).username === "holly",
        );
        assert.equal((await rowOf(first)).username, `!${a.id}`);
        // The refresh asked the first actor's server, which failed: the placeholder stays.
        await eventually(
          "the refresh",
          () => Promise.resolve(ap.hits("/users/first") > firstFetches),
        );
        const shown = await callJson(r, reader, "GET", `/api/v1/accounts/${a.id}`);
        assert.equal(shown.body.username, a.id);
        assert.equal(shown.body.acct, `${a.id}@${AP}`);
        assert.equal((await lookup(`holly@${AP}`)).body.id, b.id);

        // Refreshed once its server answers: its new handle, as WebFinger confirms it.
        ap.publishActor("first", { preferredUsername: "ann" });
        apWf.set(`ann@${AP}`, { subject: `acct:ann@${AP}`, self: first });
        await refreshRemoteAccount(ctx, a.id);
        assert.equal((await rowOf(first)).username, "ann");
        assert.equal(
          (await callJson(r, reader, "GET", `/api/v1/accounts/${a.id}`)).body.acct,
          `ann@${AP}`,
        );

        // Another holder whose server now says it is gone (410) is purged by its refresh.
        const third = ap.publishActor("third", { preferredUsername: "gail" });
        apWf.set(`gail@${AP}`, { subject: `acct:gail@${AP}`, self: third });
        const [c] = await resolve(third);
        ap.route("/users/third", () => new Response("gone", { status: 410 }));
        ap.publishActor("second", { preferredUsername: "gail" });
        apWf.set(`gail@${AP}`, { subject: `acct:gail@${AP}`, self: second });
        const renamed = await lookupRemote(instanceContext(ctx), second);
        assert.ok(isActor(renamed));
        assert.equal((await upsertRemoteActor(ctx, renamed))?.username, "gail");
        await eventually(
          "the third actor purged",
          async () => (await rowOf(third)).deletedAt != null,
        );
        assert.equal((await rowOf(third)).id, c.id);
      },
    );

    await t.step("confirmations are cached for a day, failures too", async () => {
      const ctx = r.rookery.ctx;
      const actor = await lookupRemote(instanceContext(ctx), alice);
      assert.ok(isActor(actor));
      const asked = () => [apWf.asked(`alice@${AP}`), homeWf.asked(`alice@${HOME}`)];
      const handleOf = (row: { username: string; domain: string | null } | null) =>
        `${row?.username}@${row?.domain}`;
      const aDayAgo = () =>
        db.update(accounts).set({ lastWebfingeredAt: new Date(Date.now() - 25 * 3600_000) })
          .where(eq(accounts.uri, alice));
      const start = asked();
      assert.equal(handleOf(await upsertRemoteActor(ctx, actor)), `alice@${HOME}`);
      assert.deepEqual(asked(), start, "a fresh confirmation is not asked again");

      // A day later WebFinger is asked again; the handle's domain is down: the handle stays.
      await aDayAgo();
      homeWf.set(`alice@${HOME}`, "error");
      assert.equal(handleOf(await upsertRemoteActor(ctx, actor)), `alice@${HOME}`);
      assert.deepEqual(asked(), [start[0] + 1, start[1] + 1]);
      await upsertRemoteActor(ctx, actor);
      assert.deepEqual(asked(), [start[0] + 1, start[1] + 1], "the failed check is cached");

      // It answers again, for someone else: ap still points back, so the host's handle.
      await aDayAgo();
      homeWf.set(`alice@${HOME}`, { subject: `acct:alice@${HOME}`, self: `${home.origin}/a` });
      assert.equal(handleOf(await upsertRemoteActor(ctx, actor)), `alice@${AP}`);
    });
  } finally {
    await r.close({ destroy: true });
    await ap.close();
    await home.close();
    await evil.close();
  }
});
