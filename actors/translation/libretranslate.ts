/**
 * LibreTranslate's API (and servers that speak it), as Mastodon's
 * TranslationService::LibreTranslate calls it:
 *
 * - `POST {url}/translate` with JSON `{q: [texts], source, target, format:
 *   "html", api_key}`; `source` is the status's language, or `auto` when it
 *   has none. The answer's `translatedText` is an array in the order of `q`,
 *   and `detectedLanguage[i].language` what `auto` found.
 * - `GET {url}/languages`: `[{code, targets: [...]}]`; a language is never
 *   its own target, and an unknown source may go to any target.
 */
import {
  type LanguageMap,
  objectList,
  requestJson,
  type TranslatedText,
  type TranslationBackend,
  TranslationUnavailableError,
} from "./backend.ts";

/** The `provider` of the Translation entity. */
export const LIBRETRANSLATE_PROVIDER = "LibreTranslate";

/** Where the server is, its key (null: none), and the deadline of each request. */
export interface LibreTranslateOptions {
  url: string;
  apiKey: string | null;
  timeoutMs: number;
}

/** A backend on a LibreTranslate-compatible server. */
export function libreTranslateBackend(options: LibreTranslateOptions): TranslationBackend {
  const base = options.url.replace(/\/+$/, "");
  const headers = { "Content-Type": "application/json" };
  // LibreTranslate says 403 for a spent or missing key, 429 for too many requests.
  const reasons = { 403: "quota", 429: "rate" } as const;
  return {
    provider: LIBRETRANSLATE_PROVIDER,
    async languages(): Promise<LanguageMap> {
      const answer = await requestJson({
        method: "GET",
        url: `${base}/languages`,
        headers,
        timeoutMs: options.timeoutMs,
        reasons,
      });
      const map: LanguageMap = new Map();
      const all = new Set<string>();
      for (const language of objectList(answer, "language list")) {
        const code = language.code;
        if (typeof code !== "string" || !Array.isArray(language.targets)) continue;
        const targets = language.targets.filter((t): t is string =>
          typeof t === "string" && t !== code
        );
        map.set(code, targets);
        for (const t of targets) all.add(t);
      }
      map.set(null, [...all].sort());
      return map;
    },

    async translate(texts, source, target): Promise<TranslatedText[]> {
      const answer = await requestJson({
        method: "POST",
        url: `${base}/translate`,
        headers,
        body: JSON.stringify({
          q: texts,
          source: source || "auto",
          target,
          format: "html",
          api_key: options.apiKey ?? undefined,
        }),
        timeoutMs: options.timeoutMs,
        reasons,
      }) as Record<string, unknown> | null;
      const translated = answer?.translatedText;
      if (
        !Array.isArray(translated) || translated.length !== texts.length ||
        !translated.every((t) => typeof t === "string")
      ) {
        throw new TranslationUnavailableError("Unexpected answer from LibreTranslate");
      }
      const detected = Array.isArray(answer?.detectedLanguage) ? answer.detectedLanguage : [];
      return translated.map((text: string, i) => {
        const found = detected[i]?.language;
        return {
          text,
          detectedSourceLanguage: typeof found === "string" ? found : source,
          provider: LIBRETRANSLATE_PROVIDER,
        };
      });
    },
  };
}
