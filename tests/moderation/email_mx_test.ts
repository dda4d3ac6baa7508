/**
 * The e-mail domain check of sign-ups (Mastodon's EmailMxValidator): e-mail
 * domain blocks meet a sign-up's MX hosts too (a block of a mail provider's
 * host refuses addresses at any domain it serves, `allow_with_approval`
 * makes them wait); a domain without MX, A or AAAA records (or with a null
 * MX) is refused with ERR_UNREACHABLE; DNS trouble (an error, a resolver
 * that never answers) lets the sign-up through on the address's own domain
 * alone; EMAIL_DOMAIN_CHECK=false asks nothing. The resolver is injected
 * (`ctx.resolveEmailDns`); this machine has no DNS.
 */
import assert from "node:assert/strict";
import { test } from "../harness.ts";
import { callJson } from "../fixtures/api.ts";
import { type EmailDnsRecordType, lookUpEmailDomain } from "../../actors/access_blocks/email_mx.ts";
import { startAccessBlocks, userByEmail } from "./access_blocks_fixture.ts";

/** The fake zone: MX exchanges and addresses per name; absent names do not exist. */
const MX: Record<string, string[]> = {
  "vanity.example": ["mx1.badmail.example.", "MX2.BadMail.Example"],
  "other-vanity.example": ["in.slowmail.example"],
  "fine.example": ["mx.goodmail.example"],
  "nomail.example": ["."],
  "dangling.example": ["mx.gone.example"],
};
const ADDRESSES: Record<string, string[]> = {
  "mx1.badmail.example": ["192.0.2.10"],
  "in.slowmail.example": ["192.0.2.11"],
  "mx.goodmail.example": ["2001:db8::1"],
  "nomail.example": ["192.0.2.12"],
  "plain-a.example": ["192.0.2.13"],
};

test("the e-mail domain check of sign-ups: MX blocks and ERR_UNREACHABLE", async (t) => {
  const f = await startAccessBlocks();
  const { instance, admin } = f;
  const asked: string[] = [];
  let mode: "answer" | "fail" | "hang" = "answer";
  instance.rookery.ctx.resolveEmailDns = (name, type: EmailDnsRecordType, signal) => {
    asked.push(`${type} ${name}`);
    if (mode === "fail") return Promise.reject(new Error("no DNS here"));
    if (mode === "hang") {
      return new Promise((_, reject) =>
        signal.addEventListener("abort", () => reject(signal.reason))
      );
    }
    if (type === "MX") return Promise.resolve(MX[name] ?? []);
    const all = ADDRESSES[name] ?? [];
    return Promise.resolve(all.filter((a) => a.includes(":") === (type === "AAAA")));
  };
  const block = async (domain: string, allowWithApproval = false) => {
    const res = await callJson(instance, admin, "POST", "/api/v1/admin/email_domain_blocks", {
      domain,
      allow_with_approval: allowWithApproval,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.id as string;
  };
  const codes = async (res: Response) => {
    assert.equal(res.status, 422);
    const body = await res.json();
    return (body.details.email as { error: string }[]).map((e) => e.error);
  };
  try {
    await t.step("a blocked MX host (or its parent) refuses the sign-up", async () => {
      const first = await f.signUpFrom("203.0.113.9", "first@vanity.example");
      assert.equal(first.status, 200, await first.text());
      assert.ok(asked.includes("MX vanity.example"));
      const blockId = await block("badmail.example");
      const res = await f.signUpFrom("203.0.113.10", "someone@vanity.example");
      assert.deepEqual(await codes(res), ["ERR_BLOCKED"]);
      assert.equal(await userByEmail(instance, "someone@vanity.example"), undefined);
      // The attempt counts in the block's history.
      const shown = await callJson(
        instance,
        admin,
        "GET",
        `/api/v1/admin/email_domain_blocks/${blockId}`,
      );
      assert.equal(shown.body.history[0].uses, "1");
      // A domain whose mail goes elsewhere signs up (its MX host has only AAAA).
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

    await t.step("no MX, A or AAAA record (or a null MX): ERR_UNREACHABLE", async () => {
      for (const email of ["a@nowhere.example", "b@nomail.example", "c@dangling.example"]) {
        const res = await f.signUpFrom("203.0.113.20", email);
        assert.deepEqual(await codes(res), ["ERR_UNREACHABLE"], email);
        assert.equal(await userByEmail(instance, email), undefined, email);
      }
      const body = await (await f.signUpFrom("203.0.113.20", "d@nowhere.example")).json();
      assert.equal(body.details.email[0].description, "does not seem to exist");
      assert.equal(body.error, "Validation failed: Email does not seem to exist");
      // An A record on the domain itself is enough, without MX (RFC 5321's implicit MX).
      const ok = await f.signUpFrom("203.0.113.21", "e@plain-a.example");
      assert.equal(ok.status, 200, await ok.text());
      // A malformed address is refused by its shape, without asking DNS.
      asked.length = 0;
      assert.deepEqual(await codes(await f.signUpFrom("203.0.113.22", "f@nodot")), [
        "ERR_INVALID",
      ]);
      assert.deepEqual(asked, []);
    });

    await t.step("DNS failing or hanging: fail open", async () => {
      mode = "fail";
      const failed = await f.signUpFrom("203.0.113.13", "a@vanity.example");
      assert.equal(failed.status, 200, await failed.text());
      const unknown = await f.signUpFrom("203.0.113.13", "x@nowhere.example");
      assert.equal(unknown.status, 200, "an unanswered question refuses nothing");
      mode = "hang";
      // The sign-up waits EMAIL_DNS_TIMEOUT_MS (3 s) at most, then goes on.
      const hung = await f.signUpFrom("203.0.113.14", "z@vanity.example");
      assert.equal(hung.status, 200, await hung.text());
      assert.deepEqual(
        await lookUpEmailDomain("b@vanity.example", instance.rookery.ctx.resolveEmailDns, 50),
        { unreachable: false, mxHosts: [] },
      );
      mode = "answer";
      assert.deepEqual(
        await lookUpEmailDomain("c@Vanity.Example", instance.rookery.ctx.resolveEmailDns),
        { unreachable: false, mxHosts: ["mx1.badmail.example", "mx2.badmail.example"] },
      );
    });

    await t.step("a hostile zone: hundreds of MX hosts are cut to ten", async () => {
      const many = Array.from({ length: 300 }, (_, i) => `mx${i}.many.example`);
      let lookups = 0;
      const facts = await lookUpEmailDomain("a@many.example", (name, type) => {
        lookups++;
        return Promise.resolve(type === "MX" ? many : name === "mx9.many.example" ? ["1"] : []);
      });
      assert.equal(facts.unreachable, false);
      assert.equal(facts.mxHosts.length, 10);
      assert.equal(lookups, 1 + 11 * 2);
    });

    await t.step("EMAIL_DOMAIN_CHECK=false asks nothing and refuses nothing", async () => {
      const config = instance.rookery.ctx.config as { emailDomainCheck: boolean };
      config.emailDomainCheck = false;
      try {
        asked.length = 0;
        const res = await f.signUpFrom("203.0.113.30", "g@nowhere.example");
        assert.equal(res.status, 200, await res.text());
        assert.deepEqual(asked, []);
      } finally {
        config.emailDomainCheck = true;
      }
    });
  } finally {
    await instance.close({ destroy: true });
  }
});
