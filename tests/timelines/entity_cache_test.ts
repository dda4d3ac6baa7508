/**
 * The per-process entity cache (api/entities/entity_cache.ts): what a
 * timeline shows from it changes as soon as the rows it was built from
 * change, however they change (a request, hand-written SQL, another process),
 * and a load that raced an invalidation is not kept.
 */
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { POSTGRES_ONLY, startInstance, test } from "../harness.ts";
import { createUser } from "../fixtures/users.ts";
import { ok, postStatus } from "../fixtures/api.ts";
import { eventually } from "../fixtures/wait.ts";
import { EntityCache } from "../../api/entities/entity_cache.ts";
import type { StatusBundle } from "../../api/entities/status_content.ts";
import type { Account } from "../../api/entities/account.ts";

/** bob follows carol; carol boosts alice's status with a poll: bob's home shows it from the cache. */
async function boostedSetup(instance: Awaited<ReturnType<typeof startInstance>>) {
  const alice = await createUser(instance, "alice");
  const bob = await createUser(instance, "bob");
  const carol = await createUser(instance, "carol");
  await ok(instance, bob, "POST", `/api/v1/accounts/${carol.id}/follow`);
  const status = await postStatus(instance, alice, "Cached?", {
    poll: { options: ["yes", "no"], expires_in: 3600 },
  });
  await ok(instance, carol, "POST", `/api/v1/statuses/${status.id}/reblog`);
  const home = async () => {
    const page = await ok(instance, bob, "GET", "/api/v1/timelines/home");
    assert.equal(page.length, 1);
    assert.equal(page[0].reblog.id, status.id);
    return page[0].reblog;
  };
  return { alice, bob, carol, status, home };
}

test("entity cache: rows changed by hand-written SQL show at the next read", async () => {
  const instance = await startInstance();
  try {
    const { alice, status, home } = await boostedSetup(instance);
    const { database } = instance.rookery.ctx;
    const before = await home();
    assert.equal(before.account.display_name, "");
    assert.equal(before.favourites_count, 0);
    assert.equal(before.card, null);
    assert.equal(await home().then((s) => s.poll.votes_count), 0);
    const cache = instance.rookery.ctx.core.entityCache;
    assert.ok(cache.statuses.get(status.id), "the boosted status is cached");
    assert.ok(cache.accounts.get(alice.id), "its author is cached");

    // What another process (or an operator) might change, none of it through our code.
    await database.db.execute(sql`UPDATE accounts SET display_name = 'Alice A.'
      WHERE id = ${alice.id}::bigint`);
    await database.db.execute(sql`UPDATE statuses SET favourites_count = 42
      WHERE id = ${status.id}::bigint`);
    await database.db.execute(sql`UPDATE polls SET tallies = '[3, 1]', votes_count = 4,
      voters_count = 4 WHERE status_id = ${status.id}::bigint`);
    await database.db.execute(sql`INSERT INTO preview_cards (id, url, title)
      VALUES (1, 'https://example.com/', 'Example')`);
    await database.db.execute(sql`INSERT INTO statuses_preview_cards (status_id, preview_card_id)
      VALUES (${status.id}::bigint, 1)`);

    // Notifications reach PostgreSQL listeners a moment after the commit.
    const after = await eventually("the changes to show", async () => {
      const s = await home();
      return s.account.display_name === "Alice A." && s.favourites_count === 42 &&
        s.poll.votes_count === 4 && s.card?.title === "Example" && s;
    }, 5_000);
    assert.deepEqual(after.poll.options.map((o: { votes_count: number }) => o.votes_count), [3, 1]);

    // A shared card: changing it changes every status showing it.
    await database.db.execute(sql`UPDATE preview_cards SET title = 'Renamed' WHERE id = 1`);
    await eventually(
      "the card's new title",
      async () => (await home()).card?.title === "Renamed",
      5_000,
    );
  } finally {
    await instance.close({ destroy: true });
  }
});

test("entity cache: a request's own writes show in the next read at once", async () => {
  const instance = await startInstance();
  try {
    const { alice, home } = await boostedSetup(instance);
    await home();
    // No waiting: writes through a request mark the cache, and the next read
    // first takes in the invalidations they caused.
    for (const name of ["One", "Two", "Three"]) {
      await ok(instance, alice, "PATCH", "/api/v1/accounts/update_credentials", {
        display_name: name,
      });
      assert.equal((await home()).account.display_name, name);
    }
  } finally {
    await instance.close({ destroy: true });
  }
});

test("entity cache: a token revoked or a user disabled behind our back stops at the next read", async () => {
  const instance = await startInstance();
  try {
    const alice = await createUser(instance, "alice");
    const bob = await createUser(instance, "bob");
    const { database } = instance.rookery.ctx;
    const cache = instance.rookery.ctx.core.entityCache;
    const verify = (user: typeof alice) =>
      instance.request("/api/v1/accounts/verify_credentials", {
        headers: { authorization: `Bearer ${user.token}` },
      }).then(async (res) => {
        await res.body?.cancel();
        return res.status;
      });
    // The first request records the user's activity (a users row change,
    // which evicts); the second is cached.
    for (let i = 0; i < 2; i++) {
      assert.equal(await verify(alice), 200);
      assert.equal(await verify(bob), 200);
    }
    assert.equal(cache.tokens.size, 2, "both tokens are cached");

    await database.db.execute(sql`UPDATE oauth_access_tokens SET revoked_at = now()
      WHERE user_id = (SELECT id FROM users WHERE account_id = ${alice.id}::bigint)`);
    await database.db.execute(sql`UPDATE users SET disabled = true
      WHERE account_id = ${bob.id}::bigint`);
    await eventually("the revoked token to fail", async () => await verify(alice) === 401, 5_000);
    await eventually(
      "the disabled user to be refused",
      async () => await verify(bob) === 403,
      5_000,
    );

    // Through a request, at once: the next read sees the token gone.
    const carol = await createUser(instance, "carol");
    assert.equal(await verify(carol), 200);
    await database.db.execute(sql`DELETE FROM oauth_access_tokens
      WHERE user_id = (SELECT id FROM users WHERE account_id = ${carol.id}::bigint)`);
    await eventually("the deleted token to fail", async () => await verify(carol) === 401, 5_000);
  } finally {
    await instance.close({ destroy: true });
  }
});

test("entity cache: a write in another process shows in this one", POSTGRES_ONLY, async () => {
  const first = await startInstance();
  const second = await startInstance({ databaseUrl: first.databaseUrl!, worker: false });
  try {
    const { alice, bob } = await boostedSetup(first);
    const homeOnSecond = async () =>
      (await ok(second, bob, "GET", "/api/v1/timelines/home"))[0].reblog;
    assert.equal((await homeOnSecond()).account.display_name, "");
    assert.ok(second.rookery.ctx.core.entityCache.accounts.get(alice.id));
    await ok(first, alice, "PATCH", "/api/v1/accounts/update_credentials", {
      display_name: "Elsewhere",
    });
    await eventually(
      "the other process's change",
      async () => (await homeOnSecond()).account.display_name === "Elsewhere",
      5_000,
    );
  } finally {
    await second.close();
    await first.close({ destroy: true });
  }
});

function bundle(id: string, cardId: string | null = null): StatusBundle {
  return {
    row: { id } as StatusBundle["row"],
    media: [],
    mentions: [],
    tags: [],
    emojis: [],
    poll: null,
    application: null,
    card: null,
    cardId,
    cardCreator: null,
    taggedCollectionIds: [],
  };
}

test("entity cache: loads that raced an invalidation are not kept", async () => {
  const cache = new EntityCache(null);
  assert.equal(cache.enabled, false);
  cache.storeStatus(await cache.begin(), bundle("1"));
  assert.equal(cache.statuses.size, 0, "nothing is kept before listening");
  cache.listening();

  const epoch = await cache.begin();
  cache.received("s1");
  cache.storeStatus(epoch, bundle("1"));
  cache.storeStatus(epoch, bundle("2", "9"));
  assert.equal(cache.statuses.get("1"), undefined, "invalidated while loading");
  assert.ok(cache.statuses.get("2"), "other keys are kept");

  cache.received("c9");
  assert.equal(cache.statuses.get("2"), undefined, "a card change drops the statuses showing it");

  const account = { id: "5" } as Account;
  cache.storeAccount(await cache.begin(), account);
  assert.equal(cache.accounts.get("5"), account);
  cache.storeAccount(await cache.begin(), { id: "6", moved: account } as Account);
  assert.equal(cache.accounts.get("6"), undefined, "moved accounts are not kept");

  const late = await cache.begin();
  cache.received("*");
  assert.equal(cache.accounts.size, 0, "* clears everything");
  cache.storeStatus(late, bundle("3"));
  assert.equal(cache.statuses.size, 0, "and loads begun before it are not kept");
});
