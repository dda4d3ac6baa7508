/**
 * The home timeline's rows kept in the entity cache with their versions
 * (api/entities/status_page.ts: the page statement names each row's id and
 * xmin only) and the parts every viewer sees alike kept beside them
 * (entity_cache.ts). The answer must be what the serializer makes of rows
 * read afresh, byte for byte, cold and warm; what differs per viewer must
 * stay theirs; and a change to anything a cached status shows (an edit, a
 * counter, a vote, a media description, the author's name, a deletion, a
 * suspension), made by a request, by hand-written SQL or by another
 * process, must show at the next read (at once for this process's writes;
 * the row itself at once from anywhere).
 */
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { afterAll, POSTGRES_ONLY, startInstance, test, type TestInstance } from "../harness.ts";
import { createUser, type TestUser } from "../fixtures/users.ts";
import { ok, postStatus } from "../fixtures/api.ts";
import { mediaRow } from "../fixtures/media.ts";
import { eventually } from "../fixtures/wait.ts";
import { serializeStatusIds } from "../../api/entities/status.ts";

const shared = (async () => {
  const instance = await startInstance();
  afterAll(() => instance.close({ destroy: true }));
  return instance;
})();

/** alice posts; bob and carol follow her (and each other's boosts show). */
async function setup(instance: TestInstance, prefix: string) {
  const alice = await createUser(instance, `${prefix}a`);
  const bob = await createUser(instance, `${prefix}b`);
  const carol = await createUser(instance, `${prefix}c`);
  for (const [who, whom] of [[bob, alice], [carol, alice], [bob, carol]] as const) {
    await ok(instance, who, "POST", `/api/v1/accounts/${whom.id}/follow`);
  }
  return { alice, bob, carol };
}

/** The home answer's text and its parsed statuses. */
async function homeText(instance: TestInstance, who: TestUser, query = "") {
  const res = await instance.request(`/api/v1/timelines/home${query}`, {
    headers: { authorization: `Bearer ${who.token}` },
  });
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
  const text = await res.text();
  return { text, statuses: JSON.parse(text) as any[] };
}

/** One status of the viewer's home, by id. */
async function shown(instance: TestInstance, who: TestUser, id: string) {
  return (await homeText(instance, who)).statuses.find((s) => s.id === id);
}

test("status text: the home answer is JSON.stringify of the entities, cold and warm", async () => {
  const instance = await shared;
  const { alice, bob, carol } = await setup(instance, "t");
  const media = await mediaRow(instance, alice);
  const plain = await postStatus(instance, alice, 'Plain \u2028 "quoted" <b>x</b> \u{1F600}');
  await postStatus(instance, alice, "With a picture #tag", { media_ids: [media] });
  await postStatus(instance, alice, "A poll", { poll: { options: ["a", "b"], expires_in: 600 } });
  await postStatus(instance, alice, { status: "Quoting", quoted_status_id: plain.id });
  await postStatus(instance, alice, `@${bob.username} hello kiwi`, { spoiler_text: "cw" });
  const dave = await createUser(instance, "td");
  const boosted = await postStatus(instance, dave, "Boosted into bob's home");
  await ok(instance, carol, "POST", `/api/v1/statuses/${boosted.id}/reblog`);
  await ok(instance, bob, "POST", `/api/v1/statuses/${boosted.id}/favourite`);
  await ok(instance, bob, "POST", `/api/v1/statuses/${plain.id}/bookmark`);
  await ok(instance, bob, "POST", "/api/v2/filters", {
    title: "fruit",
    context: ["home"],
    filter_action: "warn",
    keywords_attributes: [{ keyword: "kiwi" }],
  });
  const ctx = instance.rookery.ctx;
  for (const round of ["cold", "warm", "warm again"]) {
    const { text, statuses } = await homeText(instance, bob);
    assert.equal(statuses.length, 6, round);
    assert.equal(statuses[0].reblog?.id, boosted.id, round);
    // The same statuses serialized from rows read afresh, with the viewer statement apart.
    const ids = statuses.map((s) => s.id);
    const expected = await serializeStatusIds(ctx, ids, { accountId: bob.id }, {
      context: "home",
    });
    assert.equal(text, JSON.stringify(expected), round);
  }
  const { statuses } = await homeText(instance, bob);
  assert.ok(statuses.some((s) => s.filtered?.length === 1), "the filter matched");
  assert.ok(statuses.some((s) => s.quote?.quoted_status?.id === plain.id), "the quote shows");
  assert.ok(statuses.some((s) => s.media_attachments.length === 1));
});

test("status text: two viewers of one cached status keep their own flags", async () => {
  const instance = await shared;
  const { alice, bob, carol } = await setup(instance, "v");
  const status = await postStatus(instance, alice, "Seen by two");
  assert.equal((await shown(instance, carol, status.id)).favourited, false);
  await ok(instance, bob, "POST", `/api/v1/statuses/${status.id}/favourite`);
  await ok(instance, bob, "POST", `/api/v1/statuses/${status.id}/bookmark`);
  await ok(instance, carol, "POST", `/api/v1/statuses/${status.id}/mute`);
  for (let i = 0; i < 2; i++) {
    const forBob = await shown(instance, bob, status.id);
    const forCarol = await shown(instance, carol, status.id);
    assert.deepEqual(
      [forBob.favourited, forBob.bookmarked, forBob.muted, forBob.favourites_count],
      [true, true, false, 1],
    );
    assert.deepEqual(
      [forCarol.favourited, forCarol.bookmarked, forCarol.muted, forCarol.favourites_count],
      [false, false, true, 1],
    );
    assert.equal(forBob.account.display_name, forCarol.account.display_name);
  }
  const own = await shown(instance, alice, status.id);
  assert.equal(own.pinned, false, "pinned shows on the viewer's own statuses only");
  assert.equal("pinned" in await shown(instance, bob, status.id), false);
});

test("status text: changes made through requests show at the next read", async () => {
  const instance = await shared;
  const { alice, bob, carol } = await setup(instance, "r");
  const media = await mediaRow(instance, alice);
  const status = await postStatus(instance, alice, "Before", { media_ids: [media] });
  const poll = await postStatus(instance, alice, "Vote", {
    poll: { options: ["yes", "no"], expires_in: 600 },
  });
  const gone = await postStatus(instance, alice, "Soon deleted");
  await shown(instance, bob, status.id);
  await shown(instance, bob, status.id);

  await ok(instance, alice, "PUT", `/api/v1/statuses/${status.id}`, {
    status: "After",
    media_ids: [media],
    media_attributes: [{ id: media, description: "a new description" }],
  });
  let s = await shown(instance, bob, status.id);
  assert.match(s.content, /After/);
  assert.notEqual(s.edited_at, null);
  assert.equal(s.media_attachments[0].description, "a new description");

  await ok(instance, carol, "POST", `/api/v1/statuses/${status.id}/favourite`);
  await ok(instance, carol, "POST", `/api/v1/statuses/${status.id}/reblog`);
  s = await shown(instance, bob, status.id);
  assert.deepEqual([s.favourites_count, s.reblogs_count], [1, 1]);

  await ok(instance, carol, "POST", `/api/v1/polls/${poll.poll.id}/votes`, { choices: [1] });
  const p = (await shown(instance, bob, poll.id)).poll;
  assert.deepEqual([p.votes_count, p.options[1].votes_count, p.voted], [1, 1, false]);

  await ok(instance, alice, "PATCH", "/api/v1/accounts/update_credentials", {
    display_name: "Alice Renamed",
  });
  s = await shown(instance, bob, status.id);
  assert.equal(s.account.display_name, "Alice Renamed");
  assert.equal(s.account.statuses_count, 3);

  await ok(instance, alice, "DELETE", `/api/v1/statuses/${gone.id}`);
  assert.equal(await shown(instance, bob, gone.id), undefined);
});

test("status text: a row changed through another connection shows at the very next read", async () => {
  const instance = await shared;
  const { alice, bob } = await setup(instance, "x");
  const status = await postStatus(instance, alice, "Row");
  for (let i = 0; i < 2; i++) assert.match((await shown(instance, bob, status.id)).content, /Row/);
  const db = instance.rookery.ctx.database.db;
  // No waiting for the entity channel: the page names the row's version.
  for (const n of [1, 2, 3]) {
    await db.execute(sql`UPDATE statuses SET content = ${`<p>Version ${n}</p>`},
      favourites_count = ${n}, edited_at = now() WHERE id = ${status.id}::bigint`);
    const s = await shown(instance, bob, status.id);
    assert.deepEqual([s.content, s.favourites_count], [`<p>Version ${n}</p>`, n]);
    assert.notEqual(s.edited_at, null);
  }
  await db.execute(sql`UPDATE statuses SET deleted_at = now() WHERE id = ${status.id}::bigint`);
  assert.equal(await shown(instance, bob, status.id), undefined);
});

/** What hand-written SQL (an operator, another program) changes shows once announced. */
async function changeBehindOurBack(
  writer: TestInstance,
  reader: TestInstance,
  users: { alice: TestUser; bob: TestUser },
  status: { id: string },
  media: string,
) {
  const { alice, bob } = users;
  const db = writer.rookery.ctx.database.db;
  await db.execute(sql`UPDATE statuses SET content = '<p>Changed by hand</p>',
    replies_count = 7 WHERE id = ${status.id}::bigint`);
  await db.execute(sql`UPDATE media_attachments SET description = 'described by hand'
    WHERE id = ${media}::bigint`);
  await db.execute(sql`UPDATE accounts SET display_name = 'By hand', statuses_count = 99
    WHERE id = ${alice.id}::bigint`);
  await eventually("the hand-made changes to show", async () => {
    const s = await shown(reader, bob, status.id);
    return s.content === "<p>Changed by hand</p>" && s.replies_count === 7 &&
      s.media_attachments[0].description === "described by hand" &&
      s.account.display_name === "By hand" && s.account.statuses_count === 99;
  }, 5_000);
  await db.execute(sql`UPDATE accounts SET suspended_at = now() WHERE id = ${alice.id}::bigint`);
  await eventually(
    "the suspended author's status to leave",
    async () => await shown(reader, bob, status.id) === undefined,
    5_000,
  );
}

test("status text: changes made by hand-written SQL show", async () => {
  const instance = await shared;
  const { alice, bob } = await setup(instance, "s");
  const media = await mediaRow(instance, alice);
  const status = await postStatus(instance, alice, "By SQL", { media_ids: [media] });
  await shown(instance, bob, status.id);
  await changeBehindOurBack(instance, instance, { alice, bob }, status, media);
});

test("status text: another process's writes show in this one", POSTGRES_ONLY, async () => {
  const first = await shared;
  const second = await startInstance({ databaseUrl: first.databaseUrl!, worker: false });
  try {
    const { alice, bob, carol } = await setup(first, "p");
    const media = await mediaRow(first, alice);
    const status = await postStatus(first, alice, "Elsewhere", { media_ids: [media] });
    const poll = await postStatus(first, alice, "Vote", {
      poll: { options: ["yes", "no"], expires_in: 600 },
    });
    for (let i = 0; i < 2; i++) await shown(second, bob, status.id);
    await ok(first, alice, "PUT", `/api/v1/statuses/${status.id}`, {
      status: "Edited elsewhere",
      media_ids: [media],
    });
    await ok(first, carol, "POST", `/api/v1/statuses/${status.id}/favourite`);
    await ok(first, carol, "POST", `/api/v1/polls/${poll.poll.id}/votes`, { choices: [0] });
    await ok(first, alice, "PATCH", "/api/v1/accounts/update_credentials", {
      display_name: "Renamed elsewhere",
    });
    await eventually("the other process's writes to show", async () => {
      const s = await shown(second, bob, status.id);
      const p = await shown(second, bob, poll.id);
      return /Edited elsewhere/.test(s.content) && s.favourites_count === 1 &&
        s.account.display_name === "Renamed elsewhere" && p.poll.votes_count === 1;
    }, 5_000);
    await changeBehindOurBack(first, second, { alice, bob }, status, media);
  } finally {
    await second.close();
  }
});
