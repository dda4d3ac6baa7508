/**
 * Web Push subscription of the request's access token (user token + `push`):
 * - POST /api/v1/push/subscription: subscription[endpoint],
 *   subscription[keys][p256dh], subscription[keys][auth],
 *   subscription[standard], data[alerts][<alert>], data[policy] → the
 *   WebPushSubscription; replaces the token's older one; 422 for a bad
 *   endpoint or key.
 * - GET → the token's subscription, or 404.
 * - PUT: data[alerts][…], data[policy] (both replaced) → the subscription, or 404.
 * - DELETE → {} (also when there was none).
 * Delivery is jobs/web_push/deliver.ts.
 */
import { type Context, Hono } from "hono";
import type { ApiEnv } from "../env.ts";
import { ApiError } from "../errors.ts";
import { type Params, params } from "../params.ts";
import { readBoolean, readObject, readPermittedObject, readString } from "../readers.ts";
import { requireUser } from "../middleware/scopes.ts";
import { bearerToken } from "../middleware/auth.ts";
import { withValidation } from "../validation_errors.ts";
import { webPushSubscriptionEntity } from "../entities/web_push_subscription.ts";
import { NotFoundError } from "../../model/errors.ts";
import { PENDING_ALERT_BASES, PUSH_ALERTS } from "../../model/notification_types.ts";
import { vapidKeys } from "../../actors/push/vapid.ts";
import {
  findSubscription,
  type PushData,
  type PushSubscriptionRow,
  subscribe,
  unsubscribe,
  updateSubscriptionData,
} from "../../actors/push/subscriptions.ts";

const PATH = "/api/v1/push/subscription";

/** `data[alerts][…]` and `data[policy]` (a top-level `policy` too, as some libraries send it). */
function readData(p: Params): PushData {
  // Optional hashes: a scalar in their place is dropped, as Rails permits them.
  const data = readPermittedObject(p, "data") ?? {};
  const given = readPermittedObject(data, "alerts") ?? {};
  const alerts: Record<string, boolean> = {};
  for (const alert of PUSH_ALERTS) {
    const base = PENDING_ALERT_BASES[alert];
    alerts[alert] = readBoolean(given, alert) ?? (base ? readBoolean(given, base) : undefined) ??
      false;
  }
  const policy = readString(data, "policy", { maxLength: 20 }) ??
    readString(p, "policy", { maxLength: 20 });
  return { alerts, policy };
}

async function entity(c: Context<ApiEnv>, row: PushSubscriptionRow) {
  const { serverKey } = await vapidKeys(c.get("ctx"));
  return c.json(webPushSubscriptionEntity(row, serverKey));
}

async function orNotFound<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await withValidation(fn);
  } catch (error) {
    if (error instanceof NotFoundError) throw new ApiError(404, "Record not found");
    throw error;
  }
}

/** The push subscription routes, mounted at the root of the app. */
export function pushRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.post(PATH, requireUser("push"), async (c) => {
    const p = await params(c);
    const subscription = readObject(p, "subscription") ?? {};
    const keys = readObject(subscription, "keys") ?? {};
    const { config, database } = c.get("ctx");
    const token = c.get("token")!;
    const row = await orNotFound(() =>
      subscribe(database.db, {
        tokenId: token.id,
        userId: token.userId!,
        token: bearerToken(c.req.raw)!,
        role: c.get("user")!.role,
      }, {
        endpoint: readString(subscription, "endpoint", { maxLength: 4096 }),
        p256dh: readString(keys, "p256dh", { maxLength: 200 }),
        auth: readString(keys, "auth", { maxLength: 100 }),
        standard: readBoolean(subscription, "standard"),
        data: readData(p),
      }, { allowHttp: config.allowPrivateAddress })
    );
    return await entity(c, row);
  });

  app.get(PATH, requireUser("push"), async (c) => {
    const row = await findSubscription(c.get("ctx").database.db, c.get("token")!.id);
    if (!row) throw new ApiError(404, "Record not found");
    return await entity(c, row);
  });

  app.on(["PUT", "PATCH"], PATH, requireUser("push"), async (c) => {
    const data = readData(await params(c));
    const row = await orNotFound(() =>
      updateSubscriptionData(c.get("ctx").database.db, {
        tokenId: c.get("token")!.id,
        role: c.get("user")!.role,
      }, data)
    );
    return await entity(c, row);
  });

  app.delete(PATH, requireUser("push"), async (c) => {
    await unsubscribe(c.get("ctx").database.db, c.get("token")!.id);
    return c.json({});
  });

  return app;
}
