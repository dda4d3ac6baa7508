/**
 * `missing_attribution` on a PreviewCard (Mastodon 4.7): true only for the
 * author of the status, when the page names them its `fediverse:creator`
 * and its site is not among their attribution domains; false for everyone
 * else, for another creator, and once the domain is added.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { startInstance, test } from "../harness.ts";
import { callJson, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { accounts } from "../../db/schema/mod.ts";
import { startPageServer, waitForCard } from "./helpers.ts";

test("preview cards: missing_attribution for the author named as creator", async () => {
  const pages = await startPageServer();
  const instance = await startInstance();
  try {
    const { db } = instance.rookery.ctx.database;
    const domain = instance.rookery.ctx.config.domain;
    const [alice, bob] = await Promise.all([
      createUser(instance, "alice"),
      createUser(instance, "bob"),
    ]);
    const mine = await postStatus(instance, alice, {
      status: `My article ${pages.base}/creator/Alice@${domain}`,
    });
    const card = await waitForCard(instance, alice, mine.id);
    assert.equal(card.missing_attribution, true);
    const seen = async (who: typeof bob | null, id: string) =>
      (await callJson(instance, who, "GET", `/api/v1/statuses/${id}`)).body.card;
    assert.equal((await seen(bob, mine.id)).missing_attribution, false);
    assert.equal((await seen(null, mine.id)).missing_attribution, false);
    // In a timeline too, the author's own view.
    const home = await callJson(
      instance,
      alice,
      "GET",
      "/api/v1/accounts/" + alice.id + "/statuses",
    );
    assert.equal(home.body[0].card.missing_attribution, true);
    // Someone else's page: no hint.
    const other = await postStatus(instance, alice, {
      status: `Bob's article ${pages.base}/creator/bob@${domain}`,
    });
    assert.equal((await waitForCard(instance, alice, other.id)).missing_attribution, false);
    // The site among the attribution domains: no hint.
    await db.update(accounts).set({ attributionDomains: ["127.0.0.1"] })
      .where(eq(accounts.id, alice.id));
    assert.equal((await seen(alice, mine.id)).missing_attribution, false);
  } finally {
    await instance.close({ destroy: true });
    await pages.close();
  }
});
