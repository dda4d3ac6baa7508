/**
 * The profile settings of the signed-in user (issue 20), behind the settings
 * gate (./session.ts: a browser session, the form token on every POST):
 * - GET /settings/profile: the form, filled from the CredentialAccount the
 *   API's verify_credentials answers;
 * - POST /settings/profile (multipart): saves through actors/accounts/profile.ts
 *   updateProfile, the command of PATCH /api/v1/accounts/update_credentials,
 *   so the limits, the image processing and the Update(Person) to followers
 *   are the API's; a refusal answers 422 with the page, each problem next to
 *   its field and the form as typed;
 * - POST /settings/profile/:kind/remove (avatar or header): removeProfileImage,
 *   the command of DELETE /api/v1/profile/{avatar,header};
 * - GET /settings: a permanent redirect here, the first settings page, as
 *   Mastodon sends /settings to /settings/profile.
 *
 * Besides the account's switches, the form holds the user's `noindex`
 * setting (keep search engines off the profile and post pages), which
 * Mastodon changes only from its settings pages, not `update_credentials`.
 *
 * The form sends every switch: an unchecked box is absent, which reads as
 * off (so a hand-made post without them turns them off, as a form would).
 */
import { type Context, Hono } from "hono";
import type { ApiEnv } from "../../../api/env.ts";
import { ApiError } from "../../../api/errors.ts";
import { type Params, params } from "../../../api/params.ts";
import { readBoolean, readFile, readString } from "../../../api/readers.ts";
import {
  type CredentialAccount,
  loadCredentialAccount,
} from "../../../api/entities/credential_account.ts";
import { readFields } from "../../../api/routes/accounts_own.ts";
import { DEFAULT_AVATAR_PATH, DEFAULT_HEADER_PATH } from "../../../api/routes/static_images.ts";
import {
  PROFILE_LIMITS,
  type ProfileUpdate,
  removeProfileImage,
  updateProfile,
} from "../../../actors/accounts/profile.ts";
import { NotFoundError, ValidationError } from "../../../model/errors.ts";
import { type FieldErrors, MessagePage } from "../../pages/auth/layout.tsx";
import { type ProfileForm, ProfilePage } from "../../pages/settings/profile.tsx";
import { sendUserPage, settingsSession, userPage } from "./session.ts";

/** Longest text read from any one input before the command's own limits. */
const MAX_INPUT_LENGTH = 10_000;

const NOTICES: Record<string, string> = {
  saved: "Your profile was saved.",
  avatar_removed: "Your avatar was removed.",
  header_removed: "Your header was removed.",
};

async function storedProfile(c: Context<ApiEnv>): Promise<CredentialAccount> {
  const { database, mediaUrls } = c.get("ctx");
  const entity = await loadCredentialAccount(
    database.db,
    mediaUrls,
    settingsSession(c).user.accountId,
  );
  if (!entity) throw new NotFoundError();
  return entity;
}

/** The form as stored: the plain text the user typed, rows padded to the server's limit. */
function storedForm(entity: CredentialAccount, maxFields: number): ProfileForm {
  const fields = entity.source.fields.map((f) => ({
    name: f.name,
    value: f.value,
    verifiedAt: f.verified_at,
  }));
  return {
    displayName: entity.display_name,
    note: entity.source.note,
    fields: padFields(fields, maxFields),
    locked: entity.locked,
    bot: entity.bot,
    discoverable: entity.source.discoverable,
    indexable: entity.source.indexable,
    hideCollections: entity.source.hide_collections,
    noindex: entity.noindex === true,
  };
}

function padFields(fields: ProfileForm["fields"], maxFields: number): ProfileForm["fields"] {
  const rows = [...fields];
  while (rows.length < maxFields) rows.push({ name: "", value: "", verifiedAt: null });
  return rows;
}

/**
 * The posted form as the command's input and as the form to show again.
 * Throws ApiError (422) for values of the wrong shape (a hand-made post).
 */
function readForm(
  p: Params,
  entity: CredentialAccount,
  maxFields: number,
): { update: ProfileUpdate; form: ProfileForm } {
  const text = (key: string) =>
    readString(p, key, { maxLength: MAX_INPUT_LENGTH, allowBlank: true }) ?? "";
  const fields = readFields(p) ?? [];
  const flag = (key: string) => readBoolean(p, key) ?? false;
  const update: ProfileUpdate = {
    displayName: text("display_name"),
    note: text("note"),
    fields,
    // A file input left empty is no parameter at all (api/params.ts drops it).
    avatar: readFile(p, "avatar"),
    header: readFile(p, "header"),
    locked: flag("locked"),
    bot: flag("bot"),
    discoverable: flag("discoverable"),
    indexable: flag("indexable"),
    hideCollections: flag("hide_collections"),
    noindex: flag("noindex"),
  };
  // A value that stays keeps its verified mark (as the command keeps its time).
  const verified = new Map(entity.source.fields.map((f) => [f.value, f.verified_at]));
  return {
    update,
    form: {
      displayName: update.displayName!,
      note: update.note!,
      fields: padFields(
        fields.map((f) => ({ ...f, verifiedAt: verified.get(f.value) ?? null })),
        maxFields,
      ),
      locked: update.locked!,
      bot: update.bot!,
      discoverable: update.discoverable!,
      indexable: update.indexable!,
      hideCollections: update.hideCollections!,
      noindex: update.noindex!,
    },
  };
}

async function showPage(
  c: Context<ApiEnv>,
  options: {
    entity?: CredentialAccount;
    form?: ProfileForm;
    errors?: FieldErrors;
    alert?: string;
    notice?: string;
  } = {},
): Promise<Response> {
  const { config } = c.get("ctx");
  const session = settingsSession(c);
  const entity = options.entity ?? await storedProfile(c);
  const limits = config.limits;
  const custom = (url: string, fallback: string) => url.endsWith(fallback) ? null : url;
  return await sendUserPage(
    c,
    <ProfilePage
      instanceTitle={config.instance.title}
      viewer={{ username: session.user.username, csrfToken: session.csrfToken }}
      form={options.form ?? storedForm(entity, limits.maxProfileFields)}
      images={{
        avatar: custom(entity.avatar, DEFAULT_AVATAR_PATH),
        header: custom(entity.header, DEFAULT_HEADER_PATH),
      }}
      limits={{
        displayName: PROFILE_LIMITS.displayName,
        note: PROFILE_LIMITS.note,
        fieldName: PROFILE_LIMITS.fieldName,
        fieldValue: PROFILE_LIMITS.fieldValue,
        imageMb: Math.floor(limits.imageSizeLimit / 1024 / 1024),
      }}
      errors={options.errors}
      alert={options.alert}
      notice={options.notice}
    />,
    options.errors || options.alert ? 422 : 200,
  );
}

export function profileSettingsRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.use("/settings/profile", userPage());
  app.use("/settings/profile/*", userPage());

  for (const path of ["/settings", "/settings/"]) {
    app.get(path, (c) => c.redirect("/settings/profile", 301));
  }

  app.get("/settings/profile", async (c) => {
    return await showPage(c, { notice: NOTICES[c.req.query("notice") ?? ""] });
  });

  app.post("/settings/profile", async (c) => {
    const ctx = c.get("ctx");
    const entity = await storedProfile(c);
    let input;
    try {
      input = readForm(await params(c), entity, ctx.config.limits.maxProfileFields);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return await showPage(c, { entity, alert: `The profile was not saved: ${error.message}` });
    }
    try {
      await updateProfile(ctx, settingsSession(c).user.accountId, input.update);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      return await showPage(c, { entity, form: input.form, errors: error.details });
    }
    return c.redirect("/settings/profile?notice=saved", 303);
  });

  app.post("/settings/profile/:kind/remove", async (c) => {
    const kind = c.req.param("kind");
    if (kind !== "avatar" && kind !== "header") {
      return await sendUserPage(
        c,
        <MessagePage
          title="Not found"
          instanceTitle={c.get("ctx").config.instance.title}
          text="There is no such picture."
          alert
        />,
        404,
      );
    }
    await removeProfileImage(c.get("ctx"), settingsSession(c).user.accountId, kind);
    return c.redirect(`/settings/profile?notice=${kind}_removed`, 303);
  });

  return app;
}
