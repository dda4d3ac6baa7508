/**
 * /settings/delete: a signed-in user deletes their own account, as
 * Mastodon's Settings::DeletesController: the password confirms it (with
 * two-factor sign-in on, the password alone, as Mastodon), then the same
 * command as the admin's `account delete` (actors/moderation/local_users.ts
 * deleteLocalAccount: a tombstone that keeps the name taken forever, every
 * token and session gone, Delete(Person) to the servers that know the
 * account), and the browser is signed out.
 */
import { type Context, Hono } from "hono";
import type { ApiEnv } from "../../../api/env.ts";
import { formField, formParams, sendAccountPage } from "../auth/page.ts";
import { endSession } from "../auth/authorize_request.ts";
import { settingsSession, userPage } from "./session.ts";
import { checkOwnPassword, passwordRefusal } from "./password_guess.ts";
import { deleteLocalAccount } from "../../../actors/moderation/local_users.ts";
import { flushDiscardedMedia } from "../../../actors/media/discarded.ts";
import { NotFoundError } from "../../../model/errors.ts";
import { type FieldErrors, MessagePage } from "../../pages/auth/layout.tsx";
import { DeleteAccountPage } from "../../pages/settings/deletion.tsx";

async function deletePage(
  c: Context<ApiEnv>,
  options: { errors?: FieldErrors; status?: 200 | 422 | 429 } = {},
): Promise<Response> {
  const { config } = c.get("ctx");
  const session = settingsSession(c);
  return await sendAccountPage(
    c,
    <DeleteAccountPage
      instanceTitle={config.instance.title}
      viewer={{ username: session.user.username, csrfToken: session.csrfToken }}
      domain={config.domain}
      errors={options.errors}
    />,
    options.status ?? 200,
  );
}

export function deletionSettingsRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.use("/settings/delete", userPage());

  app.get("/settings/delete", async (c) => await deletePage(c));

  app.post("/settings/delete", async (c) => {
    const ctx = c.get("ctx");
    const session = settingsSession(c);
    const p = (await formParams(c)) ?? {};
    const guess = await checkOwnPassword(c, session.user.userId, formField(p, "password", 1000));
    if (guess.outcome !== "ok") return await deletePage(c, passwordRefusal(guess, "password"));
    try {
      await deleteLocalAccount(ctx.database.db, session.user.username);
    } catch (error) {
      // A second click that raced the first: the account is gone all the same.
      if (!(error instanceof NotFoundError)) throw error;
    }
    // Its media files leave the store now that the deletion committed.
    await flushDiscardedMedia(ctx.database.db, ctx.media);
    // The user row went, and its sessions with it; the browser forgets its cookie.
    await endSession(c, session);
    return await sendAccountPage(
      c,
      <MessagePage
        title="Account deleted"
        instanceTitle={ctx.config.instance.title}
        text={`The account @${session.user.username} was deleted. Servers that knew it are being told.`}
        links={[{ href: "/", label: "Home" }]}
      />,
    );
  });

  return app;
}
