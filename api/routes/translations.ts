/**
 * POST /api/v1/statuses/:id/translate (Mastodon's
 * Api::V1::Statuses::TranslationsController) → Translation.
 *
 * Decisions (actors/translation/service.ts has the rules of translation):
 * - A user token with `read:statuses` (or `read`), as Mastodon's current
 *   controller asks (`require_user!`; its docs still say an app token does).
 * - A status the caller may not see is the same 404 "Record not found" as
 *   an unknown one (Mastodon answers "Not Found" there, which tells the two
 *   apart). A boost is translated as the status it boosts.
 * - Private and direct statuses, a target the backend does not offer for
 *   the status's language (its own language included), and an instance
 *   without a backend: 403 "This action is not allowed", as Mastodon.
 * - The backend unreachable, too slow or answering nonsense: 503 "Service
 *   Unavailable"; over its quota or rate limit: 503 with Mastodon's message.
 * - `lang`: the target language; when absent or not a language code, the
 *   user's locale, else the instance's first language.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { eq } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { ApiEnv } from "../env.ts";
import { ApiError } from "../errors.ts";
import { params } from "../params.ts";
import { requireUser } from "../middleware/scopes.ts";
import { visibleStatusFromPath } from "./statuses.ts";
import { translationEntity } from "../entities/translation.ts";
import { loadContent } from "../entities/status_content.ts";
import { findVisibleStatus } from "../../db/queries/visibility.ts";
import { users } from "../../db/schema/mod.ts";
import { isSupportedLocale } from "../../actors/accounts/registration.ts";
import { TranslationUnavailableError } from "../../actors/translation/backend.ts";
import type { TranslationSource } from "../../actors/translation/source.ts";
import { translateStatus, TranslationNotAllowedError } from "../../actors/translation/service.ts";

const NOT_FOUND = "Record not found";
const logger = getLogger(["rookery", "translation"]);

/** Mastodon's answers when the backend fails (its translation.errors strings). */
const UNAVAILABLE_MESSAGES = {
  quota: "The server-wide usage quota for the translation service has been exceeded.",
  rate: "There have been too many requests to the translation service recently.",
  unexpected: "Service Unavailable",
} as const;

/** The 503 for a failed backend, logged for the operator. */
export function translationUnavailable(error: TranslationUnavailableError): ApiError {
  logger.warning("Translation backend failed: {error}", { error: error.message });
  return new ApiError(503, UNAVAILABLE_MESSAGES[error.reason]);
}

/** The language to translate into (see the decisions above). */
async function targetLanguage(c: Context<ApiEnv>): Promise<string> {
  const raw = (await params(c)).lang;
  const lang = typeof raw === "string" ? raw.trim() : "";
  if (lang && isSupportedLocale(lang)) return lang;
  const { config, database } = c.get("ctx");
  const user = c.get("user");
  if (user) {
    const [row] = await database.db.select({ locale: users.locale }).from(users)
      .where(eq(users.id, user.id));
    if (row?.locale && isSupportedLocale(row.locale)) return row.locale;
  }
  return config.instance.languages[0] ?? "en";
}

/** The translation route, mounted at the root of the app. */
export function translationRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.post(
    "/api/v1/statuses/:id{[0-9]+}/translate",
    requireUser("read:statuses"),
    async (c) => {
      const ctx = c.get("ctx");
      let status = await visibleStatusFromPath(c);
      if (status.reblogOfId) {
        const viewer = c.get("user")?.accountId ?? null;
        const boosted = await findVisibleStatus(ctx.database.db, viewer, status.reblogOfId);
        if (!boosted) throw new ApiError(404, NOT_FOUND);
        status = boosted;
      }
      const language = await targetLanguage(c);
      const { statuses: [bundle] } = await loadContent(
        ctx.database.db,
        ctx.config,
        [status.id],
        [],
      );
      if (!bundle) throw new ApiError(404, NOT_FOUND);
      const source: TranslationSource = {
        statusId: status.id,
        visibility: status.visibility,
        language: status.language,
        content: status.content,
        spoilerText: status.spoilerText,
        pollOptions: bundle.poll?.options ?? null,
        media: bundle.media.map((m) => ({ id: m.id, description: m.description })),
        emojiShortcodes: bundle.emojis.map((e) => e.shortcode),
      };
      try {
        const translation = await translateStatus(ctx.database.db, ctx, source, language);
        return c.json(translationEntity(translation, bundle.poll?.id ?? null));
      } catch (error) {
        if (error instanceof TranslationNotAllowedError) {
          throw new ApiError(403, "This action is not allowed");
        }
        if (error instanceof TranslationUnavailableError) throw translationUnavailable(error);
        throw error;
      }
    },
  );

  return app;
}
