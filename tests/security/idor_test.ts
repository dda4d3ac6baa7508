/**
 * The IDOR matrix: a private and a direct status of Alice, read by Bob (no
 * relation to her) and anonymously through every read route, the HTML
 * pages, the ActivityPub object URL and the outbox get exactly the answer
 * of an id that does not exist (same status, same body), so nobody can tell
 * a hidden status from a missing one. Alice's media, list, scheduled status
 * and a poll in her private status are 404s to Bob, with nothing of them in
 * the body, and nothing he sends changes them; nor can he edit or delete
 * her public status.
 */
import assert from "node:assert/strict";
import { startInstance, test, type TestInstance } from "../harness.ts";
import { call, type Caller, callJson, ok, postStatus } from "../fixtures/api.ts";
import { mediaRow } from "../fixtures/media.ts";
import { createUser } from "../fixtures/users.ts";

/** A well-formed snowflake that names nothing. */
const MISSING = "109999999999999999";

const AP = { Accept: "application/activity+json" };

/** Status, content type and body of an answer, for side-by-side comparison. */
async function answer(res: Response) {
  return {
    status: res.status,
    type: (res.headers.get("content-type") ?? "").split(";")[0],
    body: await res.text(),
  };
}

/** Where a redirect leads: the status of the page it names, which must be the 404 too. */
async function redirected(a: TestInstance, caller: Caller, path: string): Promise<number> {
  const res = await call(a, caller, "GET", path);
  const location = res.headers.get("location")!;
  await res.body?.cancel();
  const next = await call(a, caller, "GET", location);
  await next.body?.cancel();
  assert.equal(next.status, 404, `${path} -> ${location}`);
  return next.status;
}

test("idor: hidden statuses and another user's objects answer like missing ones", async (t) => {
  const a = await startInstance();
  try {
    const alice = await createUser(a, "alice");
    const bob = await createUser(a, "bob");
    const carol = await createUser(a, "carol");
    const priv = await postStatus(a, alice, {
      status: "followers only secret",
      visibility: "private",
      poll: { options: ["yes", "no"], expires_in: 3600 },
    });
    const direct = await postStatus(a, alice, {
      status: `@carol direct secret`,
      visibility: "direct",
    });
    assert.equal(direct.mentions[0].id, carol.id);
    // Interactions by those allowed, so the lists are not empty for them.
    await ok(a, alice, "POST", `/api/v1/statuses/${priv.id}/favourite`);
    await ok(a, carol, "POST", `/api/v1/statuses/${direct.id}/favourite`);

    const readRoutes = (id: string) => [
      `/api/v1/statuses/${id}`,
      `/api/v1/statuses/${id}/context`,
      `/api/v1/statuses/${id}/source`,
      `/api/v1/statuses/${id}/history`,
      `/api/v1/statuses/${id}/reblogged_by`,
      `/api/v1/statuses/${id}/favourited_by`,
      `/api/v1/statuses/${id}/quotes`,
      `/@alice/${id}`,
      `/users/alice/statuses/${id}`,
    ];
    const actions = (id: string) => [
      `/api/v1/statuses/${id}/favourite`,
      `/api/v1/statuses/${id}/reblog`,
      `/api/v1/statuses/${id}/bookmark`,
      `/api/v1/statuses/${id}/pin`,
    ];
    const callers: [string, Caller][] = [["bob", bob], ["anonymous", null]];

    await t.step("every read route: identical to a missing id", async () => {
      for (const [who, caller] of callers) {
        for (const status of [priv, direct]) {
          const hidden = readRoutes(status.id);
          const missing = readRoutes(MISSING);
          for (let i = 0; i < hidden.length; i++) {
            const got = await answer(await call(a, caller, "GET", hidden[i]));
            const want = await answer(await call(a, caller, "GET", missing[i]));
            // /users/…/statuses/:id sends browsers to /@…/:id, hidden or not.
            const redirect = got.status === 302
              ? " " + (await redirected(a, caller, hidden[i]))
              : "";
            assert.ok(
              [401, 404].includes(got.status) || redirect,
              `${who} ${hidden[i]}: ${got.status}`,
            );
            assert.deepEqual(got, want, `${who} ${hidden[i]}`);
            assert.doesNotMatch(got.body, /secret/);
          }
        }
      }
    });

    await t.step("the ActivityPub object URL and the outbox", async () => {
      for (const [who, caller] of callers) {
        for (const status of [priv, direct]) {
          for (
            const [url, missing] of [
              [status.uri, `/users/alice/statuses/${MISSING}`],
              [`/@alice/${status.id}`, `/@alice/${MISSING}`],
            ]
          ) {
            const got = await answer(await call(a, caller, "GET", url, undefined, AP));
            const want = await answer(await call(a, caller, "GET", missing, undefined, AP));
            assert.equal(got.status, 404, `${who} ${url}`);
            assert.deepEqual(got, want, `${who} ${url}`);
          }
        }
        const outbox = await callJson(
          a,
          caller,
          "GET",
          "/users/alice/outbox?page=true",
          undefined,
          AP,
        );
        assert.equal(outbox.status, 200);
        assert.doesNotMatch(JSON.stringify(outbox.body), /secret|statuses\/(\d+)/);
      }
    });

    await t.step("interactions with a hidden status: identical to a missing id", async () => {
      for (const status of [priv, direct]) {
        for (const [i, path] of actions(status.id).entries()) {
          const got = await answer(await call(a, bob, "POST", path));
          const want = await answer(await call(a, bob, "POST", actions(MISSING)[i]));
          assert.equal(got.status, 404, path);
          assert.deepEqual(got, want, path);
        }
      }
      const mine = await callJson(a, alice, "GET", `/api/v1/statuses/${priv.id}`);
      assert.equal(mine.body.favourites_count, 1);
      assert.equal(mine.body.reblogs_count, 0);
    });

    await t.step("a poll in a hidden status: no read, no vote", async () => {
      const poll = priv.poll.id;
      for (
        const [method, path, body] of [
          ["GET", `/api/v1/polls/${poll}`, undefined],
          ["POST", `/api/v1/polls/${poll}/votes`, { choices: ["0"] }],
        ] as const
      ) {
        const got = await callJson(a, bob, method, path, body);
        const want = await callJson(a, bob, method, path.replace(poll, MISSING), body);
        assert.equal(got.status, 404, path);
        assert.deepEqual(got.body, want.body, path);
      }
      const seen = await callJson(a, alice, "GET", `/api/v1/polls/${poll}`);
      assert.equal(seen.body.votes_count, 0);
    });

    await t.step("another user's media, list and scheduled status", async () => {
      const media = await mediaRow(a, alice);
      const list = await ok(a, alice, "POST", "/api/v1/lists", { title: "alice's list" });
      const scheduled = await ok(a, alice, "POST", "/api/v1/statuses", {
        status: "later secret",
        scheduled_at: new Date(Date.now() + 3_600_000).toISOString(),
      });
      const open = await postStatus(a, alice, { status: "public words", visibility: "public" });
      const probes: [string, string, Record<string, unknown>?][] = [
        ["PUT", `/api/v1/statuses/${open.id}`, { status: "bob was here" }],
        ["DELETE", `/api/v1/statuses/${open.id}`],
        ["GET", `/api/v1/media/${media}`],
        ["PUT", `/api/v1/media/${media}`, { description: "bob was here" }],
        ["DELETE", `/api/v1/media/${media}`],
        ["GET", `/api/v1/lists/${list.id}`],
        ["PUT", `/api/v1/lists/${list.id}`, { title: "bob was here" }],
        ["GET", `/api/v1/lists/${list.id}/accounts`],
        ["POST", `/api/v1/lists/${list.id}/accounts`, { account_ids: [bob.id] }],
        ["DELETE", `/api/v1/lists/${list.id}`],
        ["GET", `/api/v1/timelines/list/${list.id}`],
        ["GET", `/api/v1/scheduled_statuses/${scheduled.id}`],
        ["PUT", `/api/v1/scheduled_statuses/${scheduled.id}`, {
          scheduled_at: new Date(Date.now() + 7_200_000).toISOString(),
        }],
        ["DELETE", `/api/v1/scheduled_statuses/${scheduled.id}`],
      ];
      for (const [method, path, body] of probes) {
        const got = await callJson(a, bob, method, path, body);
        const missingPath = path.replace(/\/\d+(\/|$)/, `/${MISSING}$1`);
        const want = await callJson(a, bob, method, missingPath, body);
        assert.equal(got.status, 404, `${method} ${path}`);
        assert.deepEqual(got.body, want.body, `${method} ${path}`);
        assert.deepEqual(Object.keys(got.body), ["error"], `${method} ${path}`);
      }
      // Nothing Bob sent changed them.
      const still0 = await ok(a, alice, "GET", `/api/v1/statuses/${open.id}`);
      assert.equal(still0.content, "<p>public words</p>");
      assert.equal((await ok(a, alice, "GET", `/api/v1/media/${media}`)).description, "a picture");
      assert.equal((await ok(a, alice, "GET", `/api/v1/lists/${list.id}`)).title, "alice's list");
      assert.deepEqual(await ok(a, alice, "GET", `/api/v1/lists/${list.id}/accounts`), []);
      const still = await ok(a, alice, "GET", `/api/v1/scheduled_statuses/${scheduled.id}`);
      assert.equal(still.scheduled_at, scheduled.scheduled_at);
    });

    await t.step("another user's filters, keywords and filtered statuses", async () => {
      const filter = await ok(a, alice, "POST", "/api/v2/filters", {
        title: "alice's filter",
        context: ["home"],
        keywords_attributes: [{ keyword: "secret" }],
      });
      const open = await postStatus(a, alice, { status: "filter me", visibility: "public" });
      const entry = await ok(a, alice, "POST", `/api/v2/filters/${filter.id}/statuses`, {
        status_id: open.id,
      });
      const keyword = filter.keywords[0].id;
      const probes: [string, string, Record<string, unknown>?][] = [
        ["GET", `/api/v2/filters/${filter.id}`],
        ["PUT", `/api/v2/filters/${filter.id}`, { title: "bob was here" }],
        ["DELETE", `/api/v2/filters/${filter.id}`],
        ["GET", `/api/v2/filters/${filter.id}/keywords`],
        ["POST", `/api/v2/filters/${filter.id}/keywords`, { keyword: "bob" }],
        ["GET", `/api/v2/filters/${filter.id}/statuses`],
        ["POST", `/api/v2/filters/${filter.id}/statuses`, { status_id: open.id }],
        ["GET", `/api/v2/filters/keywords/${keyword}`],
        ["PUT", `/api/v2/filters/keywords/${keyword}`, { keyword: "bob" }],
        ["DELETE", `/api/v2/filters/keywords/${keyword}`],
        ["GET", `/api/v2/filters/statuses/${entry.id}`],
        ["DELETE", `/api/v2/filters/statuses/${entry.id}`],
        ["GET", `/api/v1/filters/${keyword}`],
        ["PUT", `/api/v1/filters/${keyword}`, { phrase: "bob" }],
        ["DELETE", `/api/v1/filters/${keyword}`],
      ];
      for (const [method, path, body] of probes) {
        const got = await callJson(a, bob, method, path, body);
        const missingPath = path.replace(/\/\d+(\/|$)/, `/${MISSING}$1`);
        const want = await callJson(a, bob, method, missingPath, body);
        assert.equal(got.status, 404, `${method} ${path}`);
        assert.deepEqual(got.body, want.body, `${method} ${path}`);
      }
      const still = await ok(a, alice, "GET", `/api/v2/filters/${filter.id}`);
      assert.equal(still.title, "alice's filter");
      assert.deepEqual(still.keywords, filter.keywords);
      assert.deepEqual(still.statuses, [entry]);
    });
  } finally {
    await a.close({ destroy: true });
  }
});
