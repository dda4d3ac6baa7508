/**
 * Tokens on the poll, scheduled status, tag and featured tag routes: the
 * shared scope matrix for the user routes, and the public routes' rule that
 * a token that comes along must fit (polls) or is not needed (tags).
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { assertScopeMatrix, scopeFixtures } from "../oauth/scope_matrix.ts";
import { callJson } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { insertStatus } from "./helpers.ts";

test("polls, scheduled statuses and tags: scope matrix", async (t) => {
  const instance = await startInstance({ worker: false });
  try {
    const send = (path: string, init: RequestInit) => instance.request(path, init);
    const json = { headers: { "content-type": "application/json" } };
    const body = (value: unknown) => ({ ...json, body: JSON.stringify(value) });
    await assertScopeMatrix(t, send, await scopeFixtures(instance), [
      {
        method: "POST",
        path: "/api/v1/polls/1/votes",
        kind: "user",
        scopes: ["write:statuses"],
        init: body({ choices: [0] }),
      },
      {
        method: "GET",
        path: "/api/v1/scheduled_statuses",
        kind: "user",
        scopes: ["read:statuses"],
      },
      {
        method: "GET",
        path: "/api/v1/scheduled_statuses/1",
        kind: "user",
        scopes: ["read:statuses"],
      },
      {
        method: "PUT",
        path: "/api/v1/scheduled_statuses/1",
        kind: "user",
        scopes: ["write:statuses"],
      },
      {
        method: "DELETE",
        path: "/api/v1/scheduled_statuses/1",
        kind: "user",
        scopes: ["write:statuses"],
      },
      {
        method: "POST",
        path: "/api/v1/tags/matrix/follow",
        kind: "user",
        scopes: ["write:follows", "follow"],
      },
      {
        method: "POST",
        path: "/api/v1/tags/matrix/unfollow",
        kind: "user",
        scopes: ["write:follows", "follow"],
      },
      {
        method: "GET",
        path: "/api/v1/followed_tags",
        kind: "user",
        scopes: ["read:follows", "follow"],
      },
      {
        method: "POST",
        path: "/api/v1/tags/matrix/feature",
        kind: "user",
        scopes: ["write:accounts"],
      },
      {
        method: "POST",
        path: "/api/v1/tags/matrix/unfeature",
        kind: "user",
        scopes: ["write:accounts"],
      },
      { method: "GET", path: "/api/v1/featured_tags", kind: "user", scopes: ["read:accounts"] },
      {
        method: "GET",
        path: "/api/v1/featured_tags/suggestions",
        kind: "user",
        scopes: ["read:accounts"],
      },
      {
        method: "POST",
        path: "/api/v1/featured_tags",
        kind: "user",
        scopes: ["write:accounts"],
        init: body({ name: "matrix" }),
      },
      {
        method: "DELETE",
        path: "/api/v1/featured_tags/1",
        kind: "user",
        scopes: ["write:accounts"],
      },
    ]);
  } finally {
    await instance.close({ destroy: true });
  }
});

test("public poll and tag routes: anonymous works, a token must fit", async () => {
  const instance = await startInstance({ worker: false });
  try {
    const alice = await createUser(instance, "alice");
    const writer = await createUser(instance, "writer", { scopes: ["write"] });
    const { pollId } = await insertStatus(instance, alice.id, {
      tags: ["open"],
      poll: { options: ["a", "b"] },
    });
    assert.equal((await callJson(instance, null, "GET", `/api/v1/polls/${pollId}`)).status, 200);
    const wrong = await callJson(instance, writer, "GET", `/api/v1/polls/${pollId}`);
    assert.equal(wrong.status, 403);
    assert.equal(wrong.body.error, "This action is outside the authorized scopes");
    assert.equal((await callJson(instance, alice, "GET", `/api/v1/polls/${pollId}`)).status, 200);
    // The tag detail needs no scope, as Mastodon.
    assert.equal((await callJson(instance, null, "GET", "/api/v1/tags/open")).status, 200);
    assert.equal((await callJson(instance, writer, "GET", "/api/v1/tags/open")).status, 200);
  } finally {
    await instance.close({ destroy: true });
  }
});
