/**
 * One domain, many spellings: a user's domain block written in capitals, as
 * a fully qualified name with its trailing dot, or in Unicode is stored as
 * the one lower-case punycode name the accounts of that domain carry.
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { callJson } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";

test("host spellings: domain blocks are normalised", async () => {
  const instance = await startInstance();
  try {
    const alice = await createUser(instance, "alice");
    const spellings: [string, string][] = [
      ["EXAMPLE.com.", "example.com"],
      ["Example.COM/", "example.com"],
      ["bücher.example", "xn--bcher-kva.example"],
      ["sub.Evil.example.", "sub.evil.example"],
    ];
    for (const [written] of spellings) {
      const res = await callJson(instance, alice, "POST", "/api/v1/domain_blocks", {
        domain: written,
      });
      assert.equal(res.status, 200, written);
    }
    const list = await callJson(instance, alice, "GET", "/api/v1/domain_blocks");
    assert.deepEqual(
      [...list.body].sort(),
      [...new Set(spellings.map(([, stored]) => stored))].sort(),
    );
    for (const bad of ["example..com", "exa mple.com", "."]) {
      const res = await callJson(instance, alice, "POST", "/api/v1/domain_blocks", { domain: bad });
      assert.equal(res.status, 422, bad);
    }
  } finally {
    await instance.close({ destroy: true });
  }
});
