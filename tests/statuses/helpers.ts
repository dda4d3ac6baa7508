/**
 * Set-up of the status tests beyond tests/fixtures (users, API calls, media
 * rows): follows written straight into the database.
 */
import { newId } from "../../db/ids.ts";
import { follows } from "../../db/schema/mod.ts";
import type { TestInstance } from "../harness.ts";
import type { TestUser } from "../fixtures/users.ts";

/** Makes `follower` an accepted follower of `target` (directly in the database). */
export async function makeFollower(instance: TestInstance, follower: TestUser, target: TestUser) {
  await instance.rookery.ctx.database.db.insert(follows).values({
    id: newId(),
    accountId: follower.id,
    targetAccountId: target.id,
  });
}
