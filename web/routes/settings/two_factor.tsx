/**
 * /settings/otp_authentication: turning two-factor sign-in on and off
 * (actors/auth/two_factor.ts). Setting it up first asks for the password, unless
 * this browser session confirmed it within the hour (Mastodon's challenge:
 * actors/auth/password_challenge.ts), so a stolen session cannot tie the account
 * to someone else's app. The secret waits on the browser session until the
 * first code confirms it; the recovery codes are shown once, in the answer
 * to that post, and never again.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { ApiEnv } from "../../../api/env.ts";
import {
  disableOtp,
  enableOtp,
  otpauthUri,
  otpState,
  pendingSecret,
} from "../../../actors/auth/two_factor.ts";
import {
  DisableOtpPage,
  EnableOtpPage,
  RecoveryCodesPage,
} from "../../pages/settings/two_factor.tsx";
import type { SettingsViewer } from "../../pages/settings/layout.tsx";
import { PasswordChallengePage } from "../../pages/settings/challenge.tsx";
import type { FieldErrors } from "../../pages/auth/layout.tsx";
import { formField, formParams, sendAccountPage } from "../auth/page.ts";
import { checkOwnPassword, passwordRefusal } from "./password_guess.ts";
import { roleRequiresTwoFactor } from "../../../actors/auth/two_factor_policy.ts";
import { challengePassedRecently, passChallenge } from "../../../actors/auth/password_challenge.ts";
import { TOO_MANY_ATTEMPTS } from "../auth/sign_in.ts";
import { settingsSession, userPage } from "./session.ts";

export const WRONG_CONFIRMATION = "Invalid two-factor code. Check the app's clock and try again.";
export const WRONG_DISABLE = "Wrong password or code.";
const ROLE_REQUIRES_TWO_FACTOR = "Your role requires two-factor sign-in: it cannot be turned off.";
const NOTICES: Record<string, string> = { disabled: "Two-factor sign-in is now off." };
const PAGE_PATH = "/settings/otp_authentication";
const CHALLENGE_PATH = "/settings/otp_authentication/challenge";

function viewer(c: Context<ApiEnv>): SettingsViewer {
  const session = settingsSession(c);
  return { username: session.user.username, csrfToken: session.csrfToken };
}

/** The password asked before the set-up page (403 when a post skipped it). */
async function challengePage(
  c: Context<ApiEnv>,
  options: { errors?: FieldErrors; status?: 200 | 403 | 422 | 429; notice?: string } = {},
) {
  const { config } = c.get("ctx");
  return await sendAccountPage(
    c,
    <PasswordChallengePage
      instanceTitle={config.instance.title}
      viewer={viewer(c)}
      section="otp"
      action={CHALLENGE_PATH}
      purpose="set up two-factor sign-in"
      errors={options.errors}
      notice={options.notice}
    />,
    options.status ?? 200,
  );
}

/** Whether this session may see the set-up page: it confirmed the password within the hour. */
function mayEnable(c: Context<ApiEnv>): Promise<boolean> {
  return challengePassedRecently(c.get("ctx").database.db, settingsSession(c).id);
}

/** The page for the account's state; its caller checked the challenge when it is off. */
async function showPage(
  c: Context<ApiEnv>,
  options: { error?: string; status?: 200 | 401 | 422 | 429; notice?: string } = {},
) {
  const { config, database } = c.get("ctx");
  const session = settingsSession(c);
  const state = await otpState(database.db, session.user.userId);
  const common = { instanceTitle: config.instance.title, viewer: viewer(c), error: options.error };
  if (state.enabled) {
    return await sendAccountPage(
      c,
      <DisableOtpPage
        {...common}
        recoveryCodesLeft={state.recoveryCodesLeft}
        notice={options.notice}
      />,
      options.status ?? 200,
    );
  }
  const secret = await pendingSecret(database.db, session.id);
  const uri = otpauthUri(
    secret,
    `${session.user.username}@${config.domain}`,
    config.instance.title,
  );
  return await sendAccountPage(
    c,
    <EnableOtpPage {...common} secret={secret} uri={uri} />,
    options.status ?? 200,
  );
}

export function twoFactorSettingsRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.use("/settings/otp_authentication", userPage());
  app.use("/settings/otp_authentication/*", userPage());

  app.get("/settings/otp_authentication", async (c) => {
    const { database } = c.get("ctx");
    const notice = NOTICES[c.req.query("notice") ?? ""];
    const { enabled } = await otpState(database.db, settingsSession(c).user.userId);
    if (!enabled && !await mayEnable(c)) return await challengePage(c, { notice });
    return await showPage(c, { notice });
  });

  app.post(CHALLENGE_PATH, async (c) => {
    const { database } = c.get("ctx");
    const session = settingsSession(c);
    const p = (await formParams(c))!;
    const password = formField(p, "current_password", 1000);
    const guess = await checkOwnPassword(c, session.user.userId, password);
    if (guess.outcome !== "ok") {
      return await challengePage(c, passwordRefusal(guess, "current_password"));
    }
    await passChallenge(database.db, session.id, guess.confirmed);
    return c.redirect(PAGE_PATH, 303);
  });

  app.post("/settings/otp_authentication", async (c) => {
    const { config, database } = c.get("ctx");
    const session = settingsSession(c);
    if ((await otpState(database.db, session.user.userId)).enabled) {
      return c.redirect(PAGE_PATH, 303);
    }
    // The set-up page was never shown to this session, or an hour ago.
    if (!await mayEnable(c)) return await challengePage(c, { status: 403 });
    const p = (await formParams(c))!;
    const codes = await enableOtp(
      database.db,
      session.id,
      session.user.userId,
      formField(p, "otp_attempt", 100),
    );
    if (!codes) return await showPage(c, { error: WRONG_CONFIRMATION, status: 422 });
    return await sendAccountPage(
      c,
      <RecoveryCodesPage instanceTitle={config.instance.title} viewer={viewer(c)} codes={codes} />,
    );
  });

  app.post("/settings/otp_authentication/disable", async (c) => {
    const { database } = c.get("ctx");
    const session = settingsSession(c);
    const p = (await formParams(c))!;
    if (await roleRequiresTwoFactor(database.db, session.user.userId)) {
      return await showPage(c, { error: ROLE_REQUIRES_TWO_FACTOR, status: 422 });
    }
    const guess = await checkOwnPassword(c, session.user.userId, formField(p, "password", 1000));
    if (guess.outcome === "limited") {
      return await showPage(c, { error: TOO_MANY_ATTEMPTS, status: 429 });
    }
    const ok = guess.outcome === "ok" &&
      await disableOtp(database.db, guess.confirmed, formField(p, "otp_attempt", 100));
    if (!ok) return await showPage(c, { error: WRONG_DISABLE, status: 422 });
    return c.redirect("/settings/otp_authentication?notice=disabled", 303);
  });

  return app;
}
