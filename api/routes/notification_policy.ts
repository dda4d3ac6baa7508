/**
 * The notification policy and its requests (user tokens), Mastodon 4.3:
 * - GET /api/v2/notifications/policy (read:notifications) → NotificationPolicy
 * - PATCH|PUT /api/v2/notifications/policy (write:notifications): for_not_following,
 *   for_not_followers, for_new_accounts, for_private_mentions, for_limited_accounts,
 *   each accept | filter | drop → NotificationPolicy
 * - GET, PATCH|PUT /api/v1/notifications/policy: the 4.3 betas' shape, `filter_*`
 *   booleans (true → filter, false → accept)
 * - GET /api/v1/notifications/requests (read:notifications) → NotificationRequest[],
 *   Link paging, limit 40 (max 80); `dismissed=true` lists dismissed ones instead
 * - GET /api/v1/notifications/requests/merged (read:notifications) → {merged: true}
 * - GET /api/v1/notifications/requests/:id (read:notifications) → NotificationRequest
 * - POST /api/v1/notifications/requests/:id/accept|dismiss (write:notifications) → {}
 * - POST /api/v1/notifications/requests/accept|dismiss, `id[]` (write:notifications) → {}
 *
 * Decisions:
 * - A policy value outside accept/filter/drop is a 422 with Mastodon's
 *   validation shape; nothing is changed. Unknown parameters are ignored.
 * - Someone else's request, a malformed id or a missing one is 404 "Record
 *   not found"; in the bulk calls such ids are ignored, as Mastodon does.
 * - Accepting is done before answering (no background merge), so `merged`
 *   is always true.
 * - These are mounted before the plain notification routes, whose `:id`
 *   would otherwise take `policy` and `requests` for notification ids.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { ApiEnv } from "../env.ts";
import { ApiError } from "../errors.ts";
import { type Params, params } from "../params.ts";
import { readBoolean, readStringArray } from "../readers.ts";
import { setLinkHeader } from "../pagination.ts";
import { readNotificationRequests } from "../reads/notification_requests.ts";
import { requireUser } from "../middleware/scopes.ts";
import { withValidation } from "../validation_errors.ts";
import { serializePolicyV1, serializePolicyV2 } from "../entities/notification_policy.ts";
import { serializeNotificationRequests } from "../entities/notification_request.ts";
import {
  type NotificationPolicy,
  POLICY_PARAMS,
  policyOf,
  type PolicyParam,
  updatePolicy,
} from "../../actors/notifications/policy.ts";
import {
  acceptRequests,
  dismissRequests,
  MAX_BULK_IDS,
} from "../../actors/notifications/requests.ts";
import { findNotificationRequest, pendingSummary } from "../../db/queries/notification_requests.ts";
import { NotFoundError } from "../../model/errors.ts";
import { viewerOf } from "./notifications.ts";

const NOT_FOUND = "Record not found";

/** v1's booleans, as the v2 values they stand for. */
const V1_PARAMS = {
  filter_not_following: "for_not_following",
  filter_not_followers: "for_not_followers",
  filter_new_accounts: "for_new_accounts",
  filter_private_mentions: "for_private_mentions",
} as const satisfies Record<string, PolicyParam>;

/** for_* values as sent (strings only; anything else is kept to fail validation). */
function v2Changes(p: Params): Partial<Record<PolicyParam, string>> {
  const changes: Partial<Record<PolicyParam, string>> = {};
  for (const param of Object.keys(POLICY_PARAMS) as PolicyParam[]) {
    const value = p[param];
    if (value === undefined || value === null) continue;
    changes[param] = typeof value === "string" ? value : JSON.stringify(value);
  }
  return changes;
}

function v1Changes(p: Params): Partial<Record<PolicyParam, string>> {
  const changes: Partial<Record<PolicyParam, string>> = {};
  for (const [v1, v2] of Object.entries(V1_PARAMS)) {
    const value = readBoolean(p, v1);
    if (value !== undefined) changes[v2] = value ? "filter" : "accept";
  }
  return changes;
}

type Serialize = typeof serializePolicyV2 | typeof serializePolicyV1;

async function policyJson(c: Context<ApiEnv>, policy: NotificationPolicy, serialize: Serialize) {
  const summary = await pendingSummary(c.get("ctx").database.db, viewerOf(c));
  return c.json(serialize(policy, summary));
}

/** GET and PATCH/PUT of one version of the policy. */
function policyRoutes(
  app: Hono<ApiEnv>,
  path: string,
  serialize: Serialize,
  changesOf: (p: Params) => Partial<Record<PolicyParam, string>>,
): void {
  app.get(path, requireUser("read:notifications"), async (c) => {
    const policy = await policyOf(c.get("ctx").database.db, viewerOf(c));
    return await policyJson(c, policy, serialize);
  });
  const update = async (c: Context<ApiEnv>) => {
    const changes = changesOf(await params(c));
    const policy = await withValidation(() =>
      updatePolicy(c.get("ctx").database.db, viewerOf(c), changes)
    );
    return await policyJson(c, policy, serialize);
  };
  app.patch(path, requireUser("write:notifications"), update);
  app.put(path, requireUser("write:notifications"), update);
}

/** Runs a request command in one transaction; NotFoundError → 404. */
async function command(
  c: Context<ApiEnv>,
  run: typeof acceptRequests,
  ids: readonly string[],
  single: boolean,
): Promise<Response> {
  try {
    await c.get("ctx").database.db.transaction((tx) => run(tx, viewerOf(c), ids, { single }));
  } catch (error) {
    if (error instanceof NotFoundError) throw new ApiError(404, NOT_FOUND);
    throw error;
  }
  return c.json({});
}

/** id[] of a bulk call (at most {@link MAX_BULK_IDS} are read). */
function bulkIds(p: Params): string[] {
  return (readStringArray(p, "id") ?? []).slice(0, MAX_BULK_IDS);
}

/** The policy and request routes, mounted at the root of the app. */
export function notificationPolicyRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const read = requireUser("read:notifications");
  const write = requireUser("write:notifications");

  for (const prefix of ["/api/v2", "/api/v2_alpha"]) {
    policyRoutes(app, `${prefix}/notifications/policy`, serializePolicyV2, v2Changes);
  }
  policyRoutes(app, "/api/v1/notifications/policy", serializePolicyV1, v1Changes);

  const base = "/api/v1/notifications/requests";
  app.get(base, read, async (c) => {
    const requests = await readNotificationRequests(c.get("ctx"), viewerOf(c), await params(c));
    setLinkHeader(c, requests.cursors);
    return c.json(requests.items);
  });

  app.get(`${base}/merged`, read, (c) => c.json({ merged: true }));

  app.post(
    `${base}/accept`,
    write,
    async (c) => await command(c, acceptRequests, bulkIds(await params(c)), false),
  );
  app.post(
    `${base}/dismiss`,
    write,
    async (c) => await command(c, dismissRequests, bulkIds(await params(c)), false),
  );

  app.get(`${base}/:id`, read, async (c) => {
    const ctx = c.get("ctx");
    const row = await findNotificationRequest(ctx.database.db, viewerOf(c), c.req.param("id"));
    const [json] = row ? await serializeNotificationRequests(ctx, [row], viewerOf(c)) : [];
    if (!json) throw new ApiError(404, NOT_FOUND);
    return c.json(json);
  });
  app.post(
    `${base}/:id/accept`,
    write,
    async (c) => await command(c, acceptRequests, [c.req.param("id")], true),
  );
  app.post(
    `${base}/:id/dismiss`,
    write,
    async (c) => await command(c, dismissRequests, [c.req.param("id")], true),
  );

  return app;
}
