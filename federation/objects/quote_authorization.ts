/**
 * The QuoteAuthorization stamps we issue (FEP-044f): when one of our
 * authors' posts may be quoted by a remote post, the approval lives at
 * `/users/{identifier}/quote_authorizations/{quote id}` so the quoting
 * server (and anyone who sees the quote) can check it. A revoked or
 * rejected quote has no stamp (404), which is how Mastodon verifies a
 * revocation.
 */
import type { Federation } from "@fedify/fedify";
import { QuoteAuthorization } from "@fedify/vocab";
import { and, eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { accounts, quotes, statuses } from "../../db/schema/mod.ts";
import { authorizeFetch } from "../dispatchers/authorized_fetch.ts";
import { activityIds, LOCAL_PATHS } from "../../model/uris.ts";

/** Registers the stamp dispatcher. */
export function registerQuoteAuthorizationDispatcher(federation: Federation<AppContext>): void {
  federation.setObjectDispatcher(
    QuoteAuthorization,
    LOCAL_PATHS.quoteAuthorization,
    async (ctx, v) => {
      if (!/^[0-9]{1,19}$/.test(v.id)) return null;
      const db = ctx.data.database.db;
      const [row] = await db.select({ quote: quotes, author: accounts, quotedUri: statuses.uri })
        .from(quotes)
        .innerJoin(statuses, eq(statuses.id, quotes.quotedStatusId))
        .innerJoin(accounts, eq(accounts.id, statuses.accountId))
        .where(and(eq(quotes.id, v.id), eq(quotes.state, "accepted")));
      if (!row || row.author.domain != null || row.author.username !== v.identifier) return null;
      const [quoting] = await db.select({ uri: statuses.uri }).from(statuses)
        .where(eq(statuses.id, row.quote.statusId));
      if (!quoting) return null;
      return new QuoteAuthorization({
        id: new URL(activityIds.quoteStamp(row.author.uri, row.quote.id)),
        attribution: new URL(row.author.uri),
        interactingObject: new URL(quoting.uri),
        interactionTarget: new URL(row.quotedUri),
      });
    },
  ).authorize((ctx, values) => authorizeFetch(ctx, values.identifier));
}
