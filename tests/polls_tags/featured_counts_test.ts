/**
 * A featured tag's count and last post date follow the owner's posting:
 * public and unlisted posts count, private ones and boosts don't, deleting
 * takes one back, and an edit that drops the tag recounts.
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { callJson } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";

test("featured tag counts follow posting, deleting and editing", async () => {
  const instance = await startInstance();
  try {
    const alice = await createUser(instance, "alice");
    const featured = await callJson(instance, alice, "POST", "/api/v1/featured_tags", {
      name: "rookery",
    });
    assert.equal(featured.status, 200);
    assert.equal(featured.body.statuses_count, "0");

    const post = (status: string, visibility = "public") =>
      callJson(instance, alice, "POST", "/api/v1/statuses", { status, visibility });
    const first = await post("one #rookery");
    await post("two #Rookery", "unlisted");
    await post("hidden #rookery", "private");
    const third = await post("three #rookery");
    await callJson(instance, alice, "POST", `/api/v1/statuses/${first.body.id}/reblog`);

    const counted = async () => {
      const res = await callJson(
        instance,
        alice,
        "GET",
        `/api/v1/accounts/${alice.id}/featured_tags`,
      );
      return res.body[0];
    };
    assert.equal((await counted()).statuses_count, "3");
    assert.match((await counted()).last_status_at, /^\d{4}-\d{2}-\d{2}$/);

    await callJson(instance, alice, "DELETE", `/api/v1/statuses/${first.body.id}`);
    assert.equal((await counted()).statuses_count, "2");

    const edited = await callJson(instance, alice, "PUT", `/api/v1/statuses/${third.body.id}`, {
      status: "three, untagged now",
    });
    assert.equal(edited.status, 200);
    assert.equal((await counted()).statuses_count, "1");
  } finally {
    await instance.close({ destroy: true });
  }
});
