/**
 * The mails of e-mail subscriptions. Every one carries the list headers
 * (RFC 2369, RFC 8058 one-click unsubscribe) and says it was sent by a
 * machine, so mail providers treat it as the list mail it is.
 */
import type { AppContext } from "../../context.ts";
import { sendMail } from "../net/mailer.ts";
import { signLinkToken } from "./tokens.ts";
import type { SubscribableAccount } from "./gates.ts";

/** Where confirmation and unsubscribe links point (web/routes/public/email_subscriptions.ts). */
export const CONFIRM_PATH = "/email_subscriptions/confirm";
export const UNSUBSCRIBE_PATH = "/email_subscriptions/unsubscribe";

/** The header fields of every subscription mail. */
export function listHeaders(
  ctx: Pick<AppContext, "config">,
  account: SubscribableAccount,
  unsubscribeUrl: string,
): Record<string, string> {
  return {
    "List-ID": `<${account.username}.${ctx.config.domain}>`,
    "List-Unsubscribe": `<${unsubscribeUrl}>`,
    "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    "Auto-Submitted": "auto-generated",
  };
}

/** Mails the confirmation link of subscription `id` to `to`. */
export async function sendSubscriptionConfirmation(
  ctx: AppContext,
  account: SubscribableAccount,
  subscription: { id: string; email: string },
): Promise<void> {
  const { config, database } = ctx;
  const confirm = await signLinkToken(database.db, subscription.id, "confirm");
  const unsubscribe = await signLinkToken(database.db, subscription.id, "unsubscribe");
  const confirmUrl = `${config.origin}${CONFIRM_PATH}?token=${confirm}`;
  const unsubscribeUrl = `${config.origin}${UNSUBSCRIBE_PATH}?token=${unsubscribe}`;
  const name = account.displayName || account.username;
  const handle = `@${account.username}@${config.domain}`;
  await sendMail(ctx, {
    to: subscription.email,
    subject: `Confirm your subscription to ${name} (${handle})`,
    text: [
      `Someone, hopefully you, asked to get the new public posts of ${name} (${handle})`,
      `by e-mail at this address.`,
      "",
      "To confirm, follow this link (it works for 48 hours):",
      "",
      confirmUrl,
      "",
      "If you did not ask, ignore this mail: nothing more will be sent.",
      "",
    ].join("\n"),
    headers: listHeaders(ctx, account, unsubscribeUrl),
  });
}
