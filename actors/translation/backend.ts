/**
 * What a machine translation backend offers (libretranslate.ts, deepl.ts),
 * and the one way they talk to their server.
 *
 * The server is the operator's choice (TRANSLATION_URL, or DeepL's host), so
 * it is reached directly, not through the SSRF guard: a LibreTranslate next
 * to Rookery on localhost is the usual set-up. The request carries no
 * `Rookery/` User-Agent, which would make federation/fetch/outbound_fetch.ts
 * refuse loopback. It still has a deadline (TRANSLATION_TIMEOUT, body
 * included) and a size limit on the answer, and never follows redirects.
 */
import { readUpTo } from "../net/read_body.ts";

/** Source language (null: unknown, let the backend detect it) → target languages. */
export type LanguageMap = Map<string | null, string[]>;

/** One translated text, in the order the texts were given. */
export interface TranslatedText {
  text: string;
  /** What the backend detected, or the source language it was told. */
  detectedSourceLanguage: string | null;
  provider: string;
}

/** A machine translation service. */
export interface TranslationBackend {
  /** The `provider` of the Translation entity. */
  readonly provider: string;
  /** The languages it translates between. */
  languages(): Promise<LanguageMap>;
  /**
   * Translates HTML `texts` from `source` (null: detect) into `target`;
   * one answer per text, in order.
   */
  translate(texts: string[], source: string | null, target: string): Promise<TranslatedText[]>;
}

/** Why the backend failed: its quota, its rate limit, or anything else. */
export type UnavailableReason = "quota" | "rate" | "unexpected";

/**
 * The backend failed: unreachable, too slow, over its quota or rate, or an
 * answer we cannot read. The API answers 503 (Mastodon's
 * TranslationService errors), with Mastodon's message for each reason.
 */
export class TranslationUnavailableError extends Error {
  constructor(
    message: string,
    readonly reason: UnavailableReason = "unexpected",
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** Answers larger than this are refused (Mastodon reads 1 MB of them). */
export const MAX_ANSWER_BYTES = 1024 * 1024;

/** What {@link requestJson} sends. */
export interface BackendRequest {
  method: "GET" | "POST";
  url: string;
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
  /** HTTP statuses by which the backend says its quota or rate is spent. */
  reasons?: Record<number, UnavailableReason>;
}

/**
 * Sends one request to the backend and parses its JSON answer; any failure
 * (network, deadline, status other than 2xx, oversized or malformed body)
 * is a {@link TranslationUnavailableError}.
 */
export async function requestJson(request: BackendRequest): Promise<unknown> {
  const signal = AbortSignal.timeout(request.timeoutMs);
  try {
    const response = await fetch(request.url, {
      method: request.method,
      headers: { Accept: "application/json", ...request.headers },
      body: request.body,
      redirect: "manual",
      signal,
    });
    if (response.status < 200 || response.status >= 300) {
      await response.body?.cancel().catch(() => {});
      throw new TranslationUnavailableError(
        `HTTP ${response.status} from ${request.url}`,
        request.reasons?.[response.status],
      );
    }
    if (!response.body) throw new TranslationUnavailableError(`Empty answer from ${request.url}`);
    const { bytes, truncated } = await readUpTo(response.body, MAX_ANSWER_BYTES);
    if (truncated) throw new TranslationUnavailableError(`Oversized answer from ${request.url}`);
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch (error) {
    if (error instanceof TranslationUnavailableError) throw error;
    throw new TranslationUnavailableError(
      `${request.url}: ${(error as Error).message}`,
      "unexpected",
      { cause: error },
    );
  }
}

/** `value` as an array of objects, or a {@link TranslationUnavailableError}. */
export function objectList(value: unknown, what: string): Record<string, unknown>[] {
  if (!Array.isArray(value) || !value.every((v) => v && typeof v === "object")) {
    throw new TranslationUnavailableError(`Unexpected ${what}`);
  }
  return value as Record<string, unknown>[];
}
