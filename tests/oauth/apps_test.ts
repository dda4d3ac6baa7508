/** POST /api/v1/apps: JSON and form bodies, redirect URIs, scopes, and what is refused. */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { hashSecret } from "../../actors/oauth/tokens.ts";
import { oauthApplications } from "../../db/schema/mod.ts";
import { json, startInstance, test, type TestInstance } from "../harness.ts";

function postJson(a: TestInstance, body: unknown): Promise<Response> {
  return a.request("/api/v1/apps", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

function postForm(a: TestInstance, fields: [string, string][]): Promise<Response> {
  return a.request("/api/v1/apps", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  });
}

async function expect422(res: Response, pattern: RegExp): Promise<void> {
  assert.equal(res.status, 422);
  const body = await json(res);
  assert.match(body.error, /^Validation failed: /);
  assert.match(body.error, pattern);
}

test("Apps: registration", async (t) => {
  const a = await startInstance({ worker: false });
  try {
    await t.step("JSON with several redirect URIs", async () => {
      const res = await postJson(a, {
        client_name: "Elk",
        redirect_uris: ["https://elk.zone/callback", "elk://callback"],
        scopes: "read write follow push",
        website: "https://elk.zone",
      });
      assert.equal(res.status, 200);
      const app = await json(res);
      assert.equal(typeof app.id, "string");
      assert.equal(app.name, "Elk");
      assert.equal(app.website, "https://elk.zone");
      assert.deepEqual(app.scopes, ["read", "write", "follow", "push"]);
      assert.deepEqual(app.redirect_uris, ["https://elk.zone/callback", "elk://callback"]);
      assert.equal(app.redirect_uri, "https://elk.zone/callback\nelk://callback");
      assert.equal(typeof app.client_id, "string");
      assert.ok(app.client_secret.length >= 40);
      assert.equal(app.client_secret_expires_at, 0);
      // Only the secret's hash is kept.
      const [row] = await a.rookery.ctx.database.db.select().from(oauthApplications)
        .where(eq(oauthApplications.id, app.id));
      assert.equal(row.clientSecretHash, await hashSecret(app.client_secret));
      assert.notEqual(row.clientSecretHash, app.client_secret);
    });

    await t.step("form, OOB, default scope, no website", async () => {
      const res = await postForm(a, [
        ["client_name", "Bot"],
        ["redirect_uris", "urn:ietf:wg:oauth:2.0:oob"],
      ]);
      assert.equal(res.status, 200);
      const app = await json(res);
      assert.deepEqual(app.scopes, ["read"]);
      assert.equal(app.website, null);
      assert.deepEqual(app.redirect_uris, ["urn:ietf:wg:oauth:2.0:oob"]);
      assert.equal(app.redirect_uri, "urn:ietf:wg:oauth:2.0:oob");
    });

    await t.step("form with redirect_uris[] and a newline-separated string", async () => {
      const list = await json(
        await postForm(a, [
          ["client_name", "Phanpy"],
          ["redirect_uris[]", "https://phanpy.social/"],
          ["redirect_uris[]", "com.example.app:/oauth"],
          ["scopes", "read:accounts write:statuses profile"],
        ]),
      );
      assert.deepEqual(list.redirect_uris, ["https://phanpy.social/", "com.example.app:/oauth"]);
      assert.deepEqual(list.scopes, ["read:accounts", "write:statuses", "profile"]);
      const joined = await json(
        await postForm(a, [
          ["client_name", "Two"],
          ["redirect_uris", "https://a.example/cb\nhttps://b.example/cb"],
        ]),
      );
      assert.deepEqual(joined.redirect_uris, ["https://a.example/cb", "https://b.example/cb"]);
    });

    await t.step("missing values", async () => {
      await expect422(
        await postJson(a, { redirect_uris: "https://a.example/cb" }),
        /Name can't be blank/,
      );
      await expect422(await postJson(a, { client_name: "x" }), /Redirect URI can't be blank/);
      await expect422(
        await postJson(a, { client_name: "   ", redirect_uris: "https://a.example/cb" }),
        /Name can't be blank/,
      );
      await expect422(await postForm(a, []), /Name can't be blank.*Redirect URI can't be blank/);
    });

    await t.step("malformed redirect URIs", async () => {
      const cases: [string, RegExp][] = [
        ["/callback", /Redirect URI must be an absolute URI/],
        ["client.example/callback", /Redirect URI must be an absolute URI/],
        ["https://a.example/cb#frag", /Redirect URI cannot contain a fragment/],
        ["javascript:alert(1)", /Redirect URI is forbidden/],
        ["data:text/html,hi", /Redirect URI is forbidden/],
        ["localhost:3000", /Redirect URI must specify a scheme/],
        ["https://", /Redirect URI must (be a valid|be an absolute)/],
      ];
      for (const [uri, pattern] of cases) {
        await expect422(await postJson(a, { client_name: "x", redirect_uris: uri }), pattern);
      }
      // One bad URI among good ones spoils the registration.
      await expect422(
        await postJson(a, { client_name: "x", redirect_uris: ["https://ok.example/", "nope"] }),
        /absolute URI/,
      );
    });

    await t.step("wrong shapes", async () => {
      await expect422(
        await postJson(a, { client_name: { a: 1 }, redirect_uris: "https://a.example/" }),
        /Client name is invalid/,
      );
      await expect422(
        await postJson(a, { client_name: "x", redirect_uris: [{ a: 1 }] }),
        /Redirect uris is invalid/,
      );
    });

    await t.step(
      "NUL bytes (PostgreSQL refuses them) are a 400 from the parser, not a 500",
      async () => {
        for (
          const body of [
            { client_name: "a\u0000b", redirect_uris: "https://a.example/" },
            { client_name: "x", redirect_uris: "https://a.example/\u0000" },
            {
              client_name: "x",
              redirect_uris: "https://a.example/",
              website: "https://a.example/\u0000",
            },
          ]
        ) {
          const res = await postJson(a, body);
          assert.equal(res.status, 400);
          assert.deepEqual(await json(res), { error: "Invalid parameters: null byte" });
        }
      },
    );
    await t.step("other control characters are refused, not stored", async () => {
      await expect422(
        await postJson(a, { client_name: "a\u0007b", redirect_uris: "https://a.example/" }),
        /Name is invalid/,
      );
    });

    await t.step("unknown scope", async () => {
      await expect422(
        await postJson(a, {
          client_name: "x",
          redirect_uris: "https://a.example/",
          scopes: "read bogus",
        }),
        /Scopes doesn't match configured on the server/,
      );
      await expect422(
        await postJson(a, {
          client_name: "x",
          redirect_uris: "https://a.example/",
          scopes: "admin",
        }),
        /Scopes/,
      );
    });

    await t.step("website must be an http(s) URL", async () => {
      await expect422(
        await postJson(a, {
          client_name: "x",
          redirect_uris: "https://a.example/",
          website: "javascript:alert(1)",
        }),
        /Website is invalid/,
      );
      await expect422(
        await postJson(a, {
          client_name: "x",
          redirect_uris: "https://a.example/",
          website: "nope",
        }),
        /Website is invalid/,
      );
    });

    await t.step("oversized values", async () => {
      await expect422(
        await postJson(a, { client_name: "x".repeat(61), redirect_uris: "https://a.example/" }),
        /too long \(maximum is 60 characters\)/,
      );
      assert.equal(
        (await postJson(a, { client_name: "é".repeat(60), redirect_uris: "https://a.example/" }))
          .status,
        200,
      );
      await expect422(
        await postJson(a, {
          client_name: "x",
          redirect_uris: `https://a.example/${"a".repeat(2000)}`,
        }),
        /Redirect URI is too long/,
      );
      await expect422(
        await postJson(a, {
          client_name: "x",
          redirect_uris: Array.from({ length: 11 }, (_, i) => `https://a.example/${i}`),
        }),
        /too many/,
      );
      await expect422(
        await postJson(a, {
          client_name: "x",
          redirect_uris: "https://a.example/",
          website: `https://a.example/${"w".repeat(2000)}`,
        }),
        /Website is too long/,
      );
      await expect422(
        await postJson(a, {
          client_name: "x",
          redirect_uris: Array.from({ length: 50 }, (_, i) => `https://a.example/${i}`).join(" "),
        }),
        /too many|too long/,
      );
    });

    await t.step("verify_credentials needs a token", async () => {
      const none = await a.request("/api/v1/apps/verify_credentials");
      assert.equal(none.status, 401);
      assert.deepEqual(await json(none), { error: "The access token is invalid" });
      assert.match(none.headers.get("www-authenticate")!, /^Bearer .*error="invalid_token"/);
      const bad = await a.request("/api/v1/apps/verify_credentials", {
        headers: { authorization: "Bearer nope" },
      });
      assert.equal(bad.status, 401);
    });
  } finally {
    await a.close({ destroy: true });
  }
});
