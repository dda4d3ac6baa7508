/**
 * OAuth 2 use cases: registering an application, authenticating a client,
 * issuing and redeeming authorization codes, issuing client-credentials
 * tokens and revoking tokens. The HTTP side (api/routes/oauth*.ts) only
 * parses requests and shapes answers; every rule lives here.
 *
 * Codes, secrets and tokens are stored as SHA-256 hashes (see tokens.ts), so
 * every lookup hashes the presented value first; comparisons that involve a
 * secret go through {@link constantTimeEqual}.
 */
import { and, eq, isNull, sql } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { newId } from "../../db/ids.ts";
import {
  oauthAccessTokens,
  oauthApplications,
  oauthAuthorizationCodes,
} from "../../db/schema/mod.ts";
import { parseScopes, scopesWithin } from "../../model/scopes.ts";
import { createAccessToken, createApplication, hashSecret, randomSecret } from "./tokens.ts";

/** The out-of-band redirect URI: the code is shown to the user instead of sent. */
export const OOB_REDIRECT_URI = "urn:ietf:wg:oauth:2.0:oob";
/** Lifetime of an authorization code (Doorkeeper's default, as in Mastodon). */
export const CODE_LIFETIME_MS = 10 * 60 * 1000;
/** The scope granted when a request names none. */
export const DEFAULT_SCOPES = ["read"] as const;

/** Bounds on registrations (Mastodon's Application validations, plus a URI count). */
export const APP_LIMITS = {
  nameMax: 60,
  websiteMax: 2000,
  redirectUriMax: 2000,
  redirectUrisMax: 10,
} as const;

export type ApplicationRow = typeof oauthApplications.$inferSelect;
export type AccessTokenRow = typeof oauthAccessTokens.$inferSelect;

/** C0 controls and DEL: never meaningful in names, URIs or ids, and PostgreSQL refuses NUL. */
// deno-lint-ignore no-control-regex
const CONTROL_CHARACTERS = /[\x00-\x1f\x7f]/;

/** Whether a value holds control characters (a NUL would make PostgreSQL fail the query). */
export function hasControlCharacters(value: string): boolean {
  return CONTROL_CHARACTERS.test(value);
}

/** Compares two strings without leaking where they differ through timing. */
export function constantTimeEqual(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  // Length is not secret here (hashes and fixed-size tokens); still walk the longer one.
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

/** A registration problem, worded as Mastodon's "Validation failed: …" reasons. */
export class AppValidationError extends Error {
  constructor(readonly reasons: string[]) {
    super(reasons.join(", "));
  }
}

/** What a client sends to register. */
export interface AppRegistration {
  name: string | undefined;
  website: string | undefined;
  /** Raw redirect URIs: one string (newline or space separated) or a list. */
  redirectUris: string[] | undefined;
  /** Raw scope string; absent or blank means `read`. */
  scopes: string | undefined;
}

const FORBIDDEN_REDIRECT_SCHEMES = new Set(["javascript:", "data:", "vbscript:", "file:", "blob:"]);

/**
 * Why a redirect URI is unacceptable, in Doorkeeper's words, or null when it
 * is fine. Custom schemes (`elk://`, `com.example.app:/cb`) are allowed, as
 * native apps need them; fragments are not (RFC 6749 3.1.2).
 */
export function redirectUriProblem(uri: string): string | null {
  if (uri === OOB_REDIRECT_URI) return null;
  if (uri.length > APP_LIMITS.redirectUriMax) {
    return `is too long (maximum is ${APP_LIMITS.redirectUriMax} characters)`;
  }
  if (/\s/.test(uri) || hasControlCharacters(uri)) return "must be a valid URI.";
  if (!/^[a-z][a-z0-9+.-]*:/i.test(uri)) return "must be an absolute URI.";
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return "must be a valid URI.";
  }
  // "localhost:3000" parses as scheme "localhost"; Doorkeeper calls that unspecified.
  if (/^[a-z][a-z0-9+.-]*:\d+(\/|$)/i.test(uri)) return "must specify a scheme.";
  if (uri.includes("#")) return "cannot contain a fragment.";
  if (FORBIDDEN_REDIRECT_SCHEMES.has(url.protocol.toLowerCase())) {
    return "is forbidden by the server.";
  }
  if ((url.protocol === "http:" || url.protocol === "https:") && !url.hostname) {
    return "must be an absolute URI.";
  }
  return null;
}

/** Splits the raw redirect URIs (strings may hold several, newline or space separated). */
export function splitRedirectUris(raw: string[]): string[] {
  return [...new Set(raw.flatMap((s) => s.split(/\s+/)).filter(Boolean))];
}

function websiteProblem(website: string): string | null {
  if (hasControlCharacters(website)) return "is invalid";
  if (website.length > APP_LIMITS.websiteMax) {
    return `is too long (maximum is ${APP_LIMITS.websiteMax} characters)`;
  }
  try {
    const url = new URL(website);
    if ((url.protocol === "http:" || url.protocol === "https:") && url.hostname) return null;
  } catch {
    // fall through
  }
  return "is invalid";
}

/** Checks a registration and returns the values to store, or throws AppValidationError. */
export function validateRegistration(input: AppRegistration) {
  const reasons: string[] = [];
  const name = input.name?.trim() ?? "";
  if (!name) reasons.push("Name can't be blank");
  else if (hasControlCharacters(name)) reasons.push("Name is invalid");
  else if ([...name].length > APP_LIMITS.nameMax) {
    reasons.push(`Name is too long (maximum is ${APP_LIMITS.nameMax} characters)`);
  }
  const redirectUris = splitRedirectUris(input.redirectUris ?? []);
  if (redirectUris.length === 0) reasons.push("Redirect URI can't be blank");
  else if (redirectUris.length > APP_LIMITS.redirectUrisMax) {
    reasons.push(`Redirect URI has too many entries (maximum is ${APP_LIMITS.redirectUrisMax})`);
  } else {
    const problems = new Set(redirectUris.map(redirectUriProblem).filter((p) => p != null));
    for (const problem of problems) reasons.push(`Redirect URI ${problem}`);
  }
  let scopes: string[] = [...DEFAULT_SCOPES];
  if (input.scopes?.trim()) {
    const parsed = parseScopes(input.scopes);
    if (!parsed.ok) reasons.push("Scopes doesn't match configured on the server.");
    else scopes = parsed.scopes;
  }
  const website = input.website?.trim() || null;
  if (website) {
    const problem = websiteProblem(website);
    if (problem) reasons.push(`Website ${problem}`);
  }
  if (reasons.length) throw new AppValidationError(reasons);
  return { name, website, redirectUris, scopes };
}

/** Registers an application; the client secret is returned once. */
export async function registerApplication(db: Executor, input: AppRegistration) {
  const values = validateRegistration(input);
  return await createApplication(db, values);
}

/**
 * The application with this client id, if any. The built-in "Web"
 * application (migration 0054) is never a client: its tokens are made for
 * browser sessions only (actors/auth/web_tokens.ts).
 */
export async function findApplicationByClientId(
  db: Executor,
  clientId: string,
): Promise<ApplicationRow | null> {
  if (!clientId || clientId.length > 200 || hasControlCharacters(clientId)) return null;
  const [row] = await db.select().from(oauthApplications)
    .where(and(eq(oauthApplications.clientId, clientId), eq(oauthApplications.superapp, false)))
    .limit(1);
  return row ?? null;
}

/** The application with this id, if any. */
export async function findApplication(db: Executor, id: string): Promise<ApplicationRow | null> {
  const [row] = await db.select().from(oauthApplications).where(eq(oauthApplications.id, id))
    .limit(1);
  return row ?? null;
}

/**
 * The application whose client id and secret these are, or null. The secret
 * is hashed and compared in constant time; an unknown client id costs the
 * same hash so the two failures look alike.
 */
export async function authenticateClient(
  db: Executor,
  clientId: string,
  clientSecret: string,
): Promise<ApplicationRow | null> {
  const app = await findApplicationByClientId(db, clientId);
  const presented = await hashSecret(clientSecret);
  if (!app) return null;
  return constantTimeEqual(presented, app.clientSecretHash) ? app : null;
}

/** Parses requested scopes: absent/blank means `read`; null when unknown or not registered. */
export function requestedScopes(raw: string | undefined, registered: readonly string[]) {
  if (!raw || !raw.trim()) {
    return scopesWithin(DEFAULT_SCOPES, registered) ? [...DEFAULT_SCOPES] : null;
  }
  const parsed = parseScopes(raw);
  if (!parsed.ok || parsed.scopes.length === 0) return null;
  return scopesWithin(parsed.scopes, registered) ? parsed.scopes : null;
}

/** base64url(SHA-256(verifier)): the S256 PKCE transformation (RFC 7636 4.2). */
export async function s256(verifier: string): Promise<string> {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)),
  );
  return btoa(String.fromCharCode(...digest)).replaceAll("+", "-").replaceAll("/", "_")
    .replace(/=+$/, "");
}

/** Issues a one-time authorization code; the plain code is returned once. */
export async function issueAuthorizationCode(
  db: Executor,
  input: {
    applicationId: string;
    userId: string;
    redirectUri: string;
    scopes: string[];
    codeChallenge: string | null;
  },
  now = new Date(),
): Promise<string> {
  const code = randomSecret();
  await db.insert(oauthAuthorizationCodes).values({
    id: newId(),
    codeHash: await hashSecret(code),
    applicationId: input.applicationId,
    userId: input.userId,
    redirectUri: input.redirectUri,
    scopes: input.scopes,
    codeChallenge: input.codeChallenge,
    expiresAt: new Date(now.getTime() + CODE_LIFETIME_MS),
  });
  return code;
}

/** Why a code exchange failed: always answered as `invalid_grant`. */
export class InvalidGrantError extends Error {}

/**
 * Exchanges an authorization code for a user token. Every check (owner,
 * expiry, redirect URI, PKCE) happens before the code is spent, so a client
 * that got one detail wrong cannot burn someone else's code; spending it is a
 * conditional UPDATE, so of two concurrent exchanges only one wins.
 *
 * A code presented after it was spent means it leaked (or was intercepted):
 * the request is refused and the token issued from the first exchange is
 * revoked, as RFC 6749 4.1.2 asks and Doorkeeper does. The same holds for the
 * loser of two concurrent exchanges.
 */
export async function redeemAuthorizationCode(
  db: Executor,
  input: {
    application: ApplicationRow;
    code: string;
    redirectUri: string;
    codeVerifier: string | undefined;
  },
) {
  const [grant] = await db.select().from(oauthAuthorizationCodes)
    .where(eq(oauthAuthorizationCodes.codeHash, await hashSecret(input.code))).limit(1);
  if (!grant) throw new InvalidGrantError();
  if (grant.usedAt) {
    await revokeTokenIssuedFrom(db, grant.id);
    throw new InvalidGrantError();
  }
  if (grant.applicationId !== input.application.id) throw new InvalidGrantError();
  if (grant.expiresAt.getTime() <= Date.now()) throw new InvalidGrantError();
  if (grant.redirectUri !== input.redirectUri) throw new InvalidGrantError();
  if (grant.codeChallenge) {
    if (!input.codeVerifier) throw new InvalidGrantError();
    if (!constantTimeEqual(await s256(input.codeVerifier), grant.codeChallenge)) {
      throw new InvalidGrantError();
    }
  }
  try {
    return await db.transaction(async (tx) => {
      const issued = await createAccessToken(tx, {
        applicationId: grant.applicationId,
        userId: grant.userId,
        scopes: grant.scopes,
      });
      // Spending the code records the token it bought; losing the race rolls the token back.
      const spent = await tx.update(oauthAuthorizationCodes)
        .set({ usedAt: sql`now()`, accessTokenId: issued.row.id })
        .where(and(
          eq(oauthAuthorizationCodes.id, grant.id),
          isNull(oauthAuthorizationCodes.usedAt),
          sql`${oauthAuthorizationCodes.expiresAt} > now()`,
        ))
        .returning({ id: oauthAuthorizationCodes.id });
      if (spent.length === 0) throw new InvalidGrantError();
      return issued;
    });
  } catch (error) {
    // Lost to a concurrent exchange (or expired meanwhile, when there is nothing to revoke).
    if (error instanceof InvalidGrantError) await revokeTokenIssuedFrom(db, grant.id);
    throw error;
  }
}

/** Revokes the token an authorization code was exchanged for, if it has one. */
async function revokeTokenIssuedFrom(db: Executor, codeId: string): Promise<void> {
  await db.update(oauthAccessTokens).set({ revokedAt: sql`coalesce(revoked_at, now())` })
    .where(sql`oauth_access_tokens.id = (SELECT c.access_token_id
      FROM oauth_authorization_codes c WHERE c.id = ${codeId})`);
}

/** Issues an app token (no user) for the client credentials grant. */
export async function issueClientCredentialsToken(
  db: Executor,
  application: ApplicationRow,
  scopes: string[],
) {
  return await createAccessToken(db, { applicationId: application.id, userId: null, scopes });
}

/** The outcome of a revocation request. */
export type RevokeOutcome = "revoked" | "not_owned";

/**
 * Revokes a token the application owns. Revoking an already revoked token
 * succeeds again (RFC 7009 asks for idempotence); a token that does not exist
 * or belongs to another client is refused.
 */
export async function revokeToken(
  db: Executor,
  application: ApplicationRow,
  token: string,
): Promise<RevokeOutcome> {
  const [row] = await db.select({
    id: oauthAccessTokens.id,
    applicationId: oauthAccessTokens.applicationId,
  }).from(oauthAccessTokens)
    .where(eq(oauthAccessTokens.tokenHash, await hashSecret(token))).limit(1);
  if (!row || row.applicationId !== application.id) return "not_owned";
  await db.update(oauthAccessTokens).set({ revokedAt: sql`coalesce(revoked_at, now())` })
    .where(eq(oauthAccessTokens.id, row.id));
  return "revoked";
}
