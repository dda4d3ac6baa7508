/**
 * The links of subscription mails (actors/email_subscriptions/mails.ts):
 * - GET /email_subscriptions/confirm?token=… → a page with a button; its
 *   POST confirms (again: no change);
 * - GET /email_subscriptions/unsubscribe?token=… → a page with a button;
 *   its POST deletes the subscription. A mail client's one-click POST
 *   (body `List-Unsubscribe=One-Click`, RFC 8058) lands on the same POST.
 * A forged, expired or dead token → 404 page. The signed token is what
 * authorizes the POST (no session takes part), so no form token is asked.
 *
 * And the profile page's form (Mastodon 4.7's "Get new posts by e-mail"),
 * shown while the account takes subscriptions (actors/email_subscriptions/
 * gates.ts, the API route's gates): POST /@username/email_subscriptions
 * runs the API's command with the visitor's double-submit form token (the
 * sign-in form's cookie), so another site cannot post it from a browser.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ApiEnv } from "../../../api/env.ts";
import { NotFoundError, ValidationError } from "../../../model/errors.ts";
import {
  checkLink,
  confirmSubscription,
  subscribe,
  SubscriptionsThrottled,
  unsubscribe,
} from "../../../actors/email_subscriptions/subscriptions.ts";
import { subscribableAccount } from "../../../actors/email_subscriptions/gates.ts";
import { findLocalAccount } from "../../../federation/dispatchers/local_actors.ts";
import { localUris } from "../../../model/uris.ts";
import { signInCsrfToken } from "../auth/authorize_request.ts";
import { formField, formParams, formTokenMatches } from "../auth/page.ts";
import { MessagePage } from "../../pages/public/layout.tsx";
import type { EmailSubscriptionForm } from "../../pages/public/profile.tsx";
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

/** Where a profile's subscription form posts. */
function subscribePath(username: string): string {
  return `${localUris("").profile(username)}/email_subscriptions`;
}

/**
 * The profile page's subscription form for `account`, or null when it takes
 * no subscriptions. Gives the visitor a form token (setting its cookie when
 * the browser has none): the page is then the visitor's own.
 */
export async function subscriptionForm(
  c: Context<ApiEnv>,
  account: { id: string; username: string },
): Promise<EmailSubscriptionForm | null> {
  const { database, config } = c.get("ctx");
  if (!await subscribableAccount(database.db, config, account.id)) return null;
  return { action: subscribePath(account.username), csrfToken: signInCsrfToken(c) };
}

const SENT = "If the address can receive mail, a link to confirm the subscription is on its " +
  "way to it. Nothing is sent until it is confirmed.";
const FORM_EXPIRED = "This form expired. Please go back, reload the page and try again.";

/** A page with a sentence, for the form's answers (never stored by a cache). */
async function formAnswer(
  c: Context<ApiEnv>,
  status: ContentfulStatusCode,
  title: string,
  message: string,
): Promise<Response> {
  const instanceTitle = c.get("ctx").config.instance.title;
  return await sendPublicPage(c, MessagePage({ instanceTitle, title, message }), status, true);
}

/** Runs the API's command for the form; its refusals become pages. */
async function subscribeFromForm(c: Context<ApiEnv>): Promise<Response> {
  const ctx = c.get("ctx");
  const account = await findLocalAccount(ctx.database.db, c.req.param("handle")!.slice(1));
  if (!account) return await sendMessagePage(c, 404, "Not found", "There is no such account here.");
  const p = await formParams(c);
  if (!p || !formTokenMatches(c, p)) return await formAnswer(c, 403, "Form expired", FORM_EXPIRED);
  try {
    await subscribe(ctx, account.id, formField(p, "email", 400));
  } catch (error) {
    if (error instanceof NotFoundError) {
      return await sendMessagePage(c, 404, "Not found", "This account takes no subscriptions.");
    }
    if (error instanceof ValidationError) {
      return await formAnswer(c, 422, "Check the address", `${error.message}.`);
    }
    if (error instanceof SubscriptionsThrottled) {
      return await formAnswer(c, 429, "Too many requests", "Please try again later.");
    }
    throw error;
  }
  return await formAnswer(c, 200, "Check your inbox", SENT);
}

export function emailSubscriptionPageRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  routesFor(app, CONFIRM_PATH, "confirm");
  routesFor(app, UNSUBSCRIBE_PATH, "unsubscribe");
  app.post("/:handle{@[^/]+}/email_subscriptions", subscribeFromForm);
  return app;
}
