/**
 * One remote JSON document, fetched signed by the instance actor through
 * the document loader every fetch of ours uses (deadline, size, content
 * type, address and origin checks: document_loader.ts), and read raw, not
 * through Fedify's parse: vocabulary Fedify lacks (FEP-7aa9's types), a
 * `Hashtag` under the plain ActivityStreams context or one odd item would
 * make the parse of the whole document fail.
 *
 * The answer says why there is no document, for callers that retry:
 * `gone` (404 or 410: the other server says it does not exist), `later`
 * (the server could not be reached or failed, or the fetch budget was
 * spent: worth asking again), `refused` (anything else: a document we do
 * not take, a domain we do not federate with).
 */
import { FetchError } from "@fedify/vocab-runtime";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import { domainOfUrl, federationRefused } from "../../actors/moderation/domain_rules.ts";
import { isJson, type Json } from "../dialects/terms.ts";
import { type FetchBudget, FetchBudgetSpent } from "./budget.ts";
import { instanceContext, instanceDocumentLoader } from "./lookup.ts";
import { sameOrigin } from "./trust.ts";

const logger = getLogger(["rookery", "federation", "fetch"]);

/** A fetched document, or why there is none. */
export type RawDocument =
  | { json: Json }
  | { json: null; failure: "gone" | "later" | "refused" };

/** How to fetch. */
export interface RawFetchOptions {
  /** Taken from this budget (refused without a request once it is spent). */
  budget?: FetchBudget;
  /** The document (its URL, final URL and id) must be on this IRI's origin. */
  sameOriginAs?: string;
}

/** The JSON object at `url`; see the module comment for the failures. */
export async function fetchRawDocument(
  app: AppContext,
  url: string,
  options: RawFetchOptions = {},
): Promise<RawDocument> {
  const origin = options.sameOriginAs;
  if (origin && !sameOrigin(url, origin)) return { json: null, failure: "refused" };
  if (new URL(url).origin === new URL(app.config.origin).origin) {
    return { json: null, failure: "refused" };
  }
  if (await federationRefused(app, domainOfUrl(url))) return { json: null, failure: "refused" };
  try {
    const signed = await instanceDocumentLoader(instanceContext(app));
    const loader = options.budget ? options.budget.wrap(signed) : signed;
    const { document, documentUrl } = await loader(url);
    if (!isJson(document)) return { json: null, failure: "refused" };
    if (origin && !(sameOrigin(documentUrl, origin) && sameOrigin(String(document.id), origin))) {
      return { json: null, failure: "refused" };
    }
    return { json: document };
  } catch (error) {
    const failure = failureOf(error);
    logger.info("Could not fetch {url} ({failure}): {error}", { url, failure, error });
    return { json: null, failure };
  }
}

/** What a failed load means for a caller that could try again. */
function failureOf(error: unknown): "gone" | "later" | "refused" {
  if (error instanceof FetchBudgetSpent) return "later";
  if (error instanceof FetchError) {
    const status = error.response?.status;
    if (status === 404 || status === 410) return "gone";
    if (status == null) return /timed? ?out|abort/i.test(error.message) ? "later" : "refused";
    return status >= 500 || status === 429 ? "later" : "refused";
  }
  // Connection refused or reset, DNS, TLS, the deadline.
  return "later";
}
