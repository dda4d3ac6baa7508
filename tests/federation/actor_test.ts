import assert from "node:assert/strict";
import { createPublicKey } from "node:crypto";
import { createTestDatabase, json, startInstance, test, TEST_DATABASE_URL } from "../harness.ts";
import { AP_ACCEPT, createAccount, LD_ACCEPT } from "./helpers.ts";

/** JSON-LD compaction turns one-element arrays into values; tests read both. */
function many<T>(value: T | T[] | undefined): T[] {
  return value == null ? [] : Array.isArray(value) ? value : [value];
}

test("the actor document of a local account, field by field", async () => {
  const a = await startInstance();
  try {
    const { account } = await createAccount(a, "alice", {
      displayName: "Alice <Liddell>",
      note: "<p>Down the rabbit hole</p>",
      fields: [
        { name: "Home", value: '<a href="https://wonder.example">wonder</a>', verified_at: null },
        { name: "Pronouns", value: "she/her", verified_at: null },
      ],
      avatarUrl: "https://cdn.example/alice.png",
      avatarDescription: "A white rabbit",
      headerUrl: "https://cdn.example/header.jpg",
      showMedia: false,
      locked: true,
      discoverable: false,
      indexable: false,
    });
    const res = await a.request("/users/alice", { headers: { Accept: AP_ACCEPT } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("Content-Type"), "application/activity+json");
    const actor = await json(res);
    const id = `${a.origin}/users/alice`;
    const contexts = many(actor["@context"]);
    assert.ok(contexts.includes("https://www.w3.org/ns/activitystreams"));
    assert.ok(contexts.includes("https://w3id.org/security/v1"));
    assert.equal(actor.type, "Person");
    assert.equal(actor.id, id);
    assert.equal(actor.preferredUsername, "alice");
    assert.equal(actor.name, "Alice <Liddell>");
    assert.equal(actor.summary, "<p>Down the rabbit hole</p>");
    assert.equal(actor.url, `${a.origin}/@alice`);
    const day = account.createdAt.toISOString().slice(0, 10);
    assert.equal(actor.published, `${day}T00:00:00Z`);
    assert.equal(actor.inbox, `${id}/inbox`);
    assert.equal(actor.outbox, `${id}/outbox`);
    assert.equal(actor.followers, `${id}/followers`);
    assert.equal(actor.following, `${id}/following`);
    assert.equal(actor.featured, `${id}/collections/featured`);
    assert.equal(actor.featuredTags, `${id}/collections/tags`);
    assert.deepEqual(actor.endpoints, { sharedInbox: `${a.origin}/inbox` });
    assert.equal(actor.manuallyApprovesFollowers, true);
    assert.equal(actor.discoverable, false);
    assert.equal(actor.indexable, false);
    assert.equal(actor.memorial, undefined);
    assert.deepEqual(actor.icon, {
      type: "Image",
      mediaType: "image/png",
      url: "https://cdn.example/alice.png",
      name: "A white rabbit",
    });
    assert.deepEqual(actor.image, {
      type: "Image",
      mediaType: "image/jpeg",
      url: "https://cdn.example/header.jpg",
    });
    // Mastodon 4.6/4.7's terms Fedify lacks, defined inline in the context.
    assert.equal(actor.webfinger, `acct:alice@${a.domain}`);
    assert.equal(actor.showFeatured, true);
    assert.equal(actor.showMedia, false);
    assert.equal(actor.showRepliesInMedia, true);
    const defined = Object.assign({}, ...contexts.filter((c) => typeof c === "object"));
    assert.equal(defined.showMedia, "toot:showMedia");
    assert.equal(
      defined.webfinger["@id"],
      "https://purl.archive.org/socialweb/webfinger#webfinger",
    );
    assert.deepEqual(many(actor.attachment), [
      {
        type: "PropertyValue",
        name: "Home",
        value: '<a href="https://wonder.example">wonder</a>',
      },
      { type: "PropertyValue", name: "Pronouns", value: "she/her" },
    ]);

    assert.equal(actor.publicKey.id, `${id}#main-key`);
    assert.equal(actor.publicKey.owner, id);
    const key = createPublicKey(actor.publicKey.publicKeyPem);
    assert.equal(key.asymmetricKeyType, "rsa");
    // Mastodon's size: a 4096-bit key took seconds to make on first use.
    assert.equal(key.asymmetricKeyDetails?.modulusLength, 2048);
    const multikeys = many(actor.assertionMethod);
    assert.equal(multikeys.length, 2);
    for (const [i, mk] of multikeys.entries()) {
      assert.equal(mk.type, "Multikey");
      assert.equal(mk.id, `${id}#multikey-${i + 1}`);
      assert.equal(mk.controller, id);
      assert.match(mk.publicKeyMultibase, /^z[1-9A-HJ-NP-Za-km-z]+$/);
    }
    // Ed25519 multikeys start with z6Mk (multicodec 0xed01).
    assert.ok(multikeys.some((mk) => mk.publicKeyMultibase.startsWith("z6Mk")));

    // ld+json with the ActivityStreams profile gets the same document.
    const ld = await a.request("/users/alice", { headers: { Accept: LD_ACCEPT } });
    assert.equal(ld.status, 200);
    assert.equal((await json(ld)).id, id);
  } finally {
    await a.close({ destroy: true });
  }
});

test("bots are Service actors; memorial accounts say so", async () => {
  const a = await startInstance();
  try {
    await createAccount(a, "robot", {}, { bot: true });
    await createAccount(a, "remembered", { memorial: true });
    const bot = await json(await a.request("/users/robot", { headers: { Accept: AP_ACCEPT } }));
    assert.equal(bot.type, "Service");
    assert.equal(bot.id, `${a.origin}/users/robot`);
    const mem = await json(
      await a.request("/users/remembered", { headers: { Accept: AP_ACCEPT } }),
    );
    assert.equal(mem.type, "Person");
    assert.equal(mem.memorial, true);
  } finally {
    await a.close({ destroy: true });
  }
});

test("deleted accounts are 410 Tombstones; unknown and odd identifiers 404", async () => {
  const a = await startInstance();
  try {
    await createAccount(a, "gone", { deletedAt: new Date("2026-01-02T03:04:05Z") });
    const res = await a.request("/users/gone", { headers: { Accept: AP_ACCEPT } });
    assert.equal(res.status, 410);
    const tomb = await json(res);
    assert.equal(tomb.type, "Tombstone");
    assert.equal(tomb.id, `${a.origin}/users/gone`);
    for (
      const path of [
        "/users/nobody",
        "/users/ALICE",
        `/users/${"a".repeat(10_000)}`,
        "/users/%00%ff",
        "/users/instance.actor",
        "/users/nobody/followers",
        "/users/nobody/outbox",
        "/users/gone/followers",
      ]
    ) {
      const r = await a.request(path, { headers: { Accept: AP_ACCEPT } });
      await r.body?.cancel();
      assert.equal(r.status, 404, path.slice(0, 80));
    }
  } finally {
    await a.close({ destroy: true });
  }
});

test("the instance actor is an Application at /actor named after the domain", async () => {
  const a = await startInstance();
  try {
    const res = await a.request("/actor", { headers: { Accept: AP_ACCEPT } });
    assert.equal(res.status, 200);
    const actor = await json(res);
    assert.equal(actor.type, "Application");
    assert.equal(actor.id, `${a.origin}/actor`);
    assert.equal(actor.preferredUsername, a.domain);
    assert.equal(actor.inbox, `${a.origin}/users/instance.actor/inbox`);
    assert.equal(actor.outbox, `${a.origin}/users/instance.actor/outbox`);
    assert.deepEqual(actor.endpoints, { sharedInbox: `${a.origin}/inbox` });
    assert.equal(actor.publicKey.id, `${a.origin}/actor#main-key`);
    assert.equal(actor.publicKey.owner, `${a.origin}/actor`);
    assert.equal(createPublicKey(actor.publicKey.publicKeyPem).asymmetricKeyType, "rsa");
    assert.equal(many(actor.assertionMethod).length, 2);
    const outbox = await json(
      await a.request(actor.outbox, { headers: { Accept: AP_ACCEPT } }),
    );
    assert.equal(outbox.totalItems, 0);
  } finally {
    await a.close({ destroy: true });
  }
});

test("key pairs survive a restart on the same data", async () => {
  // PostgreSQL: one database that outlives the first instance; PGlite: one data directory.
  const pg = TEST_DATABASE_URL ? await createTestDatabase() : null;
  const dataDir = await Deno.makeTempDir({ prefix: "rookery-keys-" });
  const options = pg ? { databaseUrl: pg.url } : { dataDir };
  const keysOf = async (instance: Awaited<ReturnType<typeof startInstance>>) => {
    const alice = await json(
      await instance.request("/users/alice", { headers: { Accept: AP_ACCEPT } }),
    );
    const actor = await json(await instance.request("/actor", { headers: { Accept: AP_ACCEPT } }));
    return {
      alice: [alice.publicKey.publicKeyPem, many(alice.assertionMethod)],
      instance: [actor.publicKey.publicKeyPem, many(actor.assertionMethod)],
    };
  };
  try {
    const first = await startInstance(options);
    let before;
    try {
      await createAccount(first, "alice");
      before = await keysOf(first);
    } finally {
      await first.close();
    }
    const second = await startInstance(options);
    try {
      const after = await keysOf(second);
      assert.deepEqual(after, before);
    } finally {
      await second.close();
    }
  } finally {
    await pg?.drop();
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
});
