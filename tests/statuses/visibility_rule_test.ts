/**
 * The two forms of "who may see a status" agree: the SQL every reader
 * filters with (db/queries/visibility.ts), asked through GET
 * /api/v1/statuses/:id, and the pure rule of model/visibility.ts (maySee),
 * on every visibility × viewer standing: anonymous, the author, and a
 * signed-in viewer who follows the author or not, is mentioned or not, and
 * blocks the author, is blocked by the author, or neither; and the same for
 * a status held for approval (seen by its author alone when no viewer decides).
 */
import assert from "node:assert/strict";
import { inArray } from "drizzle-orm";
import { blocks, statuses } from "../../db/schema/mod.ts";
import { newId } from "../../db/ids.ts";
import { maySee, type ViewerStanding, VISIBILITIES } from "../../model/visibility.ts";
import { startInstance, test } from "../harness.ts";
import { callJson, postStatus } from "../fixtures/api.ts";
import { createUser, type TestUser } from "../fixtures/users.ts";
import { makeFollower } from "./helpers.ts";

type Block = "none" | "blocks_author" | "blocked_by_author";

interface Viewer {
  user: TestUser;
  follower: boolean;
  mentioned: boolean;
  block: Block;
}

test("the SQL visibility rule and model/visibility.ts agree on every case", async () => {
  const a = await startInstance({ worker: false });
  try {
    const author = await createUser(a, "author");
    const viewers: Viewer[] = [];
    for (const follower of [false, true]) {
      for (const mentioned of [false, true]) {
        for (const block of ["none", "blocks_author", "blocked_by_author"] as const) {
          const name = `v${+follower}${+mentioned}${block.slice(0, 9)}`.replaceAll("_", "");
          const user = await createUser(a, name);
          if (follower) await makeFollower(a, user, author);
          viewers.push({ user, follower, mentioned, block });
        }
      }
    }
    const mentions = viewers.filter((v) => v.mentioned).map((v) => `@${v.user.username}`);
    const posted = new Map<string, string>();
    const held = new Map<string, string>();
    for (const visibility of VISIBILITIES) {
      const status = await postStatus(a, author, { status: mentions.join(" "), visibility });
      posted.set(visibility, status.id);
      // The same, held for approval (issue 34): none of the viewers decides.
      const waiting = await postStatus(a, author, { status: mentions.join(" "), visibility });
      held.set(visibility, waiting.id);
    }
    // Blocks written after posting: the mentions stay, as they do for a block made later.
    const db = a.rookery.ctx.database.db;
    await db.update(statuses).set({ pendingApproval: true })
      .where(inArray(statuses.id, [...held.values()]));
    for (const v of viewers) {
      if (v.block === "none") continue;
      const [from, to] = v.block === "blocks_author" ? [v.user, author] : [author, v.user];
      await db.insert(blocks).values({ id: newId(), accountId: from.id, targetAccountId: to.id });
    }

    const seen = async (who: TestUser | null, id: string) =>
      (await callJson(a, who, "GET", `/api/v1/statuses/${id}`)).status === 200;
    const cases: { who: string; user: TestUser | null; standing: ViewerStanding | null }[] = [
      { who: "anonymous", user: null, standing: null },
      {
        who: "author",
        user: author,
        standing: { author: true, follower: false, mentioned: false, blocked: false },
      },
      ...viewers.map((v) => ({
        who: v.user.username,
        user: v.user,
        standing: {
          author: false,
          follower: v.follower,
          mentioned: v.mentioned,
          blocked: v.block !== "none",
        },
      })),
    ];
    let checked = 0;
    for (const [visibility, id] of posted) {
      for (const c of cases) {
        assert.equal(
          await seen(c.user, id),
          maySee(visibility, c.standing),
          `${c.who} and a ${visibility} status`,
        );
        checked++;
      }
    }
    for (const [visibility, id] of held) {
      for (const c of cases) {
        assert.equal(
          await seen(c.user, id),
          maySee(visibility, c.standing, true),
          `${c.who} and a held ${visibility} status`,
        );
      }
    }
    assert.equal(checked, 4 * (2 + 12));
    // The rule is not trivially true or false: each visibility has its audience.
    assert.deepEqual(
      VISIBILITIES.map((v) => cases.filter((c) => maySee(v, c.standing)).length),
      [6, 6, 4, 3],
    );
  } finally {
    await a.close({ destroy: true });
  }
});
