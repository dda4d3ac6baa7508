/**
 * /settings/otp_authentication: turning two-factor sign-in on and off
 * (actors/two_factor.ts). The secret waits on the browser session until the
 * first code confirms it; the recovery codes are shown once, in the answer
 * to that post, and never again.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { ApiEnv } from "../../env.ts";
import {
  disableOtp,
  enableOtp,
  otpauthUri,
  otpState,
  pendingSecret,
} from "../../../actors/two_factor.ts";
import {
  DisableOtpPage,
  EnableOtpPage,
  RecoveryCodesPage,
} from "../../pages/settings/two_factor.tsx";
import type { SettingsViewer } from "../../pages/settings/layout.tsx";
import { formField, formParams, sendAccountPage } from "./page.ts";
import { checkOwnPassword } from "../settings/password_guess.ts";
import { TOO_MANY_ATTEMPTS } from "../sign_in.ts";
import { settingsSession, userPage } from "../settings/session.ts";

export const WRONG_CONFIRMATION = "Invalid two-factor code. Check the app's clock and try again.";
export const WRONG_DISABLE = "Wrong password or code.";
const NOTICES: Record<string, string> = { disabled: "Two-factor sign-in is now off." };

function viewer(c: Context<ApiEnv>): SettingsViewer {
  const session = settingsSession(c);
  return { username: session.user.username, csrfToken: session.csrfToken };
}

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

  app.get("/settings/otp_authentication", (c) => {
    const notice = NOTICES[c.req.query("notice") ?? ""];
    return showPage(c, { notice });
  });

  app.post("/settings/otp_authentication", async (c) => {
    const { config, database } = c.get("ctx");
    const session = settingsSession(c);
    if ((await otpState(database.db, session.user.userId)).enabled) {
      return c.redirect("/settings/otp_authentication", 303);
    }
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
