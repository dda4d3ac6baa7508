/**
 * The moving pages of the settings (issue 20), through the same commands as
 * the admin command line (actors/accounts/moves.ts; handles resolved by
 * federation/remote/move_accounts.ts):
 * - GET /settings/aliases: the aliases; POST /settings/aliases adds one (a
 *   handle that must resolve to an account), POST /settings/aliases/remove
 *   unlinks one (an unlisted one: 404);
 * - GET /settings/migration: the current redirect and the move form;
 *   POST /settings/migration moves (current password; the target, fetched
 *   fresh, must list us; once in 30 days); POST /settings/migration/cancel
 *   cancels the redirect.
 * Refusals answer the page again with the field's error (422, 429 when the
 * password guesses ran out).
 */
import { type Context, Hono } from "hono";
import type { ApiEnv } from "../../../api/env.ts";
import { formField, formParams, sendAccountPage } from "../auth/page.ts";
import { settingsSession, userPage } from "./session.ts";
import { checkOwnPassword, passwordRefusal } from "./password_guess.ts";
import {
  addAlias,
  cancelRedirect,
  listAliases,
  migrationState,
  moveLocalAccount,
  removeAlias,
} from "../../../actors/accounts/moves.ts";
import { NotFoundError, ValidationError } from "../../../model/errors.ts";
import { accountByHandle } from "../../../federation/remote/move_accounts.ts";
import { type FieldErrors, MessagePage } from "../../pages/auth/layout.tsx";
import { AliasesPage, MigrationPage } from "../../pages/settings/moving.tsx";

/** Handles are short; anything longer is refused before any lookup. */
const MAX_HANDLE = 300;

const NOTICES: Record<string, string> = {
  added: "The alias was created.",
  removed: "The alias was unlinked.",
  moved: "Your account moved: your followers are being moved to the new account.",
  cancelled: "The redirect was cancelled: this account can post again.",
};

type Status = 200 | 404 | 422 | 429;

function viewerOf(c: Context<ApiEnv>) {
  const session = settingsSession(c);
  return { username: session.user.username, csrfToken: session.csrfToken };
}

function fieldError(description: string): FieldErrors {
  return { handle: [{ error: "ERR_INVALID", description }] };
}

/** A refusal of the actors' rules, named after the form's field. */
function asFieldErrors(error: ValidationError): FieldErrors {
  const { acct, ...rest } = error.details;
  return acct ? { ...rest, handle: acct } : rest;
}

type PageOptions = { errors?: FieldErrors; handle?: string; status?: Status };

/** What both moving pages show whatever they are: the viewer, the notice or the refusal. */
function commonProps(c: Context<ApiEnv>, options: PageOptions) {
  return {
    instanceTitle: c.get("ctx").config.instance.title,
    viewer: viewerOf(c),
    notice: options.errors ? undefined : NOTICES[c.req.query("notice") ?? ""],
    errors: options.errors,
    handle: options.handle,
  };
}

async function aliasesPage(c: Context<ApiEnv>, options: PageOptions = {}): Promise<Response> {
  const { config, database } = c.get("ctx");
  const session = settingsSession(c);
  return await sendAccountPage(
    c,
    <AliasesPage
      {...commonProps(c, options)}
      aliases={await listAliases(database.db, session.user.accountId)}
      selfHandle={`${session.user.username}@${config.domain}`}
    />,
    options.status ?? 200,
  );
}

async function migrationPage(c: Context<ApiEnv>, options: PageOptions = {}): Promise<Response> {
  const state = await migrationState(c.get("ctx").database.db, settingsSession(c).user.accountId);
  return await sendAccountPage(
    c,
    <MigrationPage {...commonProps(c, options)} redirect={state.redirect} selfUri={state.uri} />,
    options.status ?? 200,
  );
}

/** The handle typed in the form, or a refusal when there is none or it is too long. */
function typedHandle(p: Record<string, unknown>): { handle: string; errors?: FieldErrors } {
  const raw = typeof p.handle === "string" ? p.handle.trim() : "";
  if (!raw) return { handle: "", errors: fieldError("can't be blank") };
  if (raw.length > MAX_HANDLE) {
    return { handle: raw.slice(0, MAX_HANDLE), errors: fieldError("is too long") };
  }
  return { handle: raw };
}

/** What the form says when a handle does not lead to an account. */
const UNRESOLVED = "could not be found: check the handle and that its server answers";

/** POST /settings/aliases: adds the alias the handle names. */
async function postAlias(c: Context<ApiEnv>): Promise<Response> {
  const ctx = c.get("ctx");
  const { handle, errors } = typedHandle((await formParams(c)) ?? {});
  if (errors) return await aliasesPage(c, { errors, handle, status: 422 });
  const alias = await accountByHandle(ctx, handle, false);
  if (!alias) return await aliasesPage(c, { errors: fieldError(UNRESOLVED), handle, status: 422 });
  try {
    await addAlias(ctx, settingsSession(c).user.accountId, alias);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return await aliasesPage(c, { errors: asFieldErrors(error), handle, status: 422 });
  }
  return c.redirect("/settings/aliases?notice=added", 303);
}

/** POST /settings/aliases/remove: unlinks one (an unlisted one: 404). */
async function postAliasRemoval(c: Context<ApiEnv>): Promise<Response> {
  const p = (await formParams(c)) ?? {};
  const uri = formField(p, "uri", 2048);
  const removed = uri !== "" &&
    await removeAlias(c.get("ctx"), settingsSession(c).user.accountId, uri);
  if (removed) return c.redirect("/settings/aliases?notice=removed", 303);
  return await sendAccountPage(
    c,
    <MessagePage
      title="Not found"
      instanceTitle={c.get("ctx").config.instance.title}
      text="That account is not one of your aliases."
      alert
      links={[{ href: "/settings/aliases", label: "Back to the aliases" }]}
    />,
    404,
  );
}

/** POST /settings/migration: moves to the account the handle names (current password). */
async function postMigration(c: Context<ApiEnv>): Promise<Response> {
  const ctx = c.get("ctx");
  const session = settingsSession(c);
  const p = (await formParams(c)) ?? {};
  const { handle, errors } = typedHandle(p);
  if (errors) return await migrationPage(c, { errors, handle, status: 422 });
  const guess = await checkOwnPassword(
    c,
    session.user.userId,
    formField(p, "current_password", 1000),
  );
  if (guess.outcome !== "ok") {
    return await migrationPage(c, { ...passwordRefusal(guess, "current_password"), handle });
  }
  // Fresh: the target's aliases must be what its server says now.
  const target = await accountByHandle(ctx, handle, true);
  if (!target) {
    return await migrationPage(c, { errors: fieldError(UNRESOLVED), handle, status: 422 });
  }
  try {
    await moveLocalAccount(ctx, session.user.accountId, target.id);
  } catch (error) {
    const refused = error instanceof NotFoundError
      ? fieldError("could not be found")
      : error instanceof ValidationError
      ? asFieldErrors(error)
      : null;
    if (!refused) throw error;
    return await migrationPage(c, { errors: refused, handle, status: 422 });
  }
  return c.redirect("/settings/migration?notice=moved", 303);
}

export function movingSettingsRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  for (const path of ["/settings/aliases", "/settings/migration"]) {
    app.use(path, userPage());
    app.use(`${path}/*`, userPage());
  }
  app.get("/settings/aliases", async (c) => await aliasesPage(c));
  app.post("/settings/aliases", postAlias);
  app.post("/settings/aliases/remove", postAliasRemoval);
  app.get("/settings/migration", async (c) => await migrationPage(c));
  app.post("/settings/migration", postMigration);
  app.post("/settings/migration/cancel", async (c) => {
    await cancelRedirect(c.get("ctx"), settingsSession(c).user.accountId);
    return c.redirect("/settings/migration?notice=cancelled", 303);
  });
  return app;
}
