import assert from "node:assert/strict";
import { json, startInstance, test } from "../harness.ts";
import { AP_ACCEPT, createAccount, LD_ACCEPT } from "./helpers.ts";

const BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

test("/@alice is an HTML profile for browsers and the actor for ActivityPub", async () => {
  const a = await startInstance();
  try {
    await createAccount(a, "alice", {
      displayName: "Alice <script>alert(1)</script>",
      note: '<p>Hello <a href="https://ok.example">friends</a><script>alert(2)</script>' +
        '<img src=x onerror="alert(3)"></p>',
      fields: [{
        name: "<b>Site</b>",
        value: '<a href="javascript:alert(4)">x</a>',
        verified_at: null,
      }],
    });
    const actorId = `${a.origin}/users/alice`;
    const res = await a.request("/@alice", { headers: { Accept: BROWSER_ACCEPT } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get("Content-Type") ?? "", /^text\/html/);
    assert.equal(
      res.headers.get("Link"),
      `<${actorId}>; rel="alternate"; type="application/activity+json"`,
    );
    assert.match(res.headers.get("Vary") ?? "", /Accept/);
    const html = await res.text();
    assert.ok(
      html.includes(`<link rel="alternate" type="application/activity+json" href="${actorId}">`),
    );
    assert.ok(html.includes("Alice &lt;script&gt;alert(1)&lt;/script&gt;"));
    assert.ok(html.includes(`@alice@${a.domain}`));
    assert.ok(html.includes('<a href="https://ok.example"'), html);
    assert.ok(html.includes("&lt;b&gt;Site&lt;/b&gt;"));
    assert.ok(!/<script/i.test(html), "no script element");
    assert.ok(!/onerror|javascript:/i.test(html), "no handlers or javascript: links");

    for (const accept of [AP_ACCEPT, LD_ACCEPT]) {
      const ap = await a.request("/@alice", { headers: { Accept: accept } });
      assert.equal(ap.status, 200, accept);
      assert.equal(ap.headers.get("Content-Type"), "application/activity+json");
      const actor = await json(ap);
      assert.equal(actor.id, actorId);
      assert.equal(actor.type, "Person");
    }
    // Profile URLs are case-insensitive, the actor is the stored spelling.
    const upper = await a.request("/@ALICE", { headers: { Accept: AP_ACCEPT } });
    assert.equal((await json(upper)).id, actorId);
  } finally {
    await a.close({ destroy: true });
  }
});

test("/@unknown is 404 and a deleted profile 410, for browsers and fetchers", async () => {
  const a = await startInstance();
  try {
    await createAccount(a, "gone", { deletedAt: new Date() });
    const cases: [string, string, number][] = [
      ["/@nobody", BROWSER_ACCEPT, 404],
      ["/@nobody", AP_ACCEPT, 404],
      [`/@${"x".repeat(5000)}`, BROWSER_ACCEPT, 404],
      ["/@gone", BROWSER_ACCEPT, 410],
      ["/@gone", AP_ACCEPT, 410],
    ];
    for (const [path, accept, status] of cases) {
      const res = await a.request(path, { headers: { Accept: accept } });
      await res.body?.cancel();
      assert.equal(res.status, status, `${path.slice(0, 40)} ${accept}`);
    }
  } finally {
    await a.close({ destroy: true });
  }
});

test("/users/alice sends browsers to /@alice", async () => {
  const a = await startInstance();
  try {
    await createAccount(a, "alice");
    const res = await a.request("/users/alice", {
      headers: { Accept: BROWSER_ACCEPT },
      redirect: "manual",
    });
    assert.equal(res.status, 302);
    assert.equal(res.headers.get("Location"), `${a.origin}/@alice`);
    // An ActivityPub fetch of an unknown actor is a plain 404, not a redirect.
    const unknown = await a.request("/users/nobody", {
      headers: { Accept: AP_ACCEPT },
      redirect: "manual",
    });
    await unknown.body?.cancel();
    assert.equal(unknown.status, 404);
  } finally {
    await a.close({ destroy: true });
  }
});
