/**
 * DeepL's v2 API, as Mastodon's TranslationService::DeepL calls it:
 *
 * - `POST /v2/translate`, a form with one `text` per text, `source_lang`
 *   (upper case; absent: detect), `target_lang` and `tag_handling=html`;
 *   the key in `Authorization: DeepL-Auth-Key …`. The answer's
 *   `translations[i]` has `text` and `detected_source_language`.
 * - `GET /v2/languages?type=source` and `?type=target`; codes such as
 *   `EN-GB` become `en-GB`. English and Portuguese stay targets although
 *   DeepL lists only their regional forms. Any source (or none) may go to
 *   any target but itself.
 * - The free plan lives on api-free.deepl.com, the pro plan on api.deepl.com.
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
export const DEEPL_PROVIDER = "DeepL.com";

/** DeepL's host for a plan. */
export function deeplBaseUrl(plan: "free" | "pro"): string {
  return plan === "free" ? "https://api-free.deepl.com" : "https://api.deepl.com";
}

/** The key, the host (deeplBaseUrl; tests give their own), the deadline of each request. */
export interface DeepLOptions {
  apiKey: string;
  baseUrl: string;
  timeoutMs: number;
}

/** `EN-GB` → `en-GB`, `DE` → `de`. */
function normalizeLanguage(code: string): string {
  const [language, region, ...rest] = code.split(/[_-]/);
  return [language.toLowerCase(), ...(region ? [region.toUpperCase()] : []), ...rest].join("-");
}

/** A backend on DeepL. */
export function deeplBackend(options: DeepLOptions): TranslationBackend {
  const base = options.baseUrl.replace(/\/+$/, "");
  const headers = { Authorization: `DeepL-Auth-Key ${options.apiKey}` };
  // DeepL says 456 when the quota is spent, 429 for too many requests.
  const reasons = { 456: "quota", 429: "rate" } as const;
  const listOf = async (type: "source" | "target"): Promise<string[]> => {
    const answer = await requestJson({
      method: "GET",
      url: `${base}/v2/languages?type=${type}`,
      headers,
      timeoutMs: options.timeoutMs,
      reasons,
    });
    return objectList(answer, "language list")
      .map((l) => l.language)
      .filter((code): code is string => typeof code === "string" && code !== "")
      .map(normalizeLanguage);
  };
  return {
    provider: DEEPL_PROVIDER,
    async languages(): Promise<LanguageMap> {
      const [sources, targetList] = await Promise.all([listOf("source"), listOf("target")]);
      const targets = [...new Set(["en", "pt", ...targetList])];
      const map: LanguageMap = new Map();
      for (const source of [null, ...sources]) {
        map.set(source, targets.filter((t) => t !== source));
      }
      return map;
    },

    async translate(texts, source, target): Promise<TranslatedText[]> {
      const form = new URLSearchParams();
      for (const text of texts) form.append("text", text);
      if (source) form.set("source_lang", source.toUpperCase());
      form.set("target_lang", target);
      form.set("tag_handling", "html");
      const answer = await requestJson({
        method: "POST",
        url: `${base}/v2/translate`,
        headers: { ...headers, "Content-Type": "application/x-www-form-urlencoded" },
        body: form.toString(),
        timeoutMs: options.timeoutMs,
        reasons,
      }) as Record<string, unknown> | null;
      const translations = objectList(answer?.translations, "answer from DeepL");
      if (translations.length !== texts.length) {
        throw new TranslationUnavailableError("Unexpected answer from DeepL");
      }
      return translations.map((t) => {
        if (typeof t.text !== "string") {
          throw new TranslationUnavailableError("Unexpected answer from DeepL");
        }
        const detected = t.detected_source_language;
        return {
          text: t.text,
          detectedSourceLanguage: typeof detected === "string" ? detected.toLowerCase() : source,
          provider: DEEPL_PROVIDER,
        };
      });
    },
  };
}
