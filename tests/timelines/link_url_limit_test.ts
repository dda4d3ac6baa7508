/**
 * The link timeline takes a url= as long as a preview card's URL may be
 * (2,692 bytes, actors/cards/links.ts), so every card can be looked up; a
 * longer one is a 422.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { startInstance, test } from "../harness.ts";
import { newId } from "../../db/ids.ts";
import { accounts, previewCards, statusPreviewCards } from "../../db/schema/mod.ts";
import { MAX_LINK_BYTES } from "../../actors/cards/links.ts";
import { callJson, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { ids } from "./helpers.ts";

test("link timeline: url= up to the cards' limit, longer is 422", async () => {
  const instance = await startInstance();
  try {
    const { db } = instance.rookery.ctx.database;
    const alice = await createUser(instance, "alice");
    await db.update(accounts).set({ discoverable: true }).where(eq(accounts.id, alice.id));
    const status = await postStatus(instance, alice, "a long link");
    const base = "https://news.example/story?q=";
    const longest = base + "a".repeat(MAX_LINK_BYTES - base.length);
    assert.equal(new TextEncoder().encode(longest).length, MAX_LINK_BYTES);
    const cardId = newId();
    await db.insert(previewCards).values({ id: cardId, url: longest });
    await db.insert(statusPreviewCards).values({ statusId: status.id, previewCardId: cardId });

    const path = (url: string) => `/api/v1/timelines/link?url=${encodeURIComponent(url)}`;
    assert.deepEqual(await ids(instance, null, path(longest)), [status.id]);
    // Past the old 2,048 limit, matching nothing: an empty page, not an error.
    assert.deepEqual(await ids(instance, null, path(longest.slice(0, 2_049))), []);
    const tooLong = await callJson(instance, null, "GET", path(longest + "a"));
    assert.equal(tooLong.status, 422);
    assert.equal(
      tooLong.body.error,
      `Validation failed: Url is too long (maximum is ${MAX_LINK_BYTES} characters)`,
    );
  } finally {
    await instance.close({ destroy: true });
  }
});
