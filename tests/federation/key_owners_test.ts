/**
 * Local actors' keys as peers see them, with the per-process memo of which
 * account owns an identifier's keys (federation/dispatchers/key_owners.ts):
 * a rejected sign-up's row is deleted and its name may be taken again; the
 * new account's actor must then show the new account's key, not the memo's.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { accounts, keyPairs } from "../../db/schema/mod.ts";
import { json, startInstance, test } from "../harness.ts";
import { eventually } from "../fixtures/wait.ts";
import { createUser } from "../fixtures/users.ts";
import { AP_ACCEPT } from "./helpers.ts";

test("a name taken again after a rejected sign-up shows the new account's key", async () => {
  const a = await startInstance();
  try {
    const keyOf = async () => {
      const res = await a.request("/users/erin", { headers: { Accept: AP_ACCEPT } });
      assert.equal(res.status, 200);
      return (await json(res)).publicKey.publicKeyPem as string;
    };
    const first = await createUser(a, "erin", { approved: false });
    const firstKey = await keyOf();
    assert.equal(await keyOf(), firstKey, "the same key on every read");
    // What rejecting the sign-up does to the rows (actors/moderation/account_actions.ts).
    const db = a.rookery.ctx.database.db;
    await db.delete(keyPairs).where(eq(keyPairs.owner, first.id));
    await db.delete(accounts).where(eq(accounts.id, first.id));
    await createUser(a, "erin");
    // The deletion is announced to every process at commit (at once on PGlite).
    const secondKey = await eventually("the new account's key", async () => {
      const key = await keyOf();
      return key !== firstKey && key;
    });
    assert.notEqual(secondKey, firstKey);
  } finally {
    await a.close();
  }
});
