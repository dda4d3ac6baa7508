/**
 * What a URL pasted into the search box names: an account or a status,
 * as Mastodon's ResolveURLService answers it.
 *
 * - A URL we already know (a status's or account's IRI or web page, ours or
 *   another server's) is answered from the database, without a request; a
 *   known remote account is refreshed when stale (remote_accounts.ts).
 * - Another URL of our own origin names nothing: we never fetch ourselves.
 * - Anything else is fetched once with the instance actor's signature
 *   (lookup.ts: SSRF guard, size and redirect limits, the document's id on
 *   the origin it came from) and stored when it is an actor or a status
 *   whose author lives on the same server.
 *
 * The caller decides whether the viewer may see what was found.
 */
import { and, eq, isNull, or } from "drizzle-orm";
import { isActor } from "@fedify/vocab";
import type { AppContext } from "../../context.ts";
import { statuses } from "../../db/schema/mod.ts";
import type { StatusRow } from "../../actors/statuses/create.ts";
import { instanceContext, lookupRemote } from "../fetch/lookup.ts";
import { FetchBudget } from "../fetch/budget.ts";
import {
  type AccountRow,
  findStoredAccount,
  parseAccountQuery,
  resolveRemoteAccount,
  storeFetchedActor,
} from "./accounts.ts";
import { findStatusByUri, rawJson, storeRemoteStatus } from "./statuses.ts";
import { isStatusObject } from "../objects/remote_status.ts";
import { sameOrigin } from "../fetch/trust.ts";

/** What a URL resolved to. */
export type ResolvedUrl =
  | { kind: "account"; account: AccountRow }
  | { kind: "status"; status: StatusRow };

/** A stored, undeleted status whose IRI or web URL is `url`. */
async function storedStatus(app: AppContext, url: string): Promise<StatusRow | null> {
  const [row] = await app.database.db.select().from(statuses).where(and(
    or(eq(statuses.uri, url), eq(statuses.url, url)),
    isNull(statuses.deletedAt),
    isNull(statuses.reblogOfId),
  )).limit(1);
  return row ?? null;
}

/**
 * Resolves an http(s) URL to an account or a status, fetching it when it is
 * not known. Null when it names nothing we can show; never throws for what
 * users type or other servers answer.
 */
export async function resolveUrl(app: AppContext, query: string): Promise<ResolvedUrl | null> {
  const parsed = parseAccountQuery(query);
  if (parsed?.kind !== "url") return null;
  const url = parsed.url;
  const status = await storedStatus(app, url);
  if (status) return { kind: "status", status };
  if (await findStoredAccount(app, url)) {
    const account = await resolveRemoteAccount(app, url);
    return account ? { kind: "account", account } : null;
  }
  if (sameOrigin(url, app.config.origin)) return null;

  const ctx = instanceContext(app);
  // The request, with the status's author, parents and quoted posts, fetches
  // within one budget (fetch_budget.ts), as an inbound activity does.
  const budget = FetchBudget.of(app);
  const object = await lookupRemote(ctx, url, budget);
  if (!object?.id) return null;
  if (isActor(object)) {
    const account = await storeFetchedActor(app, object);
    return account ? { kind: "account", account } : null;
  }
  if (!isStatusObject(object)) return null;
  // A page URL fetched as ActivityPub gives the object's own id, which we may know.
  const known = await findStatusByUri(app, object.id.href);
  if (known) return known.reblogOfId ? null : { kind: "status", status: known };
  const stored = await storeRemoteStatus(ctx, object, {
    depth: 0,
    raw: await rawJson(object),
    budget,
  });
  return stored ? { kind: "status", status: stored } : null;
}
