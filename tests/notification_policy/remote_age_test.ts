/**
 * A remote account's age comes from its actor's `published` (the UTC date),
 * as Mastodon sets created_at, so for_new_accounts judges remote senders by
 * when their account was made, not by when we first saw them. A missing,
 * future or nonsensical `published` leaves the time we first saw the actor;
 * a refresh without one keeps what is stored.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { Person } from "@fedify/vocab";
import { startInstance, test } from "../harness.ts";
import { fixtures } from "../notifications/helpers.ts";
import { accounts, notifications } from "../../db/schema/mod.ts";
import { publishedDay, upsertRemoteActor } from "../../federation/remote/accounts.ts";
import { notifyFollow } from "../../actors/notifications/notify.ts";

const DAY = 86_400_000;

function person(username: string, published?: string) {
  return Person.fromJsonLd({
    "@context": "https://www.w3.org/ns/activitystreams",
    id: `https://remote.example/users/${username}`,
    type: "Person",
    preferredUsername: username,
    inbox: `https://remote.example/users/${username}/inbox`,
    ...(published ? { published } : {}),
  });
}

test("publishedDay: the UTC date of a sane published, else null", () => {
  const now = Date.parse("2026-03-10T12:00:00Z");
  const at = (iso: string) => ({ epochMilliseconds: Date.parse(iso) });
  assert.equal(
    publishedDay(at("2020-05-06T23:59:59+00:00"), now)?.toISOString(),
    "2020-05-06T00:00:00.000Z",
  );
  assert.equal(
    publishedDay(at("2020-05-06T23:30:00-02:00"), now)?.toISOString(),
    "2020-05-07T00:00:00.000Z",
    "the UTC date",
  );
  assert.equal(
    publishedDay(at("2026-03-10T11:00:00Z"), now)?.toISOString(),
    "2026-03-10T00:00:00.000Z",
  );
  assert.equal(publishedDay(at("2026-03-10T13:00:00Z"), now), null, "in the future");
  assert.equal(publishedDay(at("1969-12-31T00:00:00Z"), now), null, "before 1970");
  assert.equal(publishedDay({ epochMilliseconds: NaN }, now), null);
  assert.equal(publishedDay(null, now), null);
  assert.equal(publishedDay(undefined, now), null);
});

test("remote accounts: created_at from published; for_new_accounts judges by it", async () => {
  const instance = await startInstance();
  try {
    const f = fixtures(instance);
    const ctx = instance.rookery.ctx;
    const { db } = ctx.database;
    const alice = await f.user("alice");
    const entity = async (id: string) =>
      (await f.call(alice, "GET", `/api/v1/accounts/${id}`)).body.created_at;
    const today = new Date().toISOString().slice(0, 10);

    const old = await upsertRemoteActor(ctx, await person("old", "2020-05-06T12:34:56Z"));
    assert.ok(old);
    assert.equal(old.createdAt.toISOString(), "2020-05-06T00:00:00.000Z");
    assert.equal(await entity(old.id), "2020-05-06T00:00:00.000Z");

    const future = new Date(Date.now() + 400 * DAY).toISOString();
    const liar = await upsertRemoteActor(ctx, await person("liar", future));
    assert.ok(liar);
    assert.ok(Math.abs(liar.createdAt.getTime() - Date.now()) < 60_000, "first seen, now");
    assert.equal(await entity(liar.id), `${today}T00:00:00.000Z`);

    const silent = await upsertRemoteActor(ctx, await person("silent"));
    assert.ok(silent && Math.abs(silent.createdAt.getTime() - Date.now()) < 60_000);

    // A refresh without published keeps the stored date; one with a new date takes it.
    await upsertRemoteActor(ctx, await person("old"));
    assert.equal(await entity(old.id), "2020-05-06T00:00:00.000Z");
    await upsertRemoteActor(ctx, await person("old", "2019-01-02T00:00:00Z"));
    assert.equal(await entity(old.id), "2019-01-02T00:00:00.000Z");
    const [row] = await db.select().from(accounts).where(eq(accounts.id, old.id));
    assert.equal(row.createdAt.toISOString(), "2019-01-02T00:00:00.000Z");

    // for_new_accounts: the old remote account passes, the ones that look new are held.
    const set = await f.call(alice, "PATCH", "/api/v2/notifications/policy", {
      for_new_accounts: "filter",
    });
    assert.equal(set.status, 200);
    const young = await upsertRemoteActor(
      ctx,
      await person("young", new Date(Date.now() - 3 * DAY).toISOString()),
    );
    assert.ok(young);
    const filtered = new Map<string, boolean>();
    for (const sender of [old, young, liar]) {
      const id = await db.transaction((tx) => notifyFollow(tx, sender.id, alice.id));
      assert.ok(id);
      const [n] = await db.select().from(notifications).where(eq(notifications.id, id));
      filtered.set(sender.username, n.filtered);
    }
    assert.deepEqual(Object.fromEntries(filtered), { old: false, young: true, liar: true });
  } finally {
    await instance.close({ destroy: true });
  }
});
