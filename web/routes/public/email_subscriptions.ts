/**
 * The links of subscription mails (actors/email_subscriptions/mails.ts):
 * - GET /email_subscriptions/confirm?token=… → a page with a button; its
 *   POST confirms (again: no change);
 * - GET /email_subscriptions/unsubscribe?token=… → a page with a button;
 *   its POST deletes the subscription. A mail client's one-click POST
 *   (body `List-Unsubscribe=One-Click`, RFC 8058) lands on the same POST.
 * A forged, expired or dead token → 404 page. The signed token is what
 * authorizes the POST (no session takes part), so no form token is asked.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { ApiEnv } from "../../../api/env.ts";
import { NotFoundError } from "../../../model/errors.ts";
import {
  checkLink,
  confirmSubscription,
  unsubscribe,
} from "../../../actors/email_subscriptions/subscriptions.ts";
import { CONFIRM_PATH, UNSUBSCRIBE_PATH } from "../../../actors/email_subscriptions/mails.ts";
import {
  SubscriptionDonePage,
  SubscriptionLinkPage,
} from "../../pages/public/email_subscription.tsx";
import { sendMessagePage, sendPublicPage } from "./public_page_kit.ts";

type Purpose = "confirm" | "unsubscribe";

const ACTIONS: Record<
  Purpose,
  (c: Context<ApiEnv>, token: string) => Promise<{ username: string }>
> = {
  confirm: (c, token) => confirmSubscription(c.get("ctx"), token),
  unsubscribe: (c, token) => unsubscribe(c.get("ctx"), token),
};

async function deadLink(c: Context<ApiEnv>, error: unknown): Promise<Response> {
  if (!(error instanceof NotFoundError)) throw error;
  return await sendMessagePage(c, 404, "Not found", "This link does not work any more.");
}

function routesFor(app: Hono<ApiEnv>, path: string, purpose: Purpose): void {
  app.get(path, async (c) => {
    const token = c.req.query("token") ?? "";
    const instanceTitle = c.get("ctx").config.instance.title;
    try {
      const { username } = await checkLink(c.get("ctx"), token, purpose);
      const action = `${path}?token=${encodeURIComponent(token)}`;
      return await sendPublicPage(
        c,
        SubscriptionLinkPage({ purpose, username, action, instanceTitle }),
      );
    } catch (error) {
      return await deadLink(c, error);
    }
  });
  app.post(path, async (c) => {
    const token = c.req.query("token") ?? "";
    const instanceTitle = c.get("ctx").config.instance.title;
    try {
      const { username } = await ACTIONS[purpose](c, token);
      return await sendPublicPage(c, SubscriptionDonePage({ purpose, username, instanceTitle }));
    } catch (error) {
      return await deadLink(c, error);
    }
  });
}

export function emailSubscriptionPageRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  routesFor(app, CONFIRM_PATH, "confirm");
  routesFor(app, UNSUBSCRIBE_PATH, "unsubscribe");
  return app;
}
