import assert from "node:assert/strict";
import { json, startInstance, test } from "../harness.ts";
import { createAccount } from "./helpers.ts";

const PROFILE_PAGE = "http://webfinger.net/rel/profile-page";
const SUBSCRIBE = "http://ostatus.org/schema/1.0/subscribe";
const AVATAR = "http://webfinger.net/rel/avatar";

function webfinger(resource: string) {
  return `/.well-known/webfinger?resource=${encodeURIComponent(resource)}`;
}

test("WebFinger answers acct:, actor URL and profile URL with Mastodon's document", async () => {
  const a = await startInstance();
  try {
    const avatarKey = `accounts/avatars/1/${"a".repeat(32)}.png`;
    await createAccount(a, "alice", { avatarKey });
    const actor = `${a.origin}/users/alice`;
    const profile = `${a.origin}/@alice`;
    const acct = `acct:alice@${a.domain}`;

    const res = await a.request(webfinger(acct));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("Content-Type"), "application/jrd+json");
    const jrd = await json(res);
    assert.equal(jrd.subject, acct);
    assert.deepEqual(jrd.aliases, [profile, actor]);
    const rels = jrd.links.map((l: { rel: string }) => l.rel);
    assert.deepEqual(rels.toSorted(), ["self", PROFILE_PAGE, SUBSCRIBE, AVATAR].toSorted());
    const link = (rel: string) => jrd.links.find((l: { rel: string }) => l.rel === rel);
    assert.deepEqual(link("self"), { rel: "self", href: actor, type: "application/activity+json" });
    assert.deepEqual(link(PROFILE_PAGE), { rel: PROFILE_PAGE, href: profile, type: "text/html" });
    assert.deepEqual(link(SUBSCRIBE), {
      rel: SUBSCRIBE,
      template: `${a.origin}/authorize_interaction?uri={uri}`,
    });
    assert.deepEqual(link(AVATAR), {
      rel: AVATAR,
      href: `${a.origin}/system/${avatarKey}`,
      type: "image/png",
    });

    // Handles are case-insensitive; the subject keeps the asked spelling, links the real one.
    const upper = await json(await a.request(webfinger(`acct:ALICE@${a.domain}`)));
    assert.equal(upper.links.find((l: { rel: string }) => l.rel === "self").href, actor);

    for (const resource of [actor, profile]) {
      const r = await a.request(webfinger(resource));
      assert.equal(r.status, 200, resource);
      assert.equal(r.headers.get("Content-Type"), "application/jrd+json");
      const doc = await json(r);
      assert.equal(doc.subject, resource);
      // The acct: handle, plus whichever of actor/profile URL is not the subject.
      assert.ok(doc.aliases.includes(acct), JSON.stringify(doc.aliases));
      for (const url of [actor, profile].filter((u) => u !== resource)) {
        assert.ok(doc.aliases.includes(url), `${url} in ${JSON.stringify(doc.aliases)}`);
      }
      assert.equal(doc.links.find((l: { rel: string }) => l.rel === "self").href, actor);
    }
  } finally {
    await a.close({ destroy: true });
  }
});

test("WebFinger: no avatar link without an avatar; bots resolve too", async () => {
  const a = await startInstance();
  try {
    await createAccount(a, "robot", {}, { bot: true });
    const jrd = await json(await a.request(webfinger(`acct:robot@${a.domain}`)));
    assert.equal(jrd.links.some((l: { rel: string }) => l.rel === AVATAR), false);
    assert.equal(jrd.links[0].href, `${a.origin}/users/robot`);
  } finally {
    await a.close({ destroy: true });
  }
});

test("WebFinger resolves the instance actor as acct:domain@domain", async () => {
  const a = await startInstance();
  try {
    const res = await a.request(webfinger(`acct:${a.domain}@${a.domain}`));
    assert.equal(res.status, 200);
    const jrd = await json(res);
    assert.equal(jrd.subject, `acct:${a.domain}@${a.domain}`);
    const self = jrd.links.find((l: { rel: string }) => l.rel === "self");
    assert.deepEqual(self, {
      rel: "self",
      href: `${a.origin}/actor`,
      type: "application/activity+json",
    });
    const byUrl = await a.request(webfinger(`${a.origin}/actor`));
    assert.equal(byUrl.status, 200);
    assert.ok((await json(byUrl)).aliases.includes(`acct:${a.domain}@${a.domain}`));
  } finally {
    await a.close({ destroy: true });
  }
});

test("WebFinger: unknown, foreign, deleted and malformed resources are 4xx", async () => {
  const a = await startInstance();
  try {
    await createAccount(a, "gone", { deletedAt: new Date() });
    const cases: [string, number][] = [
      [webfinger(`acct:nobody@${a.domain}`), 404],
      [webfinger(`acct:alice@elsewhere.example`), 404],
      [webfinger(`${a.origin}/@nobody`), 404],
      [webfinger(`https://elsewhere.example/@alice`), 404],
      [webfinger(`acct:${"x".repeat(5000)}@${a.domain}`), 404],
      [webfinger(`acct:gone@${a.domain}`), 410],
      [webfinger("not a uri"), 400],
      ["/.well-known/webfinger", 400],
    ];
    for (const [path, status] of cases) {
      const res = await a.request(path);
      await res.body?.cancel();
      assert.equal(res.status, status, path.slice(0, 120));
    }
  } finally {
    await a.close({ destroy: true });
  }
});

test("host-meta points to WebFinger (XRD and JSON)", async () => {
  const a = await startInstance();
  try {
    const res = await a.request("/.well-known/host-meta");
    assert.equal(res.status, 200);
    assert.match(res.headers.get("Content-Type") ?? "", /^application\/xrd\+xml/);
    const xml = await res.text();
    assert.match(xml, /<XRD xmlns="http:\/\/docs\.oasis-open\.org\/ns\/xri\/xrd-1\.0">/);
    assert.ok(
      xml.includes(
        `<Link rel="lrdd" template="${a.origin}/.well-known/webfinger?resource={uri}"/>`,
      ),
      xml,
    );
    const jsonRes = await a.request("/.well-known/host-meta.json");
    assert.equal(jsonRes.status, 200);
    assert.deepEqual(await json(jsonRes), {
      links: [{ rel: "lrdd", template: `${a.origin}/.well-known/webfinger?resource={uri}` }],
    });
  } finally {
    await a.close({ destroy: true });
  }
});
