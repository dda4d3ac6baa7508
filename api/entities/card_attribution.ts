/**
 * `missing_attribution` on a PreviewCard (Mastodon 4.7): tells the author of
 * a status that the page it links names them as its creator
 * (`<meta name="fediverse:creator">`) while its site is not among their
 * `attribution_domains`, so a client can suggest adding it. Only the
 * author, viewing their own status, ever sees true; everyone else false.
 * One query, only when such a status is on the page.
 */
import { eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { accounts } from "../../db/schema/mod.ts";
import type { StatusJson, Viewer } from "./status.ts";
import type { StatusBundle } from "./status_content.ts";

/** Whether `host` is `domain` or under it. */
function within(host: string, domain: string): boolean {
  const d = domain.toLowerCase();
  return host === d || host.endsWith(`.${d}`);
}

/** Sets `missing_attribution` on the viewer's own statuses' cards (copies: cards are shared). */
export async function markMissingAttribution(
  ctx: Pick<AppContext, "config" | "database">,
  list: StatusJson[],
  bundles: ReadonlyMap<string, StatusBundle>,
  viewer: Viewer,
): Promise<void> {
  if (!viewer) return;
  const own = list.filter((s) =>
    s.card && !s.reblog && s.account.id === viewer.accountId && bundles.get(s.id)?.cardCreator
  );
  if (own.length === 0) return;
  const [me] = await ctx.database.db.select({
    username: accounts.username,
    domains: accounts.attributionDomains,
  }).from(accounts).where(eq(accounts.id, viewer.accountId)).limit(1);
  if (!me) return;
  const handle = `${me.username}@${ctx.config.domain}`.toLowerCase();
  for (const status of own) {
    if (bundles.get(status.id)?.cardCreator !== handle) continue;
    let host: string;
    try {
      host = new URL(status.card!.url).hostname.toLowerCase();
    } catch {
      continue;
    }
    if (!me.domains.some((d) => within(host, d))) {
      status.card = { ...status.card!, missing_attribution: true };
    }
  }
}
