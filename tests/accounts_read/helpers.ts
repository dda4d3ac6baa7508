/**
 * Fixtures for the account-reading tests: local users with tokens, remote
 * accounts, and relationship rows written straight to the database (the
 * relationship commands are tested on their own).
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { createLocalAccount } from "../../actors/accounts/accounts.ts";
import { createAccessToken, createApplication } from "../../actors/oauth/tokens.ts";
import { newId } from "../../db/ids.ts";
import {
  accountDomainBlocks,
  accounts,
  blocks,
  endorsements,
  featuredTags,
  follows,
  mutes,
  tags,
  users,
} from "../../db/schema/mod.ts";
import { json, type TestInstance } from "../harness.ts";

/** A local user with its ids. */
export interface LocalUser {
  accountId: string;
  userId: string;
  username: string;
  /** A token of this user with the given scopes (default `read`). */
  token(scopes?: string[]): Promise<string>;
}

/** A response with its parsed body. */
export interface Got<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** Builders bound to one instance. */
export function fixtures(instance: TestInstance) {
  const db = instance.rookery.ctx.database.db;
  let applicationId: string | null = null;

  async function appId(): Promise<string> {
    applicationId ??= (await createApplication(db, {
      name: "accounts read tests",
      redirectUris: ["urn:ietf:wg:oauth:2.0:oob"],
      scopes: ["read", "write", "follow"],
    })).application.id;
    return applicationId;
  }

  return {
    db,

    /** A confirmed, approved local user (or not, with the options). */
    async user(
      username: string,
      options: { confirmed?: boolean; approved?: boolean } = {},
    ): Promise<LocalUser> {
      const { account, user } = await createLocalAccount(db, instance.origin, {
        username,
        email: `${username}@example.com`,
        password: "correct horse battery",
        confirmed: options.confirmed ?? true,
        approved: options.approved ?? true,
      });
      return {
        accountId: account.id,
        userId: user.id,
        username,
        token: async (scopes = ["read"]) =>
          (await createAccessToken(db, {
            applicationId: await appId(),
            userId: user.id,
            scopes,
          })).token,
      };
    },

    /** An app (client credentials) token. */
    async appToken(scopes = ["read"]): Promise<string> {
      return (await createAccessToken(db, { applicationId: await appId(), userId: null, scopes }))
        .token;
    },

    /** A remote account row, as federation would have stored it. */
    async remote(
      username: string,
      domain: string,
      extra: Partial<typeof accounts.$inferInsert> = {},
    ): Promise<string> {
      const [row] = await db.insert(accounts).values({
        id: newId(),
        username,
        domain,
        uri: `https://${domain}/users/${username}`,
        url: `https://${domain}/@${username}`,
        fetchedAt: new Date(),
        ...extra,
      }).returning();
      return row.id;
    },

    async update(accountId: string, values: Partial<typeof accounts.$inferInsert>) {
      await db.update(accounts).set(values).where(eq(accounts.id, accountId));
    },

    async disableUser(userId: string) {
      await db.update(users).set({ disabled: true }).where(eq(users.id, userId));
    },

    /** `from` follows `to`; returns the follow row id (the paging cursor). */
    async follow(from: string, to: string): Promise<string> {
      const id = newId();
      await db.insert(follows).values({ id, accountId: from, targetAccountId: to });
      return id;
    },

    async block(from: string, to: string) {
      await db.insert(blocks).values({ id: newId(), accountId: from, targetAccountId: to });
    },

    async mute(from: string, to: string, expiresAt: Date | null = null) {
      await db.insert(mutes).values({
        id: newId(),
        accountId: from,
        targetAccountId: to,
        expiresAt,
      });
    },

    async domainBlock(from: string, domain: string) {
      await db.insert(accountDomainBlocks).values({ id: newId(), accountId: from, domain });
    },

    async endorse(from: string, to: string) {
      await db.insert(endorsements).values({ id: newId(), accountId: from, targetAccountId: to });
    },

    /** Features a hashtag on a profile; returns the featured tag id. */
    async featureTag(
      accountId: string,
      name: string,
      statusesCount = 0,
      lastStatusAt: Date | null = null,
    ): Promise<string> {
      const tagId = newId();
      await db.insert(tags).values({ id: tagId, name });
      const id = newId();
      await db.insert(featuredTags).values({ id, accountId, tagId, statusesCount, lastStatusAt });
      return id;
    },

    /** GET with an optional bearer token. */
    async get<T = any>(path: string, token?: string | null): Promise<Got<T>> {
      const res = await instance.request(path, {
        headers: token ? { authorization: `Bearer ${token}` } : {},
      });
      return { status: res.status, body: await json<T>(res), headers: res.headers };
    },
  };
}

/** The ids of an Account list, in order. */
export function ids(list: { id: string }[]): string[] {
  assert.ok(Array.isArray(list), `expected an array, got ${JSON.stringify(list)}`);
  return list.map((a) => a.id);
}

/** Parses a `Link` header into rel → URL. */
export function links(headers: Headers): Record<string, URL> {
  const out: Record<string, URL> = {};
  const header = headers.get("link");
  if (!header) return out;
  for (const part of header.split(",")) {
    const m = /<([^>]+)>;\s*rel="([^"]+)"/.exec(part.trim());
    if (m) out[m[2]] = new URL(m[1]);
  }
  return out;
}

/** Asserts a 404 "Record not found". */
export function assertNotFound(got: Got, label = ""): void {
  assert.equal(got.status, 404, `${label} status`);
  assert.deepEqual(got.body, { error: "Record not found" }, label);
}
