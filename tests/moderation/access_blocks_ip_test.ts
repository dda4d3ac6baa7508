/**
 * IP blocks over HTTP: CIDR and IPv6 networks, the three severities
 * (no_access on any request and on the sign-in form), expiry, updates,
 * paging, junk values on every access block route, and a second process
 * sharing the database. Client addresses come from X-Forwarded-For behind a
 * trusted proxy (TRUST_PROXY).
 */
import assert from "node:assert/strict";
import { count, eq } from "drizzle-orm";
import { ipBlocks } from "../../db/schema/mod.ts";
import { newId } from "../../db/ids.ts";
import { listAdminActions } from "../../actors/moderation/audit_log.ts";
import { json, POSTGRES_ONLY, startInstance, test } from "../harness.ts";
import { call, callJson } from "../fixtures/api.ts";
import { authorizePath, Browser, formFields, registerApp } from "../oauth/helpers.ts";
import {
  instanceStatus,
  startAccessBlocks,
  statusSoon,
  userByEmail,
} from "./access_blocks_fixture.ts";

test("access blocks: IP blocks", async (t) => {
  const f = await startAccessBlocks();
  const { instance, db, extra, admin, plain, counter, signUpFrom, from } = f;
  try {
    const ipPath = "/api/v1/admin/ip_blocks";

    await t.step("IP blocks: sign_up_block refuses sign-ups from the whole network", async () => {
      const created = await callJson(instance, admin, "POST", ipPath, {
        ip: "198.51.100.77/24",
        severity: "sign_up_block",
        comment: "spam wave",
      });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      assert.equal(created.body.ip, "198.51.100.0/24", "host bits cleared, prefix shown");
      assert.equal(created.body.severity, "sign_up_block");
      assert.equal(created.body.comment, "spam wave");
      assert.equal(created.body.expires_at, null);

      for (const ip of ["198.51.100.1", "198.51.100.254", "::ffff:198.51.100.8"]) {
        const res = await signUpFrom(ip, `blocked${counter.serial}@example.com`);
        assert.equal(res.status, 403, ip);
        assert.deepEqual(await json(res), { error: "This action is not allowed" });
      }
      const outside = await signUpFrom("198.51.101.1", "outside@example.com");
      assert.equal(outside.status, 200);
      await outside.body?.cancel();
      // The network may still read: only sign-ups are refused.
      const read = await call(instance, null, "GET", "/api/v1/instance", undefined, {
        ...from("198.51.100.1"),
      });
      assert.equal(read.status, 200);
      await read.body?.cancel();

      const v6 = await callJson(instance, admin, "POST", ipPath, {
        ip: "2001:DB8:0:0::1/32",
        severity: "sign_up_block",
      });
      assert.equal(v6.status, 200);
      assert.equal(v6.body.ip, "2001:db8::/32");
      const res6 = await signUpFrom("2001:db8:ffff::5", "six@example.com");
      assert.equal(res6.status, 403);
      await res6.body?.cancel();
      const ok6 = await signUpFrom("2001:db9::5", "six@example.com");
      assert.equal(ok6.status, 200);
      await ok6.body?.cancel();
    });

    await t.step("IP blocks: sign_up_requires_approval leaves the account pending", async () => {
      const created = await callJson(instance, admin, "POST", ipPath, {
        ip: "203.0.113.5",
        severity: "sign_up_requires_approval",
      });
      assert.equal(created.body.ip, "203.0.113.5/32");
      const res = await signUpFrom("203.0.113.5", "waiting@example.com");
      assert.equal(res.status, 200);
      await res.body?.cancel();
      assert.equal((await userByEmail(instance, "waiting@example.com"))?.approved, false);
      const neighbour = await signUpFrom("203.0.113.6", "neighbour@example.com");
      assert.equal(neighbour.status, 200);
      await neighbour.body?.cancel();
      assert.equal((await userByEmail(instance, "neighbour@example.com"))?.approved, true);
    });

    await t.step("IP blocks: no_access refuses every request, sign-in included", async () => {
      const created = await callJson(instance, admin, "POST", ipPath, {
        ip: "192.0.2.0/28",
        severity: "no_access",
      });
      assert.equal(created.status, 200);
      const blocked = from("192.0.2.9");
      const anon = await callJson(instance, null, "GET", "/api/v1/instance", undefined, blocked);
      assert.equal(anon.status, 403);
      assert.deepEqual(anon.body, { error: "This action is not allowed" });
      const signedIn = await callJson(
        instance,
        plain,
        "GET",
        "/api/v1/accounts/verify_credentials",
        undefined,
        blocked,
      );
      assert.equal(signedIn.status, 403, "a valid token does not help");
      const page = await instance.request("/about", { headers: blocked });
      assert.equal(page.status, 403);
      await page.body?.cancel();
      const outside = await callJson(
        instance,
        plain,
        "GET",
        "/api/v1/accounts/verify_credentials",
        undefined,
        from("192.0.2.16"),
      );
      assert.equal(outside.status, 200);

      // The sign-in form: the page and the POST with the right password.
      const oauthApp = await registerApp(instance);
      const authorize = authorizePath({
        client_id: oauthApp.client_id,
        redirect_uri: oauthApp.redirect_uris[0],
        response_type: "code",
        scope: "read",
      });
      const browser = new Browser(instance);
      const form = await browser.get(authorize);
      assert.equal(form.status, 200);
      const fields = formFields(await form.text(), "/auth/sign_in");
      const signIn = (ip: string) =>
        browser.request("/auth/sign_in", {
          method: "POST",
          headers: {
            "content-type": "application/x-www-form-urlencoded",
            "x-forwarded-for": ip,
          },
          body: new URLSearchParams({
            ...fields,
            login: "plain@example.com",
            password: "correct horse battery",
          }).toString(),
        });
      const refused = await signIn("192.0.2.3");
      assert.equal(refused.status, 403);
      await refused.body?.cancel();
      const blockedPage = await instance.request(authorize, { headers: blocked });
      assert.equal(blockedPage.status, 403);
      await blockedPage.body?.cancel();
      const allowed = await signIn("192.0.2.17");
      assert.equal(allowed.status, 303, "the same form from elsewhere signs in");
      await allowed.body?.cancel();

      // The machine itself is never locked out (Mastodon safelists localhost).
      const local = await callJson(instance, admin, "POST", ipPath, {
        ip: "127.0.0.0/8",
        severity: "no_access",
      });
      assert.equal(local.status, 200);
      const fromLoopback = await call(instance, null, "GET", "/api/v1/instance");
      assert.equal(fromLoopback.status, 200, "the TCP peer 127.0.0.1 still gets in");
      await fromLoopback.body?.cancel();
      const removedLocal = await callJson(instance, admin, "DELETE", `${ipPath}/${local.body.id}`);
      assert.equal(removedLocal.status, 200);

      // A changed severity applies at once.
      const updated = await callJson(instance, admin, "PUT", `${ipPath}/${created.body.id}`, {
        severity: "sign_up_block",
        comment: "downgraded",
      });
      assert.equal(updated.status, 200, JSON.stringify(updated.body));
      assert.equal(updated.body.ip, "192.0.2.0/28");
      assert.equal(updated.body.comment, "downgraded");
      const now = await callJson(instance, null, "GET", "/api/v1/instance", undefined, blocked);
      assert.equal(now.status, 200);

      const audit = await listAdminActions(db, {
        targetType: "IpBlock",
        targetId: created.body.id,
      });
      assert.deepEqual(audit.map((r) => r.action).sort(), ["create", "update"]);
      assert.ok(audit.every((r) => r.humanIdentifier === "192.0.2.0/28"));
    });

    await t.step("IP blocks: expired blocks are ignored and not listed", async () => {
      const created = await callJson(instance, admin, "POST", ipPath, {
        ip: "192.0.2.200",
        severity: "no_access",
        expires_in: 1,
      });
      assert.equal(created.status, 200);
      const expiresAt = Date.parse(created.body.expires_at);
      assert.ok(expiresAt > Date.now() - 100 && expiresAt <= Date.now() + 1_000);
      assert.equal(await instanceStatus(instance, "192.0.2.200"), 403);
      // Asked until it expires: refused up to its time (an answer that came
      // back before expires_at was judged before it), ignored after it.
      const early: number[] = [];
      const ask = async () => {
        const status = await instanceStatus(instance, "192.0.2.200");
        if (status !== 403 && Date.now() < expiresAt) early.push(status);
        return status;
      };
      assert.equal(
        await statusSoon(ask, 200),
        200,
        "expired: ignored without any change to the table",
      );
      assert.deepEqual(early, [], "refused until it expires");
      const list = await callJson(instance, admin, "GET", ipPath);
      assert.ok(!list.body.some((b: any) => b.id === created.body.id));
      const shown = await callJson(instance, admin, "GET", `${ipPath}/${created.body.id}`);
      assert.equal(shown.status, 404);
      // Its network is free again for a new block.
      const renewed = await callJson(instance, admin, "POST", ipPath, {
        ip: "192.0.2.200/32",
        severity: "sign_up_block",
      });
      assert.equal(renewed.status, 200, JSON.stringify(renewed.body));
    });

    await t.step("IP blocks: hostile input is refused and writes nothing", async () => {
      const [{ n: before }] = await db.select({ n: count() }).from(ipBlocks);
      const bad: Record<string, unknown>[] = [
        {},
        { severity: "no_access" },
        { ip: "300.1.1.1", severity: "no_access" },
        { ip: "10.0.0.0/33", severity: "no_access" },
        { ip: "2001:db8::/129", severity: "no_access" },
        { ip: "10.0.0.0/-1", severity: "no_access" },
        { ip: "10.0.0.0/8/8", severity: "no_access" },
        { ip: "garbage", severity: "no_access" },
        { ip: "1:2:3:4:5:6:7:8:9", severity: "no_access" },
        { ip: "10.0.0.1" },
        { ip: "10.0.0.1", severity: "everything" },
        { ip: ["10.0.0.1", "10.0.0.2"], severity: "no_access" },
        { ip: "10.0.0.1", severity: "no_access", comment: "x".repeat(1_001) },
        { ip: "10.0.0.1", severity: "no_access", expires_in: -5 },
        { ip: "10.0.0.1", severity: "no_access", expires_in: "soon" },
        { ip: "10.0.0.1", severity: "no_access", expires_in: 1e12 },
        { ip: "198.51.100.200/24", severity: "no_access" },
      ];
      for (const body of bad) {
        const res = await callJson(instance, admin, "POST", ipPath, body);
        assert.equal(res.status, 422, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
        assert.match(res.body.error, /^Validation failed: /);
      }
      const taken = await callJson(instance, admin, "POST", ipPath, {
        ip: "198.51.100.0/24",
        severity: "no_access",
      });
      assert.equal(taken.body.error, "Validation failed: Ip has already been taken");
      const [{ n: after }] = await db.select({ n: count() }).from(ipBlocks);
      assert.equal(after, before);
      const unknown = await callJson(instance, admin, "PUT", `${ipPath}/123`, {
        severity: "no_access",
      });
      assert.equal(unknown.status, 404);
      const badId = await callJson(instance, admin, "DELETE", `${ipPath}/x'or'1`);
      assert.equal(badId.status, 404);
      // An unparseable forwarded address matches no block (and is no error).
      const odd = await call(instance, null, "GET", "/api/v1/instance", undefined, {
        "x-forwarded-for": "not-an-ip, <script>",
      });
      assert.equal(odd.status, 200);
      await odd.body?.cancel();
    });

    await t.step("IP blocks: update moves, renews and clears the expiry", async () => {
      const created = await callJson(instance, admin, "POST", ipPath, {
        ip: "172.31.0.0/16",
        severity: "no_access",
        expires_in: 3600,
      });
      assert.equal(created.status, 200);
      assert.ok(created.body.expires_at);
      const cleared = await callJson(instance, admin, "PUT", `${ipPath}/${created.body.id}`, {
        expires_in: "",
      });
      assert.equal(cleared.status, 200, JSON.stringify(cleared.body));
      assert.equal(cleared.body.expires_at, null);
      assert.equal(cleared.body.severity, "no_access", "what was not sent stays");
      const moved = await callJson(instance, admin, "PUT", `${ipPath}/${created.body.id}`, {
        ip: "fd00:1::/48",
      });
      assert.equal(moved.body.ip, "fd00:1::/48");
      const clash = await callJson(instance, admin, "PUT", `${ipPath}/${created.body.id}`, {
        ip: "198.51.100.9/24",
      });
      assert.equal(clash.status, 422);
      assert.equal(clash.body.error, "Validation failed: Ip has already been taken");
      const unchanged = await callJson(instance, admin, "GET", `${ipPath}/${created.body.id}`);
      assert.equal(unchanged.body.ip, "fd00:1::/48", "a refused update writes nothing");
      const del = await callJson(instance, admin, "DELETE", `${ipPath}/${created.body.id}`);
      assert.equal(del.status, 200);
    });

    await t.step("admin routes: junk values never give a 5xx", async () => {
      const junk: unknown[] = [
        null,
        true,
        0,
        -1,
        1e308,
        "",
        "\u0000",
        "a\u0000b",
        "💥".repeat(500),
        "x".repeat(20_000),
        ["a", "b"],
        { nested: { deeper: ["x"] } },
        "../../etc/passwd",
        "' OR 1=1 --",
      ];
      const routes: [string, string, string[]][] = [
        ["POST", "/api/v1/admin/email_domain_blocks", ["domain", "allow_with_approval"]],
        ["POST", ipPath, ["ip", "severity", "comment", "expires_in"]],
        ["PUT", `${ipPath}/{id}`, ["ip", "severity", "comment", "expires_in"]],
        ["POST", "/api/v1/admin/canonical_email_blocks", ["email", "canonical_email_hash"]],
        ["POST", "/api/v1/admin/canonical_email_blocks/test", ["email"]],
      ];
      const target = await callJson(instance, admin, "POST", ipPath, {
        ip: "10.200.0.0/16",
        severity: "sign_up_block",
      });
      for (const [method, template, fields] of routes) {
        const path = template.replace("{id}", target.body.id);
        for (const field of fields) {
          for (const value of junk) {
            const body: Record<string, unknown> = { ip: "10.201.0.1", severity: "sign_up_block" };
            body[field] = value;
            const res = await call(instance, admin, method, path, body);
            assert.ok(res.status < 500, `${method} ${path} ${field}=${JSON.stringify(value)}`);
            await res.body?.cancel();
            if (res.status === 200 && path === ipPath) {
              // A block that was accepted is removed again, so the next one can be made.
              await db.delete(ipBlocks).where(eq(ipBlocks.ip, "10.201.0.1"));
            }
          }
        }
      }
    });

    await t.step("IP blocks: a long list pages at 200 and still matches", async () => {
      const rows: (typeof ipBlocks.$inferInsert)[] = Array.from({ length: 500 }, (_, i) => ({
        id: newId(),
        ip: `100.64.${i >> 8}.${i & 255}/32`,
        severity: "sign_up_block",
      }));
      rows.push({ id: newId(), ip: "100.65.0.0/16", severity: "no_access" });
      await db.insert(ipBlocks).values(rows);
      const page = await callJson(instance, admin, "GET", `${ipPath}?limit=1000`);
      assert.equal(page.body.length, 200);
      assert.match(page.headers.get("link") ?? "", /rel="next"/);
      // On PostgreSQL the trigger's notification comes just after the commit.
      assert.equal(
        await statusSoon(() => instanceStatus(instance, "100.65.3.4"), 403),
        403,
        "a direct insert reaches the cache too (trigger)",
      );
      const signUpBlocked = await signUpFrom("100.64.1.200", "late@example.com");
      assert.equal(signUpBlocked.status, 403);
      await signUpBlocked.body?.cancel();
      const removed = await callJson(instance, admin, "DELETE", `${ipPath}/${rows.at(-1)!.id}`);
      assert.deepEqual(removed.body, {});
      const back = await call(instance, null, "GET", "/api/v1/instance", undefined, {
        ...from("100.65.3.4"),
      });
      assert.equal(back.status, 200);
      await back.body?.cancel();
    });

    await t.step({
      name: "IP blocks: another process sharing the database hears changes",
      ...POSTGRES_ONLY,
      fn: async () => {
        const second = await startInstance({
          env: { TRUST_PROXY: "true" },
          databaseUrl: instance.databaseUrl!,
          worker: false,
        });
        extra.push(second);
        const ask = () => instanceStatus(second, "233.252.0.9");
        assert.equal(await ask(), 200, "its copy is loaded before the block exists");
        const created = await callJson(instance, admin, "POST", ipPath, {
          ip: "233.252.0.0/24",
          severity: "no_access",
        });
        assert.equal(created.status, 200);
        const status = await statusSoon(ask, 403);
        assert.equal(status, 403);
      },
    });
  } finally {
    for (const other of extra) await other.close();
    await instance.close({ destroy: true });
  }
});
