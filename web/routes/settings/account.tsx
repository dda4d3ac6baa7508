/**
 * The account settings of the signed-in user (issue 20; Mastodon's
 * /auth/edit), behind the settings gate (./session.ts):
 * - GET /settings/account: the address (and one waiting for confirmation),
 *   the e-mail and password forms; GET /auth/edit leads here;
 * - POST /settings/account/email: actors/auth/credentials.ts changeEmail (the
 *   current password; the new address gets a confirmation link and replaces
 *   the old one only when it is followed; sign-up's rules and blocks);
 * - POST /settings/account/password: changePassword (the current password,
 *   sign-up's rules; every other session and every token ends, this browser
 *   stays signed in).
 * The current password is checked first (password_guess.ts: counted in the
 * account's sign-in limit; past it, 429); it is then the only problem
 * reported. A refusal answers 422 with the page, the problems beside their
 * fields.
 */
import { type Context, Hono } from "hono";
import { eq } from "drizzle-orm";
import type { ApiEnv } from "../../../api/env.ts";
import { type Params, params } from "../../../api/params.ts";
import { users } from "../../../db/schema/mod.ts";
import { PASSWORD_MIN } from "../../../actors/accounts/accounts.ts";
import { changeEmail, changePassword } from "../../../actors/auth/credentials.ts";
import { NotFoundError, ValidationError } from "../../../model/errors.ts";
import { type AccountFormState, AccountPage } from "../../pages/settings/account.tsx";
import { sendUserPage, settingsSession, userPage } from "./session.ts";
import { checkOwnPassword, passwordRefusal } from "./password_guess.ts";

const NOTICES: Record<string, string> = {
  email_pending:
    "A confirmation link was mailed to the new address. Your current address stays in use until you follow it.",
  email_unchanged: "Your e-mail address stays as it is; no change is waiting any more.",
  password_changed: "Your password was changed. Every other browser and every app was signed out.",
};

/** A text input of the form ("" when absent or not text), cut to `max` characters. */
function text(p: Params, key: string, max: number): string {
  const value = p[key];
  return typeof value === "string" ? value.slice(0, max) : "";
}

async function showPage(
  c: Context<ApiEnv>,
  options: { state?: AccountFormState; notice?: string; status?: 422 | 429 } = {},
): Promise<Response> {
  const { config, database } = c.get("ctx");
  const session = settingsSession(c);
  const [user] = await database.db.select({
    email: users.email,
    unconfirmedEmail: users.unconfirmedEmail,
  }).from(users).where(eq(users.id, session.user.userId)).limit(1);
  if (!user) throw new NotFoundError();
  return await sendUserPage(
    c,
    <AccountPage
      instanceTitle={config.instance.title}
      viewer={{ username: session.user.username, csrfToken: session.csrfToken }}
      email={user.email}
      pendingEmail={user.unconfirmedEmail}
      passwordMin={PASSWORD_MIN}
      state={options.state}
      notice={options.notice}
    />,
    options.status ?? (options.state ? 422 : 200),
  );
}

export function accountSettingsRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.use("/settings/account", userPage());
  app.use("/settings/account/*", userPage());

  app.get("/auth/edit", (c) => c.redirect("/settings/account", 301));

  app.get("/settings/account", async (c) => {
    return await showPage(c, { notice: NOTICES[c.req.query("notice") ?? ""] });
  });

  app.post("/settings/account/email", async (c) => {
    const p = await params(c);
    const email = text(p, "email", 400);
    const guess = await checkOwnPassword(
      c,
      settingsSession(c).user.userId,
      text(p, "current_password", 1000),
    );
    if (guess.outcome !== "ok") {
      const { errors, status } = passwordRefusal(guess, "current_password");
      return await showPage(c, { state: { form: "email", errors, email }, status });
    }
    let outcome;
    try {
      outcome = await changeEmail(c.get("ctx"), guess.confirmed, { email });
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      return await showPage(c, { state: { form: "email", errors: error.details, email } });
    }
    return c.redirect(`/settings/account?notice=email_${outcome}`, 303);
  });

  app.post("/settings/account/password", async (c) => {
    const p = await params(c);
    const session = settingsSession(c);
    const guess = await checkOwnPassword(
      c,
      session.user.userId,
      text(p, "current_password", 1000),
    );
    if (guess.outcome !== "ok") {
      const { errors, status } = passwordRefusal(guess, "current_password");
      return await showPage(c, { state: { form: "password", errors }, status });
    }
    try {
      await changePassword(c.get("ctx"), guess.confirmed, {
        keepSessionId: session.id,
        password: text(p, "password", 1000),
        confirmation: text(p, "password_confirmation", 1000),
      });
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      return await showPage(c, { state: { form: "password", errors: error.details } });
    }
    return c.redirect("/settings/account?notice=password_changed", 303);
  });

  return app;
}
