/**
 * Two instances over https on loopback: WebFinger, signed fetches by the
 * instance actor, and signed deliveries to inboxes.
 */
import assert from "node:assert/strict";
import { signRequest, verifyRequest } from "@fedify/fedify";
import { Follow, Person } from "@fedify/vocab";
import { INSTANCE_ACTOR } from "../../federation/dispatchers/instance_actor.ts";
import { getKeyPairs, INSTANCE_KEY_OWNER } from "../../federation/dispatchers/keys.ts";
import { instanceContext, lookupRemote } from "../../federation/fetch/lookup.ts";
import { startInstance, test, type TestInstance } from "../harness.ts";
import { createAccount } from "./helpers.ts";

interface SeenRequest {
  method: string;
  url: string;
  headers: Headers;
}

async function startPair() {
  const seenByA: SeenRequest[] = [];
  const a = await startInstance({
    tls: true,
    onRequest: (req) =>
      seenByA.push({ method: req.method, url: req.url, headers: new Headers(req.headers) }),
  });
  const b = await startInstance({ tls: true });
  return { a, b, seenByA };
}

async function closeAll(...instances: TestInstance[]) {
  for (const instance of instances) await instance.close({ destroy: true });
}

/** An activity POSTed to `inbox`, signed (or not) with B's instance actor key. */
async function postActivity(
  b: TestInstance,
  inbox: string,
  activity: Record<string, unknown>,
  sign: boolean,
): Promise<Response> {
  const request = new Request(inbox, {
    method: "POST",
    headers: { "Content-Type": "application/activity+json", Accept: "application/activity+json" },
    body: JSON.stringify({ "@context": "https://www.w3.org/ns/activitystreams", ...activity }),
  });
  if (!sign) return await fetch(request);
  const [rsa] = await getKeyPairs(b.rookery.ctx, INSTANCE_KEY_OWNER);
  const signed = await signRequest(request, rsa.privateKey, new URL(`${b.origin}/actor#main-key`));
  return await fetch(signed);
}

test("B looks up acct:alice@A over WebFinger with a signed fetch that A can verify", async () => {
  const { a, b, seenByA } = await startPair();
  try {
    await createAccount(a, "alice", { displayName: "Alice" });
    const ctxB = instanceContext(b.rookery.ctx);
    const alice = await lookupRemote(ctxB, `acct:alice@${a.domain}`);
    assert.ok(alice instanceof Person, `got ${alice?.constructor.name}`);
    assert.equal(alice.id?.href, `${a.origin}/users/alice`);
    assert.equal(alice.preferredUsername, "alice");
    assert.equal(alice.name, "Alice");
    const key = await alice.getPublicKey();
    assert.equal(key?.id?.href, `${a.origin}/users/alice#main-key`);
    assert.equal(key?.ownerId?.href, `${a.origin}/users/alice`);

    const wf = seenByA.find((r) => new URL(r.url).pathname === "/.well-known/webfinger");
    assert.ok(wf, "WebFinger went to A");
    const get = seenByA.find((r) =>
      r.method === "GET" && new URL(r.url).pathname === "/users/alice"
    );
    assert.ok(get, "A received the actor fetch");
    const signature = get.headers.get("Signature");
    assert.ok(signature, "the actor fetch was signed");
    assert.match(signature, new RegExp(`keyId="${b.origin}/actor#main-key"`));

    // A can verify that signature: it resolves to B's instance actor key.
    const ctxA = instanceContext(a.rookery.ctx);
    const verifiedKey = await verifyRequest(
      new Request(get.url, { method: "GET", headers: get.headers }),
      { documentLoader: ctxA.documentLoader, contextLoader: ctxA.contextLoader },
    );
    assert.equal(verifiedKey?.id?.href, `${b.origin}/actor#main-key`);
    assert.equal(verifiedKey?.ownerId?.href, `${b.origin}/actor`);

    // Unknown handles and garbage resolve to null, never throw.
    assert.equal(await lookupRemote(ctxB, `acct:nobody@${a.domain}`), null);
    assert.equal(await lookupRemote(ctxB, "not a handle at all"), null);
  } finally {
    await closeAll(a, b);
  }
});

test("A's inboxes accept B's signed activities and refuse unsigned or mis-signed ones", async () => {
  const { a, b, seenByA } = await startPair();
  try {
    await createAccount(a, "alice");
    await createAccount(b, "bob");
    const ctxB = instanceContext(b.rookery.ctx);
    const aliceId = `${a.origin}/users/alice`;
    const bActor = `${b.origin}/actor`;

    // Fedify's own delivery from B's instance actor to A's shared inbox.
    const alice = await lookupRemote(ctxB, aliceId);
    assert.ok(alice instanceof Person);
    await ctxB.sendActivity(
      { identifier: INSTANCE_ACTOR },
      alice,
      new Follow({
        id: new URL(`${b.origin}/#follow/1`),
        actor: new URL(bActor),
        object: alice.id,
      }),
      { immediate: true, preferSharedInbox: true },
    );
    const post = seenByA.find((r) => r.method === "POST" && new URL(r.url).pathname === "/inbox");
    assert.ok(post?.headers.get("Signature"), "the delivery was signed");

    const follow = (n: number, actor = bActor) => ({
      id: `${b.origin}/#follow/${n}`,
      type: "Follow",
      actor,
      object: aliceId,
    });
    const shared = await postActivity(b, `${a.origin}/inbox`, follow(2), true);
    await shared.body?.cancel();
    assert.equal(shared.status, 202);
    const personal = await postActivity(b, `${a.origin}/users/alice/inbox`, follow(3), true);
    await personal.body?.cancel();
    assert.equal(personal.status, 202);

    const unsigned = await postActivity(b, `${a.origin}/inbox`, follow(4), false);
    await unsigned.body?.cancel();
    assert.equal(unsigned.status, 401);
    const unsignedPersonal = await postActivity(
      b,
      `${a.origin}/users/alice/inbox`,
      follow(5),
      false,
    );
    await unsignedPersonal.body?.cancel();
    assert.equal(unsignedPersonal.status, 401);

    // Signed with B's instance key but claiming to be bob: the key's owner is not the actor.
    const forged = await postActivity(
      b,
      `${a.origin}/inbox`,
      follow(6, `${b.origin}/users/bob`),
      true,
    );
    await forged.body?.cancel();
    assert.equal(forged.status, 401);

    // An inbox of nobody is not found, signed or not.
    const nobody = await postActivity(b, `${a.origin}/users/nobody/inbox`, follow(7), true);
    await nobody.body?.cancel();
    assert.equal(nobody.status, 404);
  } finally {
    await closeAll(a, b);
  }
});
