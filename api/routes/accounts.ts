/**
 * Reading other accounts:
 * - GET /api/v1/accounts/:id (public) → Account
 * - GET /api/v1/accounts?id[]= (public, at most 40 ids) → Account[] in the order asked
 * - GET /api/v1/accounts/lookup?acct= (public, no WebFinger) → Account
 * - GET /api/v1/accounts/:id/lists (user + read:lists) → List[]: the caller's lists
 *   that contain the account
 * - GET /api/v1/accounts/:id/identity_proofs (user + read:accounts) → [] (Mastodon
 *   removed identity proofs in 3.5 and answers an empty array since)
 * plus the lists and search of accounts_lists.ts and accounts_search.ts.
 *
 * `:id` is constrained to digits so that the literal paths other route groups
 * mount under /api/v1/accounts/ (verify_credentials, relationships…) never
 * reach these handlers.
 *
 * Decisions:
 * - Suspended accounts answer as Mastodon shows them (blanked, `suspended:
 *   true`); deleted ones, and local ones whose sign-up is unconfirmed or
 *   pending, answer 404, as Mastodon does for the latter.
 * - Looking at an account that blocks you still answers: Mastodon does, and
 *   the profile is public anyway.
 * - Public routes check scopes only when a token is sent (Mastodon's
 *   `authorize_if_got_token!`): `read` or `read:accounts`.
 */
import { Hono } from "hono";
import type { ApiEnv } from "../env.ts";
import { ApiError } from "../errors.ts";
import { params } from "../params.ts";
import { readString, readStringArray } from "../readers.ts";
import { requireUser } from "../middleware/scopes.ts";
import { isId } from "../../db/ids.ts";
import {
  filterViewableAccountIds,
  findViewableAccountByHandle,
} from "../../db/queries/accounts.ts";
import { accountFromPath, NOT_FOUND, scopesIfToken, viewerAccountId } from "./accounts_access.ts";
import { loadAccountEntitiesFor } from "../entities/feature_approval.ts";
import { listEntity } from "../entities/list.ts";
import { listsContaining } from "../../actors/timelines/lists.ts";
import { accountListRoutes } from "./accounts_lists.ts";
import { accountSearchRoutes } from "./accounts_search.ts";

/** Mastodon's cap on `id[]` for the multiple-accounts route. */
export const MAX_ACCOUNT_IDS = 40;
/** Longer `acct` values are not looked up (usernames are short; domains at most 253). */
const MAX_ACCT_LENGTH = 1024;

/** `user`, `@user`, `user@domain`, `acct:user@domain` → its parts; null when malformed. */
export function parseAcct(
  raw: string,
  localDomain: string,
): { username: string; domain: string | null } | null {
  const acct = raw.trim().replace(/^acct:/i, "").replace(/^@/, "");
  const match = /^([^@\s/]+)(?:@([^@\s/?#]+))?$/.exec(acct);
  if (!match) return null;
  const domain = match[2]?.toLowerCase() ?? null;
  const local = domain == null || domain === localDomain.toLowerCase();
  return { username: match[1], domain: local ? null : domain };
}

/** The routes about other accounts, mounted at the root of the app. */
export function accountRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const readAccounts = scopesIfToken("read:accounts");

  app.get("/api/v1/accounts/lookup", readAccounts, async (c) => {
    const { config, database, mediaUrls } = c.get("ctx");
    const acct = readString(await params(c), "acct");
    // An overlong handle names no account: the same 404 as any unknown one.
    const parsed = acct && acct.length <= MAX_ACCT_LENGTH ? parseAcct(acct, config.domain) : null;
    if (!parsed) throw new ApiError(404, NOT_FOUND);
    // Known accounts only: Mastodon's lookup skips WebFinger on purpose.
    const account = await findViewableAccountByHandle(database, parsed.username, parsed.domain);
    if (!account) throw new ApiError(404, NOT_FOUND);
    const [entity] = await loadAccountEntitiesFor(
      database.db,
      mediaUrls,
      [account.id],
      viewerAccountId(c),
    );
    if (!entity) throw new ApiError(404, NOT_FOUND);
    return c.json(entity);
  });

  // Before the `:id` routes only for readability; `:id` is digits-only anyway.
  app.route("/", accountSearchRoutes());
  app.route("/", accountListRoutes());

  app.get("/api/v1/accounts", readAccounts, async (c) => {
    const { database, mediaUrls } = c.get("ctx");
    const requested = readStringArray(await params(c), "id") ?? [];
    // Mastodon counts distinct ids against the cap.
    const distinct = [...new Set(requested)];
    if (distinct.length > MAX_ACCOUNT_IDS) {
      throw new ApiError(
        422,
        `Validation failed: Id has too many items (maximum is ${MAX_ACCOUNT_IDS})`,
      );
    }
    const ids = await filterViewableAccountIds(database, distinct.filter((id) => isId(id)));
    return c.json(await loadAccountEntitiesFor(database.db, mediaUrls, ids, viewerAccountId(c)));
  });

  app.get("/api/v1/accounts/:id{[0-9]+}", readAccounts, async (c) => {
    const { database, mediaUrls } = c.get("ctx");
    const account = await accountFromPath(c);
    const [entity] = await loadAccountEntitiesFor(
      database.db,
      mediaUrls,
      [account.id],
      viewerAccountId(c),
    );
    if (!entity) throw new ApiError(404, NOT_FOUND);
    return c.json(entity);
  });

  app.get("/api/v1/accounts/:id{[0-9]+}/lists", requireUser("read:lists"), async (c) => {
    const account = await accountFromPath(c);
    const rows = await listsContaining(c.get("ctx").database.db, viewerAccountId(c)!, account.id);
    return c.json(rows.map(listEntity));
  });

  app.get(
    "/api/v1/accounts/:id{[0-9]+}/identity_proofs",
    requireUser("read:accounts"),
    async (c) => {
      await accountFromPath(c);
      return c.json([]);
    },
  );

  return app;
}
