/**
 * Instance domain blocks on one instance, the API side: the admin API (role
 * × endpoint matrix, the Admin::DomainBlock and Admin::DomainAllow entities,
 * validation, IDN, the existing-block conflict, paging, audit rows) and
 * GET /api/v1/instance/domain_blocks (audience settings, obfuscated domains
 * and digests). What blocks do: domain_blocks_enforcement_test.ts and
 * domain_blocks_federation_test.ts.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { count, eq, sql } from "drizzle-orm";
import { users } from "../../db/schema/mod.ts";
import { listAdminActions } from "../../actors/moderation/audit_log.ts";
import { startInstance, test, type TestInstance } from "../harness.ts";
import { callJson, links } from "../fixtures/api.ts";
import { createUser, type TestUser } from "../fixtures/users.ts";

const ADMIN_SCOPES = ["read", "write", "follow", "admin:read", "admin:write"];

async function staff(instance: TestInstance, name: string, role: string): Promise<TestUser> {
  const user = await createUser(instance, name, { scopes: ADMIN_SCOPES });
  await instance.rookery.ctx.database.db.update(users).set({ role })
    .where(eq(users.id, user.userId));
  return user;
}

/** Mastodon's public_domain, spelled out independently of the serializer. */
function obfuscated(domain: string): string {
  const keep = Math.floor(domain.length / 4);
  let out = "";
  for (let i = 0; i < domain.length; i++) {
    out += i > keep && i < domain.length - keep && domain[i] !== "." ? "*" : domain[i];
  }
  return out;
}

test("instance domain blocks: admin API and the public list", async (t) => {
  const instance = await startInstance();
  const { db } = instance.rookery.ctx.database;
  const config = instance.rookery.ctx.config as {
    -readonly [K in keyof typeof instance.rookery.ctx.config]: unknown;
  };
  try {
    const owner = await staff(instance, "theowner", "owner");
    const admin = await staff(instance, "boss", "admin");
    const mod = await staff(instance, "modder", "moderator");
    const user = await staff(instance, "plain", "user");
    const noScope = await createUser(instance, "noscope", { scopes: ["read", "write"] });
    await db.update(users).set({ role: "admin" }).where(eq(users.id, noScope.userId));

    await t.step(
      "role × endpoint: manage_federation (admin, owner), not moderators or users",
      async () => {
        const created = await callJson(instance, admin, "POST", "/api/v1/admin/domain_blocks", {
          domain: "matrix.example",
        });
        assert.equal(created.status, 200, JSON.stringify(created.body));
        const allow = await callJson(instance, admin, "POST", "/api/v1/admin/domain_allows", {
          domain: "allowed.example",
        });
        assert.equal(allow.status, 200);
        const blockId = created.body.id;
        const allowId = allow.body.id;
        const routes: [string, string, Record<string, unknown>?][] = [
          ["GET", "/api/v1/admin/domain_blocks"],
          ["GET", `/api/v1/admin/domain_blocks/${blockId}`],
          ["POST", "/api/v1/admin/domain_blocks", { domain: "other.example" }],
          ["PUT", `/api/v1/admin/domain_blocks/${blockId}`, { severity: "noop" }],
          ["DELETE", `/api/v1/admin/domain_blocks/${blockId}`],
          ["GET", "/api/v1/admin/domain_allows"],
          ["GET", `/api/v1/admin/domain_allows/${allowId}`],
          ["POST", "/api/v1/admin/domain_allows", { domain: "other.example" }],
          ["DELETE", `/api/v1/admin/domain_allows/${allowId}`],
        ];
        for (const [method, path, body] of routes) {
          for (const who of [mod, user]) {
            const res = await callJson(instance, who, method, path, body);
            assert.equal(res.status, 403, `${who.username} ${method} ${path}`);
            assert.deepEqual(res.body, { error: "This action is not allowed" });
          }
          const scopeless = await callJson(instance, noScope, method, path, body);
          assert.equal(scopeless.status, 403, `no admin scope: ${method} ${path}`);
          const anonymous = await callJson(instance, null, method, path, body);
          assert.equal(anonymous.status, 401, `anonymous: ${method} ${path}`);
        }
        // Nothing the refused calls asked for happened.
        const listed = await callJson(instance, owner, "GET", "/api/v1/admin/domain_blocks");
        assert.deepEqual(listed.body.map((b: { domain: string }) => b.domain), ["matrix.example"]);
        assert.equal(listed.body[0].severity, "silence");
        assert.equal(
          (await callJson(instance, admin, "GET", "/api/v1/admin/domain_allows")).body.length,
          1,
        );
        for (const [method, path, body] of routes) {
          const res = await callJson(instance, owner, method, path, body);
          assert.equal(res.status, 200, `owner ${method} ${path}: ${JSON.stringify(res.body)}`);
        }
        // What the owner created goes again (the steps below start empty).
        for (const kind of ["domain_blocks", "domain_allows"]) {
          for (
            const row of (await callJson(instance, owner, "GET", `/api/v1/admin/${kind}`)).body
          ) {
            await callJson(instance, owner, "DELETE", `/api/v1/admin/${kind}/${row.id}`);
          }
        }
      },
    );

    await t.step(
      "create, show, update, delete: the Admin::DomainBlock entity and audit rows",
      async () => {
        const res = await callJson(instance, admin, "POST", "/api/v1/admin/domain_blocks", {
          domain: "  Bad.Example. ",
          severity: "suspend",
          reject_media: "1",
          reject_reports: true,
          private_comment: "spam wave",
          public_comment: "Spam",
          obfuscate: "true",
        });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        const block = res.body;
        assert.deepEqual(Object.keys(block).sort(), [
          "created_at",
          "digest",
          "domain",
          "id",
          "obfuscate",
          "private_comment",
          "public_comment",
          "reject_media",
          "reject_reports",
          "severity",
        ]);
        assert.equal(block.domain, "bad.example");
        assert.equal(block.digest, createHash("sha256").update("bad.example").digest("hex"));
        assert.equal(block.severity, "suspend");
        assert.equal(block.reject_media, true);
        assert.equal(block.reject_reports, true);
        assert.equal(block.obfuscate, true);
        assert.equal(block.private_comment, "spam wave");
        const shown = await callJson(
          instance,
          admin,
          "GET",
          `/api/v1/admin/domain_blocks/${block.id}`,
        );
        assert.deepEqual(shown.body, block);
        const updated = await callJson(
          instance,
          admin,
          "PUT",
          `/api/v1/admin/domain_blocks/${block.id}`,
          {
            severity: "silence",
            public_comment: "",
            domain: "ignored.example",
          },
        );
        assert.equal(updated.status, 200);
        assert.equal(updated.body.severity, "silence");
        assert.equal(updated.body.domain, "bad.example");
        assert.equal(updated.body.public_comment, null);
        assert.equal(updated.body.reject_media, true, "unchanged fields stay");
        const removed = await callJson(
          instance,
          admin,
          "DELETE",
          `/api/v1/admin/domain_blocks/${block.id}`,
        );
        assert.deepEqual([removed.status, removed.body], [200, {}]);
        for (const method of ["GET", "PUT", "DELETE"]) {
          const gone = await callJson(
            instance,
            admin,
            method,
            `/api/v1/admin/domain_blocks/${block.id}`,
            method === "GET" ? undefined : {},
          );
          assert.equal(gone.status, 404, method);
        }
        assert.equal(
          (await callJson(instance, admin, "GET", "/api/v1/admin/domain_blocks/nope")).status,
          404,
        );
        const log = await listAdminActions(db, { targetType: "DomainBlock", targetId: block.id });
        assert.deepEqual(log.map((r) => [r.action, r.accountId, r.humanIdentifier]).toReversed(), [
          ["create", admin.id, "bad.example"],
          ["update", admin.id, "bad.example"],
          ["destroy", admin.id, "bad.example"],
        ]);
        const allowLog = (await listAdminActions(db, { targetType: "DomainAllow" }))
          .filter((r) => r.humanIdentifier === "allowed.example");
        assert.deepEqual(allowLog.map((r) => [r.action, r.humanIdentifier]).toReversed(), [
          ["create", "allowed.example"],
          ["destroy", "allowed.example"],
        ]);
      },
    );

    await t.step(
      "validation: 422 for bad domains, severities, long comments; IDN to punycode",
      async () => {
        const post = (body: Record<string, unknown>) =>
          callJson(instance, admin, "POST", "/api/v1/admin/domain_blocks", body);
        for (
          const domain of [
            "",
            "   ",
            "not a domain",
            "exa mple.com",
            "a..b",
            "-x.example",
            "x".repeat(300),
            "user@host.example",
            "host.example/path",
          ]
        ) {
          const res = await post({ domain });
          assert.equal(
            res.status,
            422,
            `domain ${JSON.stringify(domain)}: ${JSON.stringify(res.body)}`,
          );
          assert.match(res.body.error, /^Validation failed: Domain /);
        }
        const noDomain = await post({});
        assert.equal(noDomain.status, 422);
        const badSeverity = await post({ domain: "sev.example", severity: "obliterate" });
        assert.equal(badSeverity.status, 422);
        assert.match(badSeverity.body.error, /Severity/);
        const longComment = await post({
          domain: "long.example",
          public_comment: "x".repeat(5001),
        });
        assert.equal(longComment.status, 422);
        const weird = await post({ domain: ["a.example"], severity: { x: 1 } });
        assert.ok(weird.status === 422 || weird.status === 400, `garbage: ${weird.status}`);
        const [{ n }] = await db.select({ n: count() }).from(sql`domain_blocks`);
        assert.equal(Number(n), 0, "nothing written by refused requests");

        const idn = await post({ domain: "Bücher.Example" });
        assert.equal(idn.status, 200);
        assert.equal(idn.body.domain, "xn--bcher-kva.example");
      },
    );

    await t.step(
      "an existing block: 422 with it, unless the new one is stricter for a subdomain",
      async () => {
        const post = (body: Record<string, unknown>) =>
          callJson(instance, admin, "POST", "/api/v1/admin/domain_blocks", body);
        const same = await post({ domain: "XN--BCHER-kva.example", severity: "suspend" });
        assert.equal(same.status, 422);
        assert.equal(same.body.existing_domain_block.domain, "xn--bcher-kva.example");
        assert.match(same.body.error, /stricter limits on xn--bcher-kva\.example/);
        const parent = await post({ domain: "parent.example", severity: "suspend" });
        assert.equal(parent.status, 200);
        const weaker = await post({ domain: "sub.parent.example", severity: "silence" });
        assert.equal(weaker.status, 422);
        assert.equal(weaker.body.existing_domain_block.id, parent.body.id);
        const silenced = await post({ domain: "quiet.example" });
        const stricter = await post({ domain: "loud.quiet.example", severity: "suspend" });
        assert.equal(stricter.status, 200, JSON.stringify(stricter.body));
        const alsoMedia = await post({ domain: "pics.quiet.example", reject_media: true });
        assert.equal(alsoMedia.status, 200, "same severity, more rejected: stricter");
        for (const id of [parent.body.id, silenced.body.id, stricter.body.id, alsoMedia.body.id]) {
          assert.equal(
            (await callJson(instance, admin, "DELETE", `/api/v1/admin/domain_blocks/${id}`)).status,
            200,
          );
        }
      },
    );

    await t.step(
      "lists page by id with Link headers; allows answer the existing allow",
      async () => {
        const made: string[] = [];
        for (const name of ["p1", "p2", "p3"]) {
          const res = await callJson(instance, admin, "POST", "/api/v1/admin/domain_blocks", {
            domain: `${name}.example`,
            severity: "noop",
          });
          made.push(res.body.id);
        }
        const first = await callJson(instance, admin, "GET", "/api/v1/admin/domain_blocks?limit=2");
        assert.deepEqual(first.body.map((b: { domain: string }) => b.domain), [
          "p3.example",
          "p2.example",
        ]);
        const next = links(first.headers.get("link")).next;
        assert.ok(next);
        const second = await callJson(instance, admin, "GET", next.pathname + next.search);
        assert.deepEqual(second.body.map((b: { domain: string }) => b.domain), [
          "p1.example",
          "xn--bcher-kva.example",
        ]);
        const a1 = await callJson(instance, admin, "POST", "/api/v1/admin/domain_allows", {
          domain: "Friend.Example",
        });
        const a2 = await callJson(instance, admin, "POST", "/api/v1/admin/domain_allows", {
          domain: "friend.example",
        });
        assert.deepEqual(a2.body, a1.body);
        assert.deepEqual(Object.keys(a1.body).sort(), ["created_at", "domain", "id"]);
        assert.equal(
          (await callJson(instance, admin, "POST", "/api/v1/admin/domain_allows", {
            domain: "bad domain",
          })).status,
          422,
        );
        const shown = await callJson(
          instance,
          admin,
          "GET",
          `/api/v1/admin/domain_allows/${a1.body.id}`,
        );
        assert.equal(shown.body.domain, "friend.example");
        const creates = await listAdminActions(db, {
          targetType: "DomainAllow",
          targetId: a1.body.id,
        });
        assert.equal(creates.length, 1, "allowing again writes no second audit row");
        for (const id of made) {
          await callJson(instance, admin, "DELETE", `/api/v1/admin/domain_blocks/${id}`);
        }
      },
    );

    await t.step("GET /api/v1/instance/domain_blocks follows SHOW_DOMAIN_BLOCKS", async () => {
      assert.equal(
        (await callJson(instance, null, "GET", "/api/v1/instance/domain_blocks")).status,
        404,
        "disabled by default",
      );
      assert.equal(
        (await callJson(instance, user, "GET", "/api/v1/instance/domain_blocks")).status,
        404,
      );
      const block = async (body: Record<string, unknown>) =>
        (await callJson(instance, admin, "POST", "/api/v1/admin/domain_blocks", body)).body
          .id as string;
      const made = [
        await block({
          domain: "hidden-name.example",
          severity: "suspend",
          obfuscate: true,
          public_comment: "abuse",
        }),
        await block({ domain: "noop.example", severity: "noop", reject_media: true }),
      ];
      config.showDomainBlocks = "users";
      config.showDomainBlocksRationale = "disabled";
      assert.equal(
        (await callJson(instance, null, "GET", "/api/v1/instance/domain_blocks")).status,
        404,
      );
      const forUsers = await callJson(instance, user, "GET", "/api/v1/instance/domain_blocks");
      assert.equal(forUsers.status, 200);
      assert.deepEqual(forUsers.body, [
        {
          // 19 characters: the first 5 and the last 4 kept, and the dot.
          domain: "hidde******.***mple",
          digest: createHash("sha256").update("hidden-name.example").digest("hex"),
          severity: "suspend",
        },
        {
          domain: "xn--bcher-kva.example",
          digest: createHash("sha256").update("xn--bcher-kva.example").digest("hex"),
          severity: "silence",
        },
      ]);
      assert.equal(forUsers.body[0].domain, obfuscated("hidden-name.example"));
      config.showDomainBlocks = "all";
      config.showDomainBlocksRationale = "all";
      const forAll = await callJson(instance, null, "GET", "/api/v1/instance/domain_blocks");
      assert.equal(forAll.status, 200);
      assert.equal(forAll.body[0].comment, "abuse");
      assert.equal(forAll.body[1].comment, null);
      assert.equal(forAll.body.length, 2, "noop blocks are not listed");
      config.showDomainBlocks = "disabled";
      config.showDomainBlocksRationale = "disabled";
      for (const id of made) {
        await callJson(instance, admin, "DELETE", `/api/v1/admin/domain_blocks/${id}`);
      }
    });
  } finally {
    await instance.close({ destroy: true });
  }
});
