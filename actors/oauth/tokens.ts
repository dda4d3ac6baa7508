/**
 * OAuth secrets: tokens, client ids and secrets are random strings handed out
 * once; the database keeps only their SHA-256, so a database leak reveals no
 * usable credential.
 */
import { createHash } from "node:crypto";
import { eq } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { newId } from "../../db/ids.ts";
import { oauthAccessTokens, oauthApplications } from "../../db/schema/mod.ts";

/** 32 random bytes, base64url: the shape of every secret we issue. */
export function randomSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_")
    .replace(/=+$/, "");
}

export function hashSecret(secret: string): Promise<string> {
  // node:crypto hashes synchronously on this thread; WebCrypto's digest goes
  // through an async op, which cost ~9% of a timeline request's CPU.
  return Promise.resolve(createHash("sha256").update(secret).digest("hex"));
}

export interface NewApplication {
  name: string;
  website?: string | null;
  redirectUris: string[];
  scopes: string[];
  ownerUserId?: string | null;
}

/** Registers an OAuth application; the secret is returned once and stored hashed. */
export async function createApplication(db: Executor, input: NewApplication) {
  const clientId = randomSecret();
  const clientSecret = randomSecret();
  const [row] = await db.insert(oauthApplications).values({
    id: newId(),
    name: input.name,
    website: input.website ?? null,
    redirectUris: input.redirectUris,
    scopes: input.scopes,
    clientId,
    clientSecretHash: await hashSecret(clientSecret),
    ownerUserId: input.ownerUserId ?? null,
  }).returning();
  return { application: row, clientSecret };
}

/** Issues an access token; the plain token is returned once and stored hashed. */
export async function createAccessToken(
  db: Executor,
  input: { applicationId: string | null; userId: string | null; scopes: string[] },
) {
  const token = randomSecret();
  const [row] = await db.insert(oauthAccessTokens).values({
    id: newId(),
    tokenHash: await hashSecret(token),
    applicationId: input.applicationId,
    userId: input.userId,
    scopes: input.scopes,
  }).returning();
  return { token, row };
}

/** Finds a live (not revoked) token row by its plain value. */
export async function findAccessToken(db: Executor, token: string) {
  const [row] = await db.select().from(oauthAccessTokens)
    .where(eq(oauthAccessTokens.tokenHash, await hashSecret(token))).limit(1);
  return row && !row.revokedAt ? row : null;
}
