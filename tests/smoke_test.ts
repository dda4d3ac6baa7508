import assert from "node:assert/strict";
import { json, startInstance, test } from "./harness.ts";

test("an unknown API route answers Mastodon's 404 shape", async () => {
  const a = await startInstance();
  try {
    const res = await a.request("/api/v1/nope");
    assert.equal(res.status, 404);
    assert.deepEqual(await json(res), { error: "Record not found" });
  } finally {
    await a.close({ destroy: true });
  }
});
