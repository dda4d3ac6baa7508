/**
 * Sign-up blocks by e-mail over HTTP: e-mail domain blocks (subdomains,
 * allow_with_approval, history), canonical e-mail blocks (dot and +tag
 * spellings, /test), the admin API's role × endpoint matrix for every access
 * block route, audit rows and hostile input. IP blocks: access_blocks_ip_test.ts.
 */
import assert from "node:assert/strict";
import { count } from "drizzle-orm";
import { ipBlocks } from "../../db/schema/mod.ts";
import { listAdminActions } from "../../actors/moderation/audit_log.ts";
import { canonicalEmail } from "../../actors/access_blocks/canonical_email.ts";
import { json, test } from "../harness.ts";
import { callJson } from "../fixtures/api.ts";
import { sha256Hex, startAccessBlocks, userByEmail } from "./access_blocks_fixture.ts";

test("access blocks: e-mail domains, canonical addresses, roles", async (t) => {
  const f = await startAccessBlocks();
  const { instance, db, extra, admin, owner, mod, plain, readOnlyAdmin, app, signUpFrom } = f;
  try {
    await t.step(
      "role matrix: manage_blocks (admin, owner); moderators and users 403",
      async () => {
        const routes: [string, string, Record<string, unknown>?][] = [
          ["GET", "/api/v1/admin/email_domain_blocks"],
          ["POST", "/api/v1/admin/email_domain_blocks", { domain: "matrix.example" }],
          ["GET", "/api/v1/admin/ip_blocks"],
          ["POST", "/api/v1/admin/ip_blocks", { ip: "10.9.9.9", severity: "sign_up_block" }],
          ["GET", "/api/v1/admin/canonical_email_blocks"],
          ["POST", "/api/v1/admin/canonical_email_blocks/test", { email: "a@b.example" }],
          ["POST", "/api/v1/admin/canonical_email_blocks", { email: "matrix@b.example" }],
        ];
        for (const [method, path, body] of routes) {
          for (const who of [mod, plain]) {
            const res = await callJson(instance, who, method, path, body);
            assert.equal(res.status, 403, `${who.username} ${method} ${path}`);
            assert.deepEqual(res.body, { error: "This action is not allowed" });
          }
          const anonymous = await callJson(instance, null, method, path, body);
          assert.equal(anonymous.status, 401, `anonymous ${method} ${path}`);
          const appOnly = await callJson(instance, app.token, method, path, body);
          assert.ok([401, 403].includes(appOnly.status), `app token ${method} ${path}`);
          if (method === "POST" && !path.endsWith("/test")) {
            const res = await callJson(instance, readOnlyAdmin, method, path, body);
            assert.equal(res.status, 403, `admin:read only ${method} ${path}`);
          }
          const res = await callJson(instance, admin, method, path, body);
          assert.equal(res.status, 200, `admin ${method} ${path}: ${JSON.stringify(res.body)}`);
        }
        // The owner holds every permission; their blocks are the same resources.
        const ownerList = await callJson(instance, owner, "GET", "/api/v1/admin/ip_blocks");
        assert.equal(ownerList.status, 200);
        assert.ok(ownerList.body.some((b: any) => b.ip === "10.9.9.9/32"));
        const byOwner = await callJson(
          instance,
          owner,
          "POST",
          "/api/v1/admin/email_domain_blocks",
          {
            domain: "owner.example",
          },
        );
        assert.equal(byOwner.status, 200);
        // Nothing a refused caller sent was written.
        const [{ n }] = await db.select({ n: count() }).from(ipBlocks);
        assert.equal(n, 1);
      },
    );

    await t.step("email domain blocks: the domain and its subdomains are refused", async () => {
      const created = await callJson(instance, admin, "POST", "/api/v1/admin/email_domain_blocks", {
        domain: "  Spam.EXAMPLE ",
      });
      assert.equal(created.status, 200);
      const block = created.body;
      assert.equal(block.domain, "spam.example");
      assert.equal(block.allow_with_approval, false);
      assert.ok(!Number.isNaN(Date.parse(block.created_at)));
      assert.equal(block.history.length, 7);
      assert.deepEqual(block.history[0].uses, "0");

      for (const email of ["eve@spam.example", "eve@Mail.Spam.Example"]) {
        const res = await signUpFrom("198.18.0.1", email);
        const body = await json(res);
        assert.equal(res.status, 422, JSON.stringify(body));
        assert.deepEqual(body.details.email, [{
          error: "ERR_BLOCKED",
          description: "uses a disallowed e-mail provider",
        }]);
        assert.match(body.error, /^Validation failed: Email uses a disallowed e-mail provider/);
        assert.equal(await userByEmail(instance, email), undefined, "nothing written");
      }
      const third = await signUpFrom("198.18.0.2", "eve2@spam.example");
      assert.equal(third.status, 422);
      await third.body?.cancel();
      // Only whole labels: notspam.example is another domain.
      const other = await signUpFrom("198.18.0.1", "eve@notspam.example");
      assert.equal(other.status, 200, JSON.stringify(await json(other)));
      assert.equal((await userByEmail(instance, "eve@notspam.example"))?.approved, true);

      // Three attempts today from two addresses.
      const shown = await callJson(
        instance,
        admin,
        "GET",
        `/api/v1/admin/email_domain_blocks/${block.id}`,
      );
      assert.equal(shown.status, 200);
      const today = Date.UTC(
        new Date().getUTCFullYear(),
        new Date().getUTCMonth(),
        new Date().getUTCDate(),
      );
      assert.deepEqual(shown.body.history[0], {
        day: String(today / 1000),
        accounts: "2",
        uses: "3",
      });
      assert.deepEqual(shown.body.history[1].uses, "0");

      const duplicate = await callJson(
        instance,
        admin,
        "POST",
        "/api/v1/admin/email_domain_blocks",
        {
          domain: "SPAM.example",
        },
      );
      assert.equal(duplicate.status, 422);
      assert.equal(duplicate.body.error, "Validation failed: Domain has already been taken");

      const list = await callJson(instance, admin, "GET", "/api/v1/admin/email_domain_blocks");
      assert.equal(list.status, 200);
      assert.deepEqual(
        list.body.map((b: any) => b.domain),
        ["spam.example", "owner.example", "matrix.example"],
      );
      const paged = await callJson(
        instance,
        admin,
        "GET",
        "/api/v1/admin/email_domain_blocks?limit=1",
      );
      assert.equal(paged.body.length, 1);
      assert.match(paged.headers.get("link") ?? "", /max_id=\d+>; rel="next"/);

      const removed = await callJson(
        instance,
        admin,
        "DELETE",
        `/api/v1/admin/email_domain_blocks/${block.id}`,
      );
      assert.equal(removed.status, 200);
      assert.deepEqual(removed.body, {});
      const gone = await callJson(
        instance,
        admin,
        "GET",
        `/api/v1/admin/email_domain_blocks/${block.id}`,
      );
      assert.equal(gone.status, 404);
      const again = await signUpFrom("198.18.0.1", "eve@spam.example");
      assert.equal(again.status, 200);
      await again.body?.cancel();

      const audit = await listAdminActions(db, { targetType: "EmailDomainBlock" });
      const mine = audit.filter((r) => r.targetId === block.id);
      assert.deepEqual(mine.map((r) => r.action).sort(), ["create", "destroy"]);
      assert.ok(
        mine.every((r) => r.accountId === admin.id && r.humanIdentifier === "spam.example"),
      );
    });

    await t.step(
      "email domain blocks: allow_with_approval leaves the account pending",
      async () => {
        const created = await callJson(
          instance,
          admin,
          "POST",
          "/api/v1/admin/email_domain_blocks",
          {
            domain: "slow.example",
            allow_with_approval: true,
          },
        );
        assert.equal(created.status, 200);
        assert.equal(created.body.allow_with_approval, true);
        const res = await signUpFrom("198.18.0.3", "sam@lists.slow.example");
        assert.equal(res.status, 200, JSON.stringify(await json(res.clone())));
        const token = (await json(res)).access_token;
        assert.equal((await userByEmail(instance, "sam@lists.slow.example"))?.approved, false);
        const me = await callJson(instance, token, "GET", "/api/v1/accounts/verify_credentials");
        assert.equal(me.status, 403);
        assert.deepEqual(me.body, { error: "Your login is currently pending approval" });
      },
    );

    await t.step("email domain blocks: hostile input", async () => {
      const path = "/api/v1/admin/email_domain_blocks";
      for (
        const domain of [
          "",
          "   ",
          "not a domain",
          "evil.example/path",
          "a@b.example",
          "-bad.example",
          "x".repeat(64) + ".example",
          ("a".repeat(60) + ".").repeat(5) + "example",
        ]
      ) {
        const res = await callJson(instance, admin, "POST", path, { domain });
        assert.equal(res.status, 422, `${JSON.stringify(domain)}: ${JSON.stringify(res.body)}`);
        assert.match(res.body.error, /^Validation failed: Domain/);
      }
      const list = await callJson(instance, admin, "POST", path, { domain: ["a.example"] });
      assert.equal(list.status, 422);
      const huge = await callJson(instance, admin, "POST", path, { domain: "a".repeat(100_000) });
      assert.equal(huge.status, 422);
      for (const id of ["nope", "99999999999999999999999", "1"]) {
        const res = await callJson(instance, admin, "GET", `${path}/${id}`);
        assert.equal(res.status, 404, id);
        const del = await callJson(instance, admin, "DELETE", `${path}/${id}`);
        assert.equal(del.status, 404, id);
      }
      // IDN domains are kept in their ASCII (punycode) form.
      const idn = await callJson(instance, admin, "POST", path, { domain: "bücher.example" });
      assert.equal(idn.status, 200);
      assert.equal(idn.body.domain, "xn--bcher-kva.example");
      const res = await signUpFrom("198.18.0.4", "leser@BÜCHER.example");
      assert.equal(res.status, 422);
      await res.body?.cancel();
    });

    await t.step("canonical email blocks: every spelling of the address is refused", async () => {
      assert.equal(canonicalEmail("Jane.Doe+Spam@Example.ORG"), "janedoe@example.org");
      const created = await callJson(
        instance,
        admin,
        "POST",
        "/api/v1/admin/canonical_email_blocks",
        { email: "Jane.Doe+Spam@Example.ORG" },
      );
      assert.equal(created.status, 200);
      const hash = await sha256Hex("janedoe@example.org");
      assert.deepEqual(created.body, { id: created.body.id, canonical_email_hash: hash });

      for (const email of ["janedoe@example.org", "j.a.n.e.d.o.e+new@example.org"]) {
        const res = await signUpFrom("198.18.0.5", email);
        const body = await json(res);
        assert.equal(res.status, 422, JSON.stringify(body));
        assert.deepEqual(body.details.email, [{
          error: "ERR_TAKEN",
          description: "has already been taken",
        }]);
      }
      // Dots and tags are folded in the local part only.
      const otherDomain = await signUpFrom("198.18.0.5", "janedoe@example.net");
      assert.equal(otherDomain.status, 200);
      await otherDomain.body?.cancel();

      const test1 = await callJson(
        instance,
        admin,
        "POST",
        "/api/v1/admin/canonical_email_blocks/test",
        { email: "JaneDoe+x@example.org" },
      );
      assert.equal(test1.status, 200);
      assert.deepEqual(test1.body, [created.body]);
      const test2 = await callJson(
        instance,
        admin,
        "POST",
        "/api/v1/admin/canonical_email_blocks/test",
        { email: "someone@example.org" },
      );
      assert.deepEqual(test2.body, []);
      const blank = await callJson(
        instance,
        admin,
        "POST",
        "/api/v1/admin/canonical_email_blocks/test",
        {},
      );
      assert.equal(blank.status, 422);

      const path = "/api/v1/admin/canonical_email_blocks";
      const byHash = await callJson(instance, admin, "POST", path, {
        canonical_email_hash: (await sha256Hex("bob@example.org")).toUpperCase(),
      });
      assert.equal(byHash.status, 200);
      assert.equal(byHash.body.canonical_email_hash, await sha256Hex("bob@example.org"));
      const bob = await signUpFrom("198.18.0.5", "b.o.b@example.org");
      assert.equal(bob.status, 422);
      await bob.body?.cancel();

      for (
        const body of [
          {},
          { canonical_email_hash: "abc" },
          { canonical_email_hash: "z".repeat(64) },
          { email: "no-at-sign" },
          { email: "jane.doe@example.org" },
          { canonical_email_hash: hash },
        ]
      ) {
        const res = await callJson(instance, admin, "POST", path, body);
        assert.equal(res.status, 422, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
      }
      const list = await callJson(instance, admin, "GET", path);
      // Newest first; the matrix's block comes last.
      assert.deepEqual(list.body.map((b: any) => b.id).slice(0, 2), [
        byHash.body.id,
        created.body.id,
      ]);
      assert.equal(list.body.length, 3);
      const shown = await callJson(instance, admin, "GET", `${path}/${created.body.id}`);
      assert.deepEqual(shown.body, created.body);
      const removed = await callJson(instance, admin, "DELETE", `${path}/${created.body.id}`);
      assert.deepEqual(removed.body, {});
      const after = await signUpFrom("198.18.0.5", "jane.doe@example.org");
      assert.equal(after.status, 200);
      await after.body?.cancel();
      const audit = await listAdminActions(db, {
        targetType: "CanonicalEmailBlock",
        targetId: created.body.id,
      });
      assert.deepEqual(audit.map((r) => r.action).sort(), ["create", "destroy"]);
      assert.equal(audit[0].humanIdentifier, hash);
    });
  } finally {
    for (const other of extra) await other.close();
    await instance.close({ destroy: true });
  }
});
