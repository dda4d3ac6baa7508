/**
 * Translating a status (Mastodon's TranslateStatusService) and the languages
 * the configured backend offers.
 *
 * Rules, as Mastodon's:
 * - Only public and unlisted statuses are translated, only when a backend is
 *   configured, and only from the status's language (or "unknown") to a
 *   target the backend lists for it; anything else is
 *   {@link TranslationNotAllowedError} (403 "This action is not allowed").
 *   A status already in the target language is not translated.
 * - The target is the language asked for; a regional form the backend does
 *   not list (`pt-BR`) falls back to its language (`pt`).
 * - A translation is kept per status and target language with a digest of
 *   what was sent (status_translations), so asking again costs no request
 *   until an edit changes the texts. Mastodon keeps them a day in its cache,
 *   keyed by a hash of the texts.
 * - The backend's language list is kept for a day in each process (Mastodon:
 *   a week), so that the check before each translation costs no request;
 *   a failure is not kept.
 */
import { and, eq } from "drizzle-orm";
import { isPublicVisibility } from "../../model/visibility.ts";
import type { Config, TranslationConfig } from "../../config.ts";
import type { Executor } from "../../db/connection.ts";
import { statusTranslations, type StoredTranslation } from "../../db/schema/mod.ts";
import type { LanguageMap, TranslationBackend } from "./backend.ts";
import { deeplBackend, deeplBaseUrl } from "./deepl.ts";
import { libreTranslateBackend } from "./libretranslate.ts";
import { assembleTranslation, sourceTexts, type TranslationSource } from "./source.ts";

/** The status may not be translated (to that language). */
export class TranslationNotAllowedError extends Error {}

/** How long a process keeps the backend's language list. */
export const LANGUAGES_TTL_MS = 24 * 60 * 60 * 1000;

/** A backend with its language list kept. */
export interface Translator {
  backend: TranslationBackend;
  /** The language list, from the backend at most once a day. */
  languages(): Promise<LanguageMap>;
}

/** A translator around `backend` that keeps its language list for {@link LANGUAGES_TTL_MS}. */
export function cachingTranslator(backend: TranslationBackend, now = Date.now): Translator {
  let kept: { at: number; list: Promise<LanguageMap> } | null = null;
  return {
    backend,
    languages() {
      if (kept && now() - kept.at < LANGUAGES_TTL_MS) return kept.list;
      const list = backend.languages();
      const entry = { at: now(), list };
      kept = entry;
      // Concurrent callers share the request; a failure is forgotten.
      list.catch(() => {
        if (kept === entry) kept = null;
      });
      return list;
    },
  };
}

function backendFor(config: TranslationConfig): TranslationBackend {
  return config.kind === "deepl"
    ? deeplBackend({
      apiKey: config.apiKey,
      baseUrl: deeplBaseUrl(config.plan),
      timeoutMs: config.timeoutMs,
    })
    : libreTranslateBackend({
      url: config.url,
      apiKey: config.apiKey,
      timeoutMs: config.timeoutMs,
    });
}

/**
 * The configured translator, or null when translation is disabled; the
 * process core makes it once (its language list is kept in it).
 */
export function makeTranslator(config: Pick<Config, "translation">): Translator | null {
  return config.translation ? cachingTranslator(backendFor(config.translation)) : null;
}

/** What the functions below read: the process core's translator. */
export interface TranslatorHolder {
  readonly core: { readonly translator: Translator | null };
}

/**
 * `GET /api/v1/instance/translation_languages`: source → targets, with
 * "und" for a status of unknown language; {} when translation is disabled.
 */
export async function translationLanguages(
  app: TranslatorHolder,
): Promise<Record<string, string[]>> {
  const translator = app.core.translator;
  if (!translator) return {};
  const out: Record<string, string[]> = {};
  for (const [source, targets] of await translator.languages()) out[source ?? "und"] = targets;
  return out;
}

function baseLanguage(code: string): string {
  return code.split(/[-_]/)[0].toLowerCase();
}

/**
 * The languages to ask the backend for: the status's language as the
 * backend lists it (`pt-BR` may be listed as `pt`), and the target from the
 * language asked for; null when the backend does not translate between them.
 */
export function pickLanguages(
  languages: LanguageMap,
  source: string | null,
  requested: string,
): { source: string | null; target: string } | null {
  const from = source && !languages.has(source) ? baseLanguage(source) : source;
  const targets = languages.get(from);
  if (!targets) return null;
  if (targets.includes(requested)) return { source: from, target: requested };
  const base = baseLanguage(requested);
  return targets.includes(base) ? { source: from, target: base } : null;
}

async function digestOf(value: unknown): Promise<string> {
  const bytes = new TextEncoder().encode(JSON.stringify(value));
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return btoa(String.fromCharCode(...hash));
}

/** A translation, with the language it is in. */
export interface StatusTranslation extends StoredTranslation {
  language: string;
}

/**
 * Translates `source` into `requestedLanguage` (see the rules above), from
 * the stored translation when the texts have not changed since. Throws
 * {@link TranslationNotAllowedError}, or the backend's
 * TranslationUnavailableError.
 */
export async function translateStatus(
  db: Executor,
  app: TranslatorHolder,
  source: TranslationSource,
  requestedLanguage: string,
): Promise<StatusTranslation> {
  const translator = app.core.translator;
  if (!translator || !isPublicVisibility(source.visibility)) {
    throw new TranslationNotAllowedError("This action is not allowed");
  }
  const pair = pickLanguages(await translator.languages(), source.language, requestedLanguage);
  if (!pair) throw new TranslationNotAllowedError("This action is not allowed");
  const language = pair.target;

  const prepared = sourceTexts(source);
  const digest = await digestOf({ language: source.language, texts: prepared.texts });
  const [stored] = await db.select().from(statusTranslations).where(and(
    eq(statusTranslations.statusId, source.statusId),
    eq(statusTranslations.language, language),
  ));
  if (stored?.sourceDigest === digest) return { ...stored.translation, language };

  const answers = prepared.texts.length === 0
    ? []
    : await translator.backend.translate(prepared.texts, pair.source, language);
  const translation = assembleTranslation(source, prepared, answers, translator.backend.provider);
  await db.insert(statusTranslations)
    .values({ statusId: source.statusId, language, sourceDigest: digest, translation })
    .onConflictDoUpdate({
      target: [statusTranslations.statusId, statusTranslations.language],
      set: { sourceDigest: digest, translation, createdAt: new Date() },
    });
  return { ...translation, language };
}
