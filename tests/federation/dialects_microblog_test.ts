/**
 * Microblogging servers' dialects (Mastodon, Misskey, Pleroma/Akkoma,
 * GoToSocial, Friendica, snac), each from the corpus under
 * fixtures/peers/, delivered by a signed fake peer and checked through the
 * Mastodon API (tests/federation/peers_corpus.ts), as written and again with
 * only the ActivityStreams context.
 */
import { startInstance, test } from "../harness.ts";
import { createUser } from "../fixtures/users.ts";
import { ok } from "../fixtures/api.ts";
import { playFamily } from "./peers_corpus.ts";

const FAMILIES =
  (Deno.env.get("DIALECT_FAMILIES") ?? "mastodon,misskey,pleroma,gotosocial,friendica,snac")
    .split(",");

test("microblogging dialects arrive as Mastodon shows them, with or without their context", async (t) => {
  const rookery = await startInstance({
    env: { LOG_LEVEL: Deno.env.get("DIALECT_LOG") ?? "error" },
  });
  try {
    const viewer = await createUser(rookery, "viewer");
    const status = await ok(rookery, viewer, "POST", "/api/v1/statuses", {
      status: "Something to like",
      visibility: "public",
    });
    const local = { uri: status.uri, id: status.id };
    for (const family of FAMILIES) {
      for (const plain of [false, true]) {
        await t.step(`${family}${plain ? ", plain context" : ""}`, async () => {
          await playFamily(rookery, viewer, local, family, plain);
        });
      }
    }
  } finally {
    await rookery.close();
  }
});
