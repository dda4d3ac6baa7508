/**
 * The blocks a sign-up meets, as Mastodon applies them:
 * - the client address: `sign_up_block` (and `no_access`, which the
 *   middleware refuses earlier anyway) → the sign-up is forbidden (403, as
 *   Mastodon's `allowed_registration?`); `sign_up_requires_approval` → the
 *   account waits for approval;
 * - the address's domain, a parent domain, or one of its MX hosts (or a
 *   parent of one) blocked → `email: ERR_BLOCKED`
 *   (BlacklistedEmailValidator's `:blocked`), or, when every matching block
 *   says `allow_with_approval`, the account waits for approval;
 * - the canonical address blocked → `email: ERR_TAKEN` (Mastodon words it
 *   as an address in use, not as a block).
 */
import type { Executor } from "../../db/connection.ts";
import type { Problems } from "../../model/errors.ts";
import { canonicalEmailBlocksFor } from "./canonical_email_blocks.ts";
import { emailDomainBlocksFor } from "./email_domain_blocks.ts";
import { ipBlockSeverities, type IpBlocksHolder } from "./ip_block_cache.ts";

/** Whether sign-ups from `ip` are refused outright. */
export async function signUpForbiddenFrom(app: IpBlocksHolder, ip: string): Promise<boolean> {
  const severities = await ipBlockSeverities(app, ip);
  return severities.has("sign_up_block") || severities.has("no_access");
}

/**
 * Whether sign-ups from `ip` must wait for approval. Ask it before the
 * registration's transaction: the IP block cache may have to load from the
 * database, and on PGlite (one connection) a query outside an open
 * transaction waits for it to end.
 */
export async function signUpNeedsApprovalFrom(app: IpBlocksHolder, ip: string): Promise<boolean> {
  return (await ipBlockSeverities(app, ip)).has("sign_up_requires_approval");
}

/** What the e-mail blocks say about one sign-up. */
export interface SignUpAccess {
  /** The account must wait for staff approval. */
  requiresApproval: boolean;
  /** The e-mail domain blocks that matched (their history counts the attempt). */
  matchedDomainBlockIds: string[];
}

/**
 * Checks a sign-up's address against the e-mail blocks, in `db` (the
 * registration's transaction), adding the e-mail problems to `problems`
 * (the form's other problems come along). `mxHosts` are the domain's mail
 * servers, looked up before the transaction (./email_mx.ts).
 */
export async function checkSignUpEmail(
  db: Executor,
  email: string,
  problems: Problems,
  mxHosts: readonly string[] = [],
): Promise<SignUpAccess> {
  const access: SignUpAccess = { requiresApproval: false, matchedDomainBlockIds: [] };
  if (email.trim() === "") return access;
  const domainBlocks = await emailDomainBlocksFor(db, email, mxHosts);
  access.matchedDomainBlockIds = domainBlocks.map((b) => b.id);
  if (domainBlocks.some((b) => !b.allowWithApproval)) {
    problems.add("email", "ERR_BLOCKED", "uses a disallowed e-mail provider");
  } else if (domainBlocks.length) {
    access.requiresApproval = true;
  }
  const taken = problems.details.email?.some((e) => e.error === "ERR_TAKEN");
  if (!taken && (await canonicalEmailBlocksFor(db, email)).length) {
    problems.add("email", "ERR_TAKEN", "has already been taken");
  }
  return access;
}
