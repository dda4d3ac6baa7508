import assert from "node:assert/strict";
import { createLocalAccount } from "../../actors/accounts/accounts.ts";
import { createAccessToken, createApplication } from "../../actors/oauth/tokens.ts";
import { weekStart } from "../../api/middleware/auth.ts";
import { newId } from "../../db/ids.ts";
import { accounts, instanceRules, loginActivity, statuses, users } from "../../db/schema/mod.ts";
import { eq } from "drizzle-orm";
import { json, startInstance, test, type TestInstance } from "../harness.ts";

const ENV = {
  INSTANCE_TITLE: "Rookery Test",
  INSTANCE_DESCRIPTION: "A place for tests.",
  CONTACT_EMAIL: "admin@example.com",
  INSTANCE_LANGUAGES: "en,fr",
  REGISTRATIONS: "approval",
  INSTANCE_EXTENDED_DESCRIPTION: "Be nice.\n\nNo <spam>.",
  INSTANCE_THUMBNAIL_DESCRIPTION: "A rookery at dawn",
};

async function localUser(a: TestInstance, username: string, role = "user") {
  return await createLocalAccount(a.rookery.ctx.database.db, a.origin, {
    username,
    email: `${username}@example.com`,
    password: "correct horse battery",
    role: role as "user",
    allowReserved: true,
  });
}

async function tokenFor(a: TestInstance, userId: string): Promise<string> {
  const db = a.rookery.ctx.database.db;
  const { application } = await createApplication(db, {
    name: "test",
    redirectUris: ["urn:ietf:wg:oauth:2.0:oob"],
    scopes: ["read"],
  });
  return (await createAccessToken(db, { applicationId: application.id, userId, scopes: ["read"] }))
    .token;
}

async function remoteAccount(a: TestInstance, username: string, domain: string, extra = {}) {
  const [row] = await a.rookery.ctx.database.db.insert(accounts).values({
    id: newId(),
    username,
    domain,
    uri: `https://${domain}/users/${username}`,
    url: `https://${domain}/@${username}`,
    ...extra,
  }).returning();
  return row;
}

async function localStatus(a: TestInstance, accountId: string, deleted = false) {
  const id = newId();
  await a.rookery.ctx.database.db.insert(statuses).values({
    id,
    uri: `${a.origin}/users/x/statuses/${id}`,
    accountId,
    local: true,
    deletedAt: deleted ? new Date() : null,
  });
}

/** Populates an instance: 3 local users (owner, admin, user), 3 remote domains, statuses, rules. */
async function populate(a: TestInstance) {
  const alice = await localUser(a, "alice");
  const boss = await localUser(a, "boss", "owner");
  await localUser(a, "adm", "admin");
  const db = a.rookery.ctx.database.db;
  const r1 = await remoteAccount(a, "bob", "remote.example");
  await remoteAccount(a, "carl", "remote.example");
  await remoteAccount(a, "dana", "b.example");
  await remoteAccount(a, "eve", "A.example");
  await localStatus(a, alice.account.id);
  await localStatus(a, alice.account.id);
  await localStatus(a, boss.account.id, true);
  await db.insert(statuses).values({
    id: newId(),
    uri: "https://remote.example/s/1",
    accountId: r1.id,
  });
  await db.insert(instanceRules).values([
    { id: newId(), text: "Second rule", hint: "", position: 2 },
    { id: newId(), text: "First rule", hint: "Really.", position: 1 },
  ]);
  return { alice, boss };
}

test("instance v2: every 4.5 field, with real counts, rules and the owner as contact", async () => {
  const a = await startInstance({ env: ENV, worker: false });
  try {
    const { alice, boss } = await populate(a);
    // Alice uses the API with a token: she becomes active this month.
    const token = await tokenFor(a, alice.user.id);
    const seen = await a.request("/api/v1/instance/rules", {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(seen.status, 200);

    const res = await a.request("/api/v2/instance");
    assert.equal(res.status, 200);
    const body = await json(res);
    const origin = a.origin;
    const { contact, rules, ...rest } = body;
    assert.deepEqual(rest, {
      domain: a.domain,
      title: "Rookery Test",
      version: "4.7.6 (compatible; Rookery 0.1.0)",
      source_url: "https://github.com/rookery-social/rookery",
      description: "A place for tests.",
      usage: { users: { active_month: 1 } },
      thumbnail: { url: `${origin}/instance/thumbnail.png`, description: "A rookery at dawn" },
      icon: [36, 48, 72, 96, 144, 192, 256, 384, 512].map((s) => ({
        src: `${origin}/instance/icons/${s}.png`,
        size: `${s}x${s}`,
      })),
      languages: ["en", "fr"],
      configuration: {
        urls: {
          streaming: origin.replace(/^http/, "ws"),
          status: null,
          about: `${origin}/about`,
          privacy_policy: null,
          terms_of_service: null,
        },
        // The Web Push key (tests/push checks its shape and that it signs).
        vapid: { public_key: body.configuration.vapid.public_key },
        accounts: {
          max_display_name_length: 30,
          max_note_length: 500,
          max_avatar_description_length: 150,
          max_header_description_length: 150,
          max_featured_tags: 10,
          max_pinned_statuses: 5,
          max_profile_fields: 4,
          profile_field_name_limit: 255,
          profile_field_value_limit: 255,
        },
        statuses: {
          max_characters: 500,
          max_media_attachments: 4,
          characters_reserved_per_url: 23,
        },
        media_attachments: {
          supported_mime_types: body.configuration.media_attachments.supported_mime_types,
          description_limit: 10000,
          image_size_limit: 16 * 1024 * 1024,
          image_matrix_limit: 33177600,
          video_size_limit: 99 * 1024 * 1024,
          video_frame_rate_limit: 120,
          video_matrix_limit: 8294400,
        },
        polls: {
          max_options: 4,
          max_characters_per_option: 50,
          min_expiration: 300,
          max_expiration: 2629746,
        },
        translation: { enabled: false },
        timelines_access: {
          live_feeds: { local: "public", remote: "public" },
          hashtag_feeds: { local: "public", remote: "public" },
          trending_link_feeds: { local: "public", remote: "public" },
        },
        limited_federation: false,
      },
      registrations: {
        enabled: true,
        approval_required: true,
        message: null,
        min_age: null,
        reason_required: true,
        url: null,
      },
      api_versions: { mastodon: 11 },
      // No campaign: ANNUAL_REPORTS is off (tests/accounts/annual_report_state_test.ts).
      wrapstodon: null,
    });
    const mimes: string[] = body.configuration.media_attachments.supported_mime_types;
    for (
      const m of [
        "image/jpeg",
        "image/png",
        "image/gif",
        "image/webp",
        "image/avif",
        "video/webm",
        "video/mp4",
        "video/quicktime",
        "audio/mpeg",
        "audio/ogg",
        "audio/wav",
      ]
    ) assert.ok(mimes.includes(m), m);

    assert.equal(contact.email, "admin@example.com");
    assert.equal(contact.account.id, boss.account.id);
    assert.equal(contact.account.acct, "boss");
    assert.deepEqual(contact.account.roles, [{ id: "3", name: "Owner", color: "" }]);

    assert.deepEqual(rules.map((r: { text: string }) => r.text), ["First rule", "Second rule"]);
    assert.deepEqual(Object.keys(rules[0]).sort(), ["hint", "id", "text", "translations"]);
    assert.equal(rules[0].hint, "Really.");
    assert.deepEqual(rules[0].translations, {});
    assert.equal(typeof rules[0].id, "string");
  } finally {
    await a.close({ destroy: true });
  }
});

test("instance v1: the deprecated shape with real stats", async () => {
  const a = await startInstance({ env: { ...ENV, REGISTRATIONS: "closed" }, worker: false });
  try {
    const { boss } = await populate(a);
    const body = await json(await a.request("/api/v1/instance"));
    assert.equal(body.uri, a.domain);
    assert.equal(body.title, "Rookery Test");
    assert.equal(body.short_description, "A place for tests.");
    assert.equal(body.description, "A place for tests.");
    assert.equal(body.email, "admin@example.com");
    assert.equal(body.version, "4.7.6 (compatible; Rookery 0.1.0)");
    assert.deepEqual(body.urls, { streaming_api: a.origin.replace(/^http/, "ws") });
    // 3 local users; 2 live local statuses (one deleted, one remote); 3 domains (case folded).
    assert.deepEqual(body.stats, { user_count: 3, status_count: 2, domain_count: 3 });
    assert.equal(body.thumbnail, `${a.origin}/instance/thumbnail.png`);
    assert.deepEqual(body.languages, ["en", "fr"]);
    assert.equal(body.registrations, false);
    assert.equal(body.approval_required, false);
    assert.equal(body.invites_enabled, false);
    assert.deepEqual(body.configuration.accounts, { max_featured_tags: 10 });
    assert.equal(body.configuration.statuses.max_characters, 500);
    assert.equal(body.configuration.media_attachments.image_matrix_limit, 33177600);
    assert.equal(body.configuration.polls.max_options, 4);
    assert.equal(body.contact_account.id, boss.account.id);
    assert.equal(body.rules.length, 2);

    const v2 = await json(await a.request("/api/v2/instance"));
    assert.equal(v2.registrations.enabled, false);
    assert.equal(v2.registrations.approval_required, false);
    assert.equal(v2.registrations.reason_required, false);
    assert.equal(v2.usage.users.active_month, 0);
  } finally {
    await a.close({ destroy: true });
  }
});

test("instance: contact is the configured username, else owner, else admin, else null", async () => {
  const a = await startInstance({ env: { CONTACT_USERNAME: "alice" }, worker: false });
  try {
    const empty = await json(await a.request("/api/v2/instance"));
    assert.equal(empty.contact.account, null);
    assert.equal(empty.contact.email, "");
    assert.equal((await json(await a.request("/api/v1/instance"))).contact_account, null);

    const adm = await localUser(a, "adm", "admin");
    assert.equal(
      (await json(await a.request("/api/v2/instance"))).contact.account.id,
      adm.account.id,
    );
    const boss = await localUser(a, "boss", "owner");
    assert.equal(
      (await json(await a.request("/api/v2/instance"))).contact.account.id,
      boss.account.id,
    );
    const alice = await localUser(a, "alice");
    const body = await json(await a.request("/api/v2/instance"));
    assert.equal(body.contact.account.id, alice.account.id);
    assert.deepEqual(body.contact.account.roles, []);
  } finally {
    await a.close({ destroy: true });
  }
});

test("instance: peers, activity, rules, extended description and the rest", async () => {
  const a = await startInstance({ env: ENV, worker: false });
  try {
    const { alice } = await populate(a);
    assert.deepEqual(await json(await a.request("/api/v1/instance/peers")), [
      "a.example",
      "b.example",
      "remote.example",
    ]);

    // A login last week, recorded directly, and one this week through the API.
    const db = a.rookery.ctx.database.db;
    const thisWeek = weekStart(new Date());
    const lastWeek = new Date(thisWeek.getTime() - 7 * 86400_000);
    await db.insert(loginActivity).values({ userId: alice.user.id, week: lastWeek });
    const token = await tokenFor(a, alice.user.id);
    await a.request("/api/v1/instance/peers", { headers: { authorization: `Bearer ${token}` } });
    const [user] = await db.select().from(users).where(eq(users.id, alice.user.id));
    assert.ok(user.lastSignInAt, "last_sign_in_at is set");

    const activity = await json(await a.request("/api/v1/instance/activity"));
    assert.equal(activity.length, 12);
    assert.deepEqual(activity[0], {
      week: String(thisWeek.getTime() / 1000),
      statuses: "3",
      logins: "1",
      registrations: "3",
    });
    assert.deepEqual(activity[1], {
      week: String(lastWeek.getTime() / 1000),
      statuses: "0",
      logins: "1",
      registrations: "0",
    });
    for (let i = 1; i < 12; i++) {
      assert.equal(Number(activity[i - 1].week) - Number(activity[i].week), 7 * 86400);
      assert.equal(new Date(Number(activity[i].week) * 1000).getUTCDay(), 1, "weeks start Monday");
    }
    for (const week of activity) {
      for (const v of Object.values(week)) assert.equal(typeof v, "string");
    }

    const rules = await json(await a.request("/api/v1/instance/rules"));
    assert.deepEqual(rules.map((r: { text: string }) => r.text), ["First rule", "Second rule"]);

    assert.deepEqual(await json(await a.request("/api/v1/instance/extended_description")), {
      updated_at: null,
      content: "<p>Be nice.</p><p>No &lt;spam&gt;.</p>",
    });
    assert.deepEqual(await json(await a.request("/api/v1/instance/translation_languages")), {});
    // Mastodon's default (show_domain_blocks: disabled) is a 404; the list
    // itself is tested in tests/moderation/domain_blocks_test.ts.
    assert.equal((await a.request("/api/v1/instance/domain_blocks")).status, 404);

    const languages = await json(await a.request("/api/v1/instance/languages"));
    assert.ok(languages.length > 150);
    assert.deepEqual(languages.find((l: { code: string }) => l.code === "fr"), {
      code: "fr",
      name: "French",
    });

    for (const path of ["privacy_policy", "terms_of_service", "terms_of_service/2025-01-01"]) {
      const res = await a.request(`/api/v1/instance/${path}`);
      assert.equal(res.status, 404, path);
      assert.deepEqual(await json(res), { error: "Record not found" });
    }
  } finally {
    await a.close({ destroy: true });
  }
});

test("instance: an unset extended description is empty with a null updated_at", async () => {
  const a = await startInstance({ worker: false });
  try {
    assert.deepEqual(await json(await a.request("/api/v1/instance/extended_description")), {
      updated_at: null,
      content: "",
    });
    assert.deepEqual(await json(await a.request("/api/v1/instance/peers")), []);
    const activity = await json(await a.request("/api/v1/instance/activity"));
    assert.equal(activity.length, 12);
    assert.deepEqual(
      activity.map((w: Record<string, string>) => w.statuses + w.logins + w.registrations),
      Array(12).fill("000"),
    );
  } finally {
    await a.close({ destroy: true });
  }
});

test("CORS: headers on API and discovery responses, preflights answered 204", async () => {
  const a = await startInstance({ worker: false });
  try {
    const origin = { origin: "https://client.example" };
    for (const path of ["/api/v2/instance", "/.well-known/nodeinfo", "/api/v1/nope"]) {
      const res = await a.request(path, { headers: origin });
      await res.body?.cancel();
      assert.equal(res.headers.get("access-control-allow-origin"), "*", path);
      const exposed = res.headers.get("access-control-expose-headers") ?? "";
      for (const h of ["Link", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Idempotency-Key"]) {
        assert.ok(exposed.includes(h), `${path} exposes ${h}`);
      }
    }
    for (const path of ["/api/v2/instance", "/.well-known/nodeinfo", "/oauth/token"]) {
      const pre = await a.request(path, {
        method: "OPTIONS",
        headers: {
          ...origin,
          "access-control-request-method": "POST",
          "access-control-request-headers": "authorization, content-type",
        },
      });
      assert.equal(pre.status, 204, path);
      assert.equal(pre.headers.get("access-control-allow-origin"), "*");
      assert.match(pre.headers.get("access-control-allow-methods") ?? "", /POST/);
      assert.equal(
        pre.headers.get("access-control-allow-headers"),
        "authorization, content-type",
      );
    }
    const health = await a.request("/health", { headers: origin });
    await health.body?.cancel();
    assert.equal(health.headers.get("access-control-allow-origin"), null);
  } finally {
    await a.close({ destroy: true });
  }
});

test("health: OK while the database answers, 503 when it does not", async () => {
  const a = await startInstance({ worker: false });
  try {
    const ok = await a.request("/health");
    assert.equal(ok.status, 200);
    assert.match(ok.headers.get("content-type") ?? "", /^text\/plain/);
    assert.equal(await ok.text(), "OK");
    const database = a.rookery.ctx.database as { rows: unknown };
    const rows = database.rows;
    database.rows = () => Promise.reject(new Error("connection refused"));
    try {
      const down = await a.request("/health");
      assert.equal(down.status, 503);
      await down.body?.cancel();
    } finally {
      database.rows = rows;
    }
  } finally {
    await a.close({ destroy: true });
  }
});

test("placeholder images are real PNGs of the sizes the API announces", async () => {
  const a = await startInstance({ worker: false });
  try {
    const sizes: Record<string, [number, number]> = {
      "/avatars/original/missing.png": [400, 400],
      "/headers/original/missing.png": [1500, 500],
      "/instance/thumbnail.png": [1200, 630],
      "/instance/icons/192.png": [192, 192],
    };
    for (const [path, [w, h]] of Object.entries(sizes)) {
      const res = await a.request(path);
      assert.equal(res.status, 200, path);
      assert.equal(res.headers.get("content-type"), "image/png");
      const bytes = new Uint8Array(await res.arrayBuffer());
      assert.deepEqual([...bytes.slice(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10]);
      const view = new DataView(bytes.buffer);
      assert.deepEqual([view.getUint32(16), view.getUint32(20)], [w, h], path);
    }
    const missing = await a.request("/instance/icons/999.png");
    assert.equal(missing.status, 404);
    await missing.body?.cancel();
  } finally {
    await a.close({ destroy: true });
  }
});

test("account entity: local and remote accounts, roles, bots, moves and suspensions", async () => {
  const a = await startInstance({ worker: false });
  try {
    const { loadAccountEntities } = await import("../../api/entities/account.ts");
    const db = a.rookery.ctx.database.db;
    const admin = await localUser(a, "adm", "admin");
    const target = await remoteAccount(a, "new", "remote.example");
    const remote = await remoteAccount(a, "bot", "remote.example", {
      actorType: "Service",
      displayName: "Beep",
      note: "<p>hi</p>",
      locked: true,
      avatarRemoteUrl: "https://remote.example/a.png",
      fields: [{ name: "Site", value: "<a>x</a>", verified_at: "2025-01-01T00:00:00.000+00:00" }],
      followersCount: 5,
      followingCount: 6,
      statusesCount: 7,
      lastStatusAt: new Date("2025-03-04T15:16:17Z"),
      createdAt: new Date("2024-02-03T12:34:56Z"),
      movedToAccountId: target.id,
      memorial: true,
    });
    const gone = await remoteAccount(a, "gone", "remote.example", {
      displayName: "Gone",
      suspendedAt: new Date(),
    });
    const [local, bot, suspended] = await loadAccountEntities(db, a.rookery.ctx.mediaUrls, [
      admin.account.id,
      remote.id,
      gone.id,
      "12345",
    ]);
    assert.deepEqual(Object.keys(local).sort(), [
      "acct",
      "avatar",
      "avatar_description",
      "avatar_static",
      "bot",
      "created_at",
      "discoverable",
      "display_name",
      "emojis",
      "feature_approval",
      "fields",
      "followers_count",
      "following_count",
      "group",
      "header",
      "header_description",
      "header_static",
      "hide_collections",
      "id",
      "indexable",
      "last_status_at",
      "locked",
      "noindex",
      "note",
      "roles",
      "show_featured",
      "show_media",
      "show_media_replies",
      "statuses_count",
      "uri",
      "url",
      "username",
    ]);
    assert.equal(local.acct, "adm");
    assert.equal(local.url, `${a.origin}/@adm`);
    assert.equal(local.uri, `${a.origin}/users/adm`);
    assert.equal(local.avatar, `${a.origin}/avatars/original/missing.png`);
    assert.equal(local.header, `${a.origin}/headers/original/missing.png`);
    assert.equal(local.noindex, false);
    assert.match(local.created_at, /^\d{4}-\d{2}-\d{2}T00:00:00\.000Z$/);
    assert.deepEqual(local.roles, [{ id: "2", name: "Admin", color: "" }]);
    assert.equal(local.last_status_at, null);

    assert.equal(bot.acct, "bot@remote.example");
    assert.equal(bot.bot, true);
    assert.equal(bot.locked, true);
    assert.equal(bot.display_name, "Beep");
    assert.equal(bot.note, "<p>hi</p>");
    // The remote avatar is shown through the media proxy, never at the remote URL.
    const proxied = a.rookery.ctx.mediaUrls.proxy({ kind: "account", variant: "avatar" }, bot.id);
    assert.equal(bot.avatar, proxied);
    assert.equal(bot.avatar_static, proxied);
    assert.equal(bot.created_at, "2024-02-03T00:00:00.000Z");
    assert.equal(bot.last_status_at, "2025-03-04");
    assert.deepEqual([bot.followers_count, bot.following_count, bot.statuses_count], [5, 6, 7]);
    assert.deepEqual(bot.fields, [
      { name: "Site", value: "<a>x</a>", verified_at: "2025-01-01T00:00:00.000+00:00" },
    ]);
    assert.equal(bot.memorial, true);
    assert.equal(bot.moved?.acct, "new@remote.example");
    assert.equal("noindex" in bot, false);

    assert.equal(suspended.suspended, true);
    assert.equal(suspended.display_name, "");
    assert.deepEqual(suspended.fields, []);
  } finally {
    await a.close({ destroy: true });
  }
});
