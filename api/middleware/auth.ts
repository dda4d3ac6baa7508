/**
 * Resolves the request's OAuth bearer token once, with one query that also
 * brings the token's user (or from the entity cache, for read requests),
 * and exposes them as `c.var.token` / `c.var.user`.
 *
 * It enforces nothing: a missing, unknown or revoked token simply leaves both
 * null (the request is then anonymous and rate-limited per IP). Scope checks
 * belong to the scope middleware that routes declare.
 *
 * It also records activity for the instance statistics: one `login_activity`
 * row per user and week, one `user_activity_days` row per user and day
 * (actors/accounts/user_activity.ts), and `users.last_sign_in_at` at most hourly. All
 * are memoized in this process so the steady state costs no extra query.
 */
import type { MiddlewareHandler } from "hono";
import { eq, sql } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { ApiEnv } from "../env.ts";
import { hashSecret } from "../../actors/oauth/tokens.ts";
import { type ActivityMemo, recordActiveDay } from "../../actors/accounts/user_activity.ts";
import {
  accounts,
  loginActivity,
  oauthAccessTokens,
  users,
  webSessions,
} from "../../db/schema/mod.ts";
import { SESSION_IDLE_MS } from "../../actors/auth/sessions.ts";
import { WEB_TOKEN_PATH } from "../../actors/auth/web_tokens.ts";
import type { Executor } from "../../db/connection.ts";
import type { AppContext } from "../../context.ts";
import { prepared } from "../../db/queries/prepared.ts";
import type { AuthToken, AuthUser } from "../auth_types.ts";

export type { AuthToken, AuthUser };

const logger = getLogger(["rookery", "http", "auth"]);

/** The token sent with a request: `Authorization: Bearer …`, or `access_token` in the query. */
export function bearerToken(request: Request): string | null {
  const header = request.headers.get("authorization");
  if (header) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return match ? match[1] : null;
  }
  // Doorkeeper (and so Mastodon) also takes the token as a query parameter;
  // browsers cannot set headers on WebSocket and EventSource requests.
  const fromQuery = new URL(request.url).searchParams.get("access_token");
  return fromQuery || null;
}

/** A live token and its user. */
export interface FoundToken {
  token: AuthToken;
  user: AuthUser | null;
}

/**
 * The live token a request presents. Read requests (GET, HEAD) take it
 * from the entity cache when it is there: a revoked token, or a change to
 * its user, evicts it through the cache's invalidation (migration 0008),
 * and the cache first applies this process's own earlier writes. Other
 * requests always ask the database, so nothing that writes can run on a
 * token another process revoked a moment ago.
 */
export async function findToken(
  { database, core }: Pick<AppContext, "database" | "core">,
  token: string,
  read: boolean,
): Promise<FoundToken | null> {
  const hash = await hashSecret(token);
  if (!read) return await lookupToken(database.db, hash);
  const cache = core.entityCache;
  const epoch = await cache.begin();
  if (!cache.enabled) return await lookupToken(database.db, hash);
  const hit = cache.tokens.get(hash);
  if (hit) return hit.found;
  const found = await lookupToken(database.db, hash);
  if (found) {
    cache.storeToken(epoch, hash, {
      tokenId: found.token.id,
      accountId: found.user?.accountId ?? null,
      found,
    });
  }
  return found;
}

/** Finds a live token (by the hash of its secret) and its user in one query. */
export async function lookupToken(db: Executor, hash: string): Promise<FoundToken | null> {
  // Built once per database handle (every request runs it).
  const query = prepared(db, "lookup_token", () =>
    db.select({
      id: oauthAccessTokens.id,
      applicationId: oauthAccessTokens.applicationId,
      userId: oauthAccessTokens.userId,
      scopes: oauthAccessTokens.scopes,
      revokedAt: oauthAccessTokens.revokedAt,
      accountId: users.accountId,
      role: users.role,
      disabled: users.disabled,
      approved: users.approved,
      confirmedAt: users.confirmedAt,
      suspendedAt: accounts.suspendedAt,
      webSessionId: oauthAccessTokens.webSessionId,
      sessionSeenAt: webSessions.lastSeenAt,
    }).from(oauthAccessTokens)
      .leftJoin(users, eq(users.id, oauthAccessTokens.userId))
      .leftJoin(accounts, eq(accounts.id, users.accountId))
      .leftJoin(webSessions, eq(webSessions.id, oauthAccessTokens.webSessionId))
      .where(eq(oauthAccessTokens.tokenHash, sql.placeholder("hash")))
      .limit(1).prepare("lookup_token"));
  const [row] = await query.execute({ hash });
  if (!row || row.revokedAt) return null;
  // A web token lives as long as its session: an idle-expired one is over.
  if (
    row.webSessionId &&
    (!row.sessionSeenAt || Date.now() - row.sessionSeenAt.getTime() > SESSION_IDLE_MS)
  ) return null;
  const authToken: AuthToken = {
    id: row.id,
    applicationId: row.applicationId,
    userId: row.userId,
    scopes: row.scopes,
    ...(row.webSessionId ? { webSession: true } : {}),
  };
  if (!row.userId || !row.accountId) return { token: { ...authToken, userId: null }, user: null };
  return {
    token: authToken,
    user: {
      id: row.userId,
      accountId: row.accountId,
      role: row.role ?? "user",
      // Mastodon's `functional?`: a suspended account's login is disabled too.
      disabled: (row.disabled ?? false) || row.suspendedAt != null,
      approved: row.approved ?? true,
      confirmed: row.confirmedAt != null,
    },
  };
}

/** Monday 00:00 UTC of the week that contains `date`. */
export function weekStart(date: Date): Date {
  const daysSinceMonday = (date.getUTCDay() + 6) % 7;
  return new Date(
    Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() - daysSinceMonday),
  );
}

const SIGN_IN_INTERVAL_MS = 60 * 60 * 1000;

/**
 * Records that a user used the API now: the week's login_activity row and,
 * hourly, users.last_sign_in_at. Costs nothing when both are fresh (what
 * this process wrote is in the core's {@link ActivityMemo}).
 */
export async function recordUserActivity(
  db: Executor,
  memo: ActivityMemo,
  userId: string,
  now = new Date(),
): Promise<void> {
  const week = weekStart(now).getTime();
  const needWeek = memo.weeks.get(userId) !== week;
  const lastSignIn = memo.signIns.get(userId);
  const needSignIn = lastSignIn == null || now.getTime() - lastSignIn >= SIGN_IN_INTERVAL_MS;
  await recordActiveDay(db, memo, userId, now);
  if (!needWeek && !needSignIn) return;
  if (needWeek) {
    await db.insert(loginActivity).values({ userId, week: new Date(week) }).onConflictDoNothing();
    memo.remember(memo.weeks, userId, week);
  }
  if (needSignIn) {
    await db.update(users).set({ lastSignInAt: sql`now()` }).where(eq(users.id, userId));
    memo.remember(memo.signIns, userId, now.getTime());
  }
}

/** The middleware: sets `token` and `user` (null when absent or invalid). */
export function authenticate(): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    c.set("token", null);
    c.set("user", null);
    const plain = bearerToken(c.req.raw);
    if (plain) {
      const { database } = c.get("ctx");
      const method = c.req.method;
      const found = await findToken(c.get("ctx"), plain, method === "GET" || method === "HEAD");
      // A page's web token watches the stream and nothing else: anywhere
      // else it is as unknown as a wrong token, so a leaked one reads nothing.
      if (found && (!found.token.webSession || c.req.path.startsWith(WEB_TOKEN_PATH))) {
        c.set("token", found.token);
        c.set("user", found.user);
        // Opening a stream is not API use Mastodon counts (its streaming
        // server records nothing): skipping it spares a thousand phones
        // reconnecting at once two writes each.
        if (found.user && !c.req.path.startsWith("/api/v1/streaming")) {
          try {
            await recordUserActivity(database.db, c.get("ctx").core.activity, found.user.id);
          } catch (error) {
            // Statistics must never cost the user their request.
            logger.warn("Could not record activity of user {userId}: {error}", {
              userId: found.user.id,
              error,
            });
          }
        }
      }
    }
    await next();
  };
}
