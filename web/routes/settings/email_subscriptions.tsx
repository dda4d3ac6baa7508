/**
 * /settings/email_subscriptions (Mastodon 4.7): the owner turns e-mail
 * subscriptions to their posts on or off, sees the number of confirmed
 * subscribers and may remove them all. The switch is offered only when the
 * operator, an admin and the role allow subscriptions
 * (actors/email_subscriptions/gates.ts); otherwise the page says so.
 */
import { type Context, Hono } from "hono";
import type { ApiEnv } from "../../../api/env.ts";
import { formField, formParams, sendAccountPage } from "../auth/page.ts";
import { settingsSession, userPage } from "./session.ts";
import { subscriptionGates } from "../../../actors/email_subscriptions/gates.ts";
import {
  confirmedSubscriberCount,
  removeAllSubscribers,
  setSubscriptionsEnabled,
} from "../../../actors/email_subscriptions/owner.ts";
import { EmailSubscriptionsPage } from "../../pages/settings/email_subscriptions.tsx";

const PATH = "/settings/email_subscriptions";
const NOTICES: Record<string, string> = {
  on: "E-mail subscriptions are on.",
  off: "E-mail subscriptions are off.",
  removed: "Every subscriber was removed.",
};

async function showPage(c: Context<ApiEnv>): Promise<Response> {
  const { config, database } = c.get("ctx");
  const session = settingsSession(c);
  const gates = await subscriptionGates(database.db, config, session.user.accountId);
  const state = gates
    ? {
      enabled: gates.optedIn,
      subscribers: await confirmedSubscriberCount(database.db, session.user.accountId),
    }
    : null;
  return await sendAccountPage(
    c,
    <EmailSubscriptionsPage
      instanceTitle={config.instance.title}
      viewer={{ username: session.user.username, csrfToken: session.csrfToken }}
      state={state}
      notice={NOTICES[c.req.query("notice") ?? ""]}
    />,
  );
}

export function emailSubscriptionSettingsRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.use(PATH, userPage());
  app.use(`${PATH}/*`, userPage());

  app.get(PATH, showPage);

  app.post(PATH, async (c) => {
    const { config, database } = c.get("ctx");
    const session = settingsSession(c);
    if (!await subscriptionGates(database.db, config, session.user.accountId)) {
      return await showPage(c);
    }
    const enabled = formField((await formParams(c)) ?? {}, "enabled", 10) === "1";
    await setSubscriptionsEnabled(database.db, session.user.userId, enabled);
    return c.redirect(`${PATH}?notice=${enabled ? "on" : "off"}`, 303);
  });

  app.post(`${PATH}/remove_all`, async (c) => {
    const { database } = c.get("ctx");
    await removeAllSubscribers(database.db, settingsSession(c).user.accountId);
    return c.redirect(`${PATH}?notice=removed`, 303);
  });

  return app;
}
