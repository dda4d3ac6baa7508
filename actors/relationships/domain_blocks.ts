/**
 * A user's own domain blocks (Mastodon's AccountDomainBlock and
 * AfterBlockDomainFromAccountService): the domain's accounts disappear from
 * the user's view, the user's follows of them end (Undo(Follow)) and their
 * follows of the user end (Reject(Follow)), with counters corrected.
 */
import { and, eq, inArray, or, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { newId } from "../../db/ids.ts";
import { accountDomainBlocks, accounts, followRequests, follows } from "../../db/schema/mod.ts";
import { NotFoundError, ValidationError } from "../../model/errors.ts";
import { removeFollows, removeRequests } from "./follow_rows.ts";
import { recordDelivery } from "../outbox/deliveries.ts";
import { removeDomainFromHome } from "../timelines/fanout.ts";
import type { FollowSnapshot } from "../outbox/relationships.ts";

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

function invalidDomain(blank = false): ValidationError {
  return new ValidationError({
    domain: [
      blank
        ? { error: "ERR_BLANK", description: "can't be blank" }
        : { error: "ERR_INVALID", description: "is not a valid domain name" },
    ],
  });
}

/**
 * Normalizes a domain as Mastodon does (trimmed, lower case, trailing slash
 * and trailing dot dropped, IDN to punycode; a port is kept, as our account
 * domains keep it).
 *
 * @throws ValidationError when blank or not a domain name
 */
export function normalizeDomain(input: string): string {
  // `EXAMPLE.com.` (the fully qualified spelling) is `example.com`.
  const raw = input.trim().replace(/\/$/, "").replace(/\.$/, "");
  if (raw === "") throw invalidDomain(true);
  if (raw.length > 253 + 6 || /[\s/@?#\\]/.test(raw)) throw invalidDomain();
  let host: string;
  try {
    const url = new URL(`https://${raw}/`);
    if (url.username || url.password || url.pathname !== "/") throw invalidDomain();
    host = url.host;
  } catch {
    throw invalidDomain();
  }
  const [name, port] = host.split(/:(?=\d+$)/);
  const labels = name.split(".");
  if (name.length > 253 || !labels.every((l) => LABEL.test(l))) throw invalidDomain();
  return port ? `${name}:${port}` : name;
}

/**
 * What blocking `domain` would cost `accountId` (Mastodon 4.3's domain block
 * preview): how many of its accounts the user follows, and how many follow
 * the user. Pending requests are not counted, as in Mastodon.
 *
 * @throws ValidationError when the domain is blank or invalid
 */
export async function domainBlockPreview(
  app: AppContext,
  accountId: string,
  domain: string,
): Promise<{ following: number; followers: number }> {
  const normalized = normalizeDomain(domain);
  const [row] = await app.database.rows<{ following: string | number; followers: string | number }>(
    sql`SELECT
      (SELECT count(*) FROM follows f JOIN accounts a ON a.id = f.target_account_id
        WHERE f.account_id = ${accountId}::bigint AND a.domain = ${normalized}) AS following,
      (SELECT count(*) FROM follows f JOIN accounts a ON a.id = f.account_id
        WHERE f.target_account_id = ${accountId}::bigint AND a.domain = ${normalized}) AS followers`,
  );
  return { following: Number(row.following), followers: Number(row.followers) };
}

/** `accountId` blocks `domain` (normalized; blocking again is not an error). Returns it. */
export async function blockDomain(app: AppContext, accountId: string, domain: string) {
  const normalized = normalizeDomain(domain);
  await app.database.db.transaction(async (tx) => {
    const [account] = await tx.select().from(accounts).where(eq(accounts.id, accountId));
    if (!account || account.deletedAt || account.domain != null) throw new NotFoundError();
    if (normalized === new URL(app.config.origin).host) throw invalidDomain();
    await tx.insert(accountDomainBlocks).values({ id: newId(), accountId, domain: normalized })
      .onConflictDoNothing();
    const theirs = tx.select({ id: accounts.id }).from(accounts)
      .where(eq(accounts.domain, normalized));
    const undone: FollowSnapshot[] = [
      ...await removeFollows(
        tx,
        and(eq(follows.accountId, accountId), inArray(follows.targetAccountId, theirs)),
      ),
      ...await removeRequests(
        tx,
        and(
          eq(followRequests.accountId, accountId),
          inArray(followRequests.targetAccountId, theirs),
        ),
      ),
    ];
    const rejected: FollowSnapshot[] = [
      ...await removeFollows(
        tx,
        and(eq(follows.targetAccountId, accountId), inArray(follows.accountId, theirs)),
      ),
      ...await removeRequests(
        tx,
        and(
          eq(followRequests.targetAccountId, accountId),
          inArray(followRequests.accountId, theirs),
        ),
      ),
    ];
    // Its accounts' posts leave the home timeline (read without the rules again).
    await removeDomainFromHome(tx, accountId, normalized);
    for (const s of undone) await recordDelivery(tx, "followUndone", s);
    for (const s of rejected) await recordDelivery(tx, "followRejected", s);
  });
  return normalized;
}

/** `accountId` lifts its block of `domain` (not blocked is not an error). */
export async function unblockDomain(app: AppContext, accountId: string, domain: string) {
  const normalized = normalizeDomain(domain);
  await app.database.db.delete(accountDomainBlocks).where(and(
    eq(accountDomainBlocks.accountId, accountId),
    or(eq(accountDomainBlocks.domain, normalized), eq(accountDomainBlocks.domain, domain.trim())),
  ));
  return normalized;
}
