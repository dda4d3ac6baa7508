/**
 * E-mail domain blocks meet a sign-up's MX hosts too (Mastodon's
 * EmailMxValidator): a block of a mail provider's host refuses addresses at
 * any domain it serves, `allow_with_approval` makes them wait, and DNS
 * trouble (an error, a resolver that never answers) lets the sign-up through
 * on the address's own domain alone. The resolver is injected
 * (`ctx.resolveMx`); this machine has no DNS.
 */
import assert from "node:assert/strict";
import { test } from "../harness.ts";
import { callJson } from "../fixtures/api.ts";
import { mxHostsOf } from "../../actors/access_blocks/email_mx.ts";
import { startAccessBlocks, userByEmail } from "./access_blocks_fixture.ts";

const MX: Record<string, string[]> = {
  "vanity.example": ["mx1.badmail.example.", "MX2.BadMail.Example"],
  "other-vanity.example": ["in.slowmail.example"],
  "fine.example": ["mx.goodmail.example"],
};

test("MX-based e-mail domain blocks", async (t) => {
  const f = await startAccessBlocks();
  const { instance, admin } = f;
  const asked: string[] = [];
  let mode: "answer" | "fail" | "hang" = "answer";
  instance.rookery.ctx.resolveMx = (domain, signal) => {
    asked.push(domain);
    if (mode === "fail") return Promise.reject(new Error("no DNS here"));
    if (mode === "hang") {
      return new Promise((_, reject) =>
        signal.addEventListener("abort", () => reject(signal.reason))
      );
    }
    return Promise.resolve(MX[domain] ?? []);
  };
  const block = async (domain: string, allowWithApproval = false) => {
    const res = await callJson(instance, admin, "POST", "/api/v1/admin/email_domain_blocks", {
      domain,
      allow_with_approval: allowWithApproval,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.id as string;
  };
  try {
    await t.step("a blocked MX host (or its parent) refuses the sign-up", async () => {
      // No block yet: DNS is not asked at all.
      const first = await f.signUpFrom("203.0.113.9", "first@vanity.example");
      assert.equal(first.status, 200, await first.text());
      assert.equal(asked.length, 0);
      const blockId = await block("badmail.example");
      const res = await f.signUpFrom("203.0.113.10", "someone@vanity.example");
      assert.equal(res.status, 422);
      const body = await res.json();
      assert.equal(body.details.email[0].error, "ERR_BLOCKED");
      assert.equal(await userByEmail(instance, "someone@vanity.example"), undefined);
      assert.ok(asked.includes("vanity.example"));
      // The attempt counts in the block's history.
      const shown = await callJson(
        instance,
        admin,
        "GET",
        `/api/v1/admin/email_domain_blocks/${blockId}`,
      );
      assert.equal(shown.body.history[0].uses, "1");
      // A domain whose mail goes elsewhere signs up.
      const ok = await f.signUpFrom("203.0.113.11", "someone@fine.example");
      assert.equal(ok.status, 200, await ok.text());
    });

    await t.step("allow_with_approval on an MX host: the account waits", async () => {
      await block("in.slowmail.example", true);
      const res = await f.signUpFrom("203.0.113.12", "me@other-vanity.example");
      assert.equal(res.status, 200, await res.text());
      const user = await userByEmail(instance, "me@other-vanity.example");
      assert.equal(user?.approved, false);
    });

    await t.step("DNS failing or hanging: fail open", async () => {
      mode = "fail";
      const failed = await f.signUpFrom("203.0.113.13", "a@vanity.example");
      assert.equal(failed.status, 200, await failed.text());
      mode = "hang";
      // The sign-up waits MX_TIMEOUT_MS (3 s) at most, then goes on.
      const hung = await f.signUpFrom("203.0.113.14", "z@vanity.example");
      assert.equal(hung.status, 200, await hung.text());
      const hosts = await mxHostsOf("b@vanity.example", instance.rookery.ctx.resolveMx, 50);
      assert.deepEqual(hosts, []);
      mode = "answer";
      assert.deepEqual(
        await mxHostsOf("c@Vanity.Example", instance.rookery.ctx.resolveMx),
        ["mx1.badmail.example", "mx2.badmail.example"],
      );
    });
  } finally {
    await instance.close({ destroy: true });
  }
});
