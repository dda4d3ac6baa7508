/** verify_credentials, update_credentials (text and flags) and preferences. */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { createLocalAccount } from "../../actors/accounts/accounts.ts";
import { accounts, users } from "../../db/schema/mod.ts";
import { json, startInstance, test } from "../harness.ts";
import { appToken, authed, localUser, updateCredentials } from "./helpers.ts";

test("verify_credentials: CredentialAccount with source and role; scopes and token kinds", async () => {
  const instance = await startInstance();
  try {
    const { token, account } = await localUser(instance, "alice", ["profile"]);
    const res = await authed(instance, token, "/api/v1/accounts/verify_credentials");
    const me = await json(res);
    assert.equal(res.status, 200, JSON.stringify(me));
    assert.equal(me.id, account.id);
    assert.equal(me.username, "alice");
    assert.deepEqual(me.source, {
      privacy: "public",
      sensitive: false,
      language: "",
      note: "",
      fields: [],
      follow_requests_count: 0,
      hide_collections: false,
      discoverable: true,
      indexable: true,
      attribution_domains: [],
      quote_policy: "public",
    });
    assert.deepEqual(me.role, {
      id: "-99",
      name: "",
      permissions: "65536",
      color: "",
      highlighted: false,
      collection_limit: 10,
    });

    const { token: writeOnly } = await localUser(instance, "bob", ["write"]);
    const denied = await authed(instance, writeOnly, "/api/v1/accounts/verify_credentials");
    assert.equal(denied.status, 403);
    await denied.body?.cancel();
    const anonymous = await instance.request("/api/v1/accounts/verify_credentials");
    assert.equal(anonymous.status, 401);
    await anonymous.body?.cancel();

    // Pending follow requests are counted (a locked account, a request from bob).
    const db0 = instance.rookery.ctx.database.db;
    await db0.update(accounts).set({ locked: true }).where(eq(accounts.id, account.id));
    const follow = await authed(instance, writeOnly, `/api/v1/accounts/${account.id}/follow`, {
      method: "POST",
    });
    assert.equal(follow.status, 200);
    assert.equal((await json(follow)).requested, true);
    const locked = await json(await authed(instance, token, "/api/v1/accounts/verify_credentials"));
    assert.equal(locked.source.follow_requests_count, 1);
    assert.equal(locked.locked, true);

    // Staff see their role.
    const db = instance.rookery.ctx.database.db;
    await db.update(users).set({ role: "admin" }).where(eq(users.accountId, account.id));
    const admin = await json(await authed(instance, token, "/api/v1/accounts/verify_credentials"));
    assert.equal(admin.role.name, "Admin");
    assert.equal(admin.role.highlighted, true);
    assert.ok(Number(admin.role.permissions) & 65536);
  } finally {
    await instance.close({ destroy: true });
  }
});

test("update_credentials sets every text, flag and source parameter", async () => {
  const instance = await startInstance();
  try {
    const { token, account } = await localUser(instance, "carol");
    await localUser(instance, "dave");
    const res = await updateCredentials(instance, token, {
      display_name: "  Carol C.  ",
      note: "Hi @dave and @nobody!\nI like #birds: https://birds.example/\n\nBye",
      locked: "true",
      bot: "1",
      discoverable: "false",
      hide_collections: "true",
      indexable: "0",
      "attribution_domains[]": "https://News.Example",
      "fields_attributes[0][name]": "Site",
      "fields_attributes[0][value]": "https://carol.example",
      "fields_attributes[1][name]": "Pronouns",
      "fields_attributes[1][value]": "she/her",
      "fields_attributes[2][name]": "",
      "fields_attributes[2][value]": "",
      "source[privacy]": "unlisted",
      "source[sensitive]": "true",
      "source[language]": "de",
      "source[quote_policy]": "followers",
    });
    const me = await json(res);
    assert.equal(res.status, 200, JSON.stringify(me));
    assert.equal(me.display_name, "Carol C.");
    assert.equal(me.locked, true);
    assert.equal(me.bot, true);
    assert.equal(me.discoverable, false);
    assert.equal(me.hide_collections, true);
    assert.equal(me.indexable, false);
    assert.equal(
      me.note,
      `<p>Hi <span class="h-card" translate="no"><a href="${instance.origin}/@dave" ` +
        `class="u-url mention">@<span>dave</span></a></span> and @nobody!<br />I like ` +
        `<a href="${instance.origin}/tags/birds" class="mention hashtag" rel="tag">#<span>birds` +
        `</span></a>: <a href="https://birds.example/" target="_blank" rel="nofollow noopener" ` +
        `translate="no"><span class="invisible">https://</span><span class="">birds.example/` +
        `</span><span class="invisible"></span></a></p><p>Bye</p>`,
    );
    assert.equal(me.fields.length, 2);
    assert.equal(me.fields[0].name, "Site");
    assert.match(
      me.fields[0].value,
      /^<a href="https:\/\/carol\.example" [^>]*rel="nofollow noopener me"/,
    );
    assert.deepEqual(me.fields[1], { name: "Pronouns", value: "she/her", verified_at: null });
    assert.deepEqual(me.source, {
      privacy: "unlisted",
      sensitive: true,
      language: "de",
      note: "Hi @dave and @nobody!\nI like #birds: https://birds.example/\n\nBye",
      fields: [
        { name: "Site", value: "https://carol.example", verified_at: null },
        { name: "Pronouns", value: "she/her", verified_at: null },
      ],
      follow_requests_count: 0,
      hide_collections: true,
      discoverable: false,
      indexable: false,
      attribution_domains: ["news.example"],
      quote_policy: "followers",
    });

    const [row] = await instance.rookery.ctx.database.db.select().from(accounts)
      .where(eq(accounts.id, account.id));
    assert.equal(row.actorType, "Service");
    assert.equal(row.note, me.note, "the HTML is stored for federation");

    // verify_credentials shows the same; an empty update changes nothing.
    const again = await json(await authed(instance, token, "/api/v1/accounts/verify_credentials"));
    assert.deepEqual(again, me);
    const noop = await json(await updateCredentials(instance, token, {}));
    assert.deepEqual(noop, me);

    // Preferences follow the source settings.
    const prefs = await json(await authed(instance, token, "/api/v1/preferences"));
    assert.deepEqual(prefs, {
      "posting:default:visibility": "unlisted",
      "posting:default:sensitive": true,
      "posting:default:language": "de",
      "posting:default:quote_policy": "followers",
      "reading:expand:media": "default",
      "reading:expand:spoilers": false,
    });

    // JSON bodies and fields as an array work too; clearing with empty values.
    const cleared = await json(
      await authed(instance, token, "/api/v1/accounts/update_credentials", {
        method: "PATCH",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          note: "",
          display_name: "",
          bot: false,
          fields_attributes: [{ name: "Only", value: "one" }],
          attribution_domains: [],
        }),
      }),
    );
    assert.equal(cleared.note, "");
    assert.equal(cleared.display_name, "");
    assert.equal(cleared.bot, false);
    assert.deepEqual(cleared.fields.map((f: any) => f.name), ["Only"]);
    assert.deepEqual(cleared.source.attribution_domains, []);
  } finally {
    await instance.close({ destroy: true });
  }
});

test("invalid values answer 422 with details, and nothing changes", async () => {
  const instance = await startInstance();
  try {
    const { token } = await localUser(instance, "erin");
    const before = await json(await authed(instance, token, "/api/v1/accounts/verify_credentials"));
    const cases: [Record<string, string>, string, string][] = [
      [{ display_name: "x".repeat(31) }, "display_name", "ERR_TOO_LONG"],
      [{ note: "x".repeat(501) }, "note", "ERR_TOO_LONG"],
      [{ "source[privacy]": "direct" }, "source[privacy]", "ERR_INCLUSION"],
      [{ "source[quote_policy]": "everyone" }, "source[quote_policy]", "ERR_INCLUSION"],
      [{ "source[language]": "klingon" }, "source[language]", "ERR_INCLUSION"],
      [{ "attribution_domains[]": "not a domain" }, "attribution_domains", "ERR_INVALID"],
      [
        Object.fromEntries(
          Array.from({ length: 5 }, (_, i) => [`fields_attributes[${i}][name]`, `f${i}`]),
        ),
        "fields",
        "ERR_TOO_LONG",
      ],
      [
        { "fields_attributes[0][name]": "n".repeat(256), "fields_attributes[0][value]": "v" },
        "fields",
        "ERR_TOO_LONG",
      ],
      [
        { "fields_attributes[0][name]": "n", "fields_attributes[0][value]": "v".repeat(256) },
        "fields",
        "ERR_TOO_LONG",
      ],
      [
        { "fields_attributes[0][name]": "", "fields_attributes[0][value]": "orphan" },
        "fields",
        "ERR_FIELDS_WITH_VALUES_MISSING_LABELS",
      ],
    ];
    for (const [change, field, code] of cases) {
      // A valid change rides along: it must not be applied either.
      const res = await updateCredentials(instance, token, { display_name: "Changed", ...change });
      const body = await json(res);
      assert.equal(res.status, 422, `${JSON.stringify(change)}: ${JSON.stringify(body)}`);
      assert.match(body.error, /^Validation failed: /);
      assert.deepEqual(body.details[field].map((e: any) => e.error), [code]);
    }
    const tooMany = new URLSearchParams();
    for (let i = 0; i < 11; i++) tooMany.append("attribution_domains[]", `site${i}.example`);
    const many = await authed(instance, token, "/api/v1/accounts/update_credentials", {
      method: "PATCH",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: tooMany.toString(),
    });
    const manyBody = await json(many);
    assert.equal(many.status, 422);
    assert.equal(manyBody.details.attribution_domains[0].error, "ERR_TOO_LONG");
    // Ten are fine, and four fields are fine.
    const ten = new URLSearchParams(tooMany);
    ten.delete("attribution_domains[]");
    for (let i = 0; i < 10; i++) ten.append("attribution_domains[]", `site${i}.example`);
    const tenRes = await authed(instance, token, "/api/v1/accounts/update_credentials", {
      method: "PATCH",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: ten.toString(),
    });
    assert.equal(tenRes.status, 200);
    assert.equal((await json(tenRes)).source.attribution_domains.length, 10);

    // Wrong shapes are 422 too, never 500.
    const shape = await updateCredentials(instance, token, { "display_name[x]": "y" });
    assert.equal(shape.status, 422);
    await shape.body?.cancel();

    const after = await json(await authed(instance, token, "/api/v1/accounts/verify_credentials"));
    assert.equal(after.display_name, before.display_name);
    assert.deepEqual(after.fields, before.fields);
  } finally {
    await instance.close({ destroy: true });
  }
});

test("source falls back to the text of HTML set elsewhere; locked accounts default to private", async () => {
  const instance = await startInstance();
  try {
    const { token, account } = await localUser(instance, "frank");
    const db = instance.rookery.ctx.database.db;
    await db.update(accounts).set({
      note: "<p>Old &amp; gold<br />bio</p>",
      fields: [{
        name: "Web",
        value: '<a href="https://f.example">f.example</a>',
        verified_at: null,
      }],
      locked: true,
    }).where(eq(accounts.id, account.id));
    const me = await json(await authed(instance, token, "/api/v1/accounts/verify_credentials"));
    assert.equal(me.source.note, "Old & gold\nbio");
    assert.deepEqual(me.source.fields, [{ name: "Web", value: "f.example", verified_at: null }]);
    assert.equal(me.source.privacy, "private");
    const prefs = await json(await authed(instance, token, "/api/v1/preferences"));
    assert.equal(prefs["posting:default:visibility"], "private");
    assert.equal(prefs["posting:default:language"], null);
  } finally {
    await instance.close({ destroy: true });
  }
});

test("user routes refuse app tokens and unusable logins", async () => {
  const instance = await startInstance();
  try {
    const db = instance.rookery.ctx.database.db;
    const { user } = await createLocalAccount(db, instance.origin, {
      username: "pending",
      email: "pending@example.com",
      password: "correct horse battery",
      confirmed: false,
    });
    const { createAccessToken } = await import("../../actors/oauth/tokens.ts");
    const { token } = await createAccessToken(db, {
      applicationId: null,
      userId: user.id,
      scopes: ["read", "write"],
    });
    for (
      const [path, method] of [
        ["/api/v1/accounts/verify_credentials", "GET"],
        ["/api/v1/accounts/update_credentials", "PATCH"],
        ["/api/v1/preferences", "GET"],
        ["/api/v1/profile/avatar", "DELETE"],
      ]
    ) {
      const res = await authed(instance, token, path, { method });
      assert.equal(res.status, 403, path);
      assert.deepEqual(await json(res), {
        error: "Your login is missing a confirmed e-mail address",
      });
    }
    const { token: app } = await appToken(instance, "read write", "read write");
    const byApp = await authed(instance, app, "/api/v1/accounts/verify_credentials");
    assert.equal(byApp.status, 422);
    assert.deepEqual(await json(byApp), { error: "This method requires an authenticated user" });
  } finally {
    await instance.close({ destroy: true });
  }
});
