/**
 * Who may sign up and who may connect at all (Mastodon's EmailDomainBlock,
 * IpBlock and CanonicalEmailBlock), managed by staff with `manage_blocks`
 * through the admin API and applied by actors/access_blocks/.
 */
import { sql } from "drizzle-orm";
import {
  type AnyPgColumn,
  boolean,
  check,
  date,
  index,
  inet,
  integer,
  pgTable,
  primaryKey,
  text,
} from "drizzle-orm/pg-core";
import { id, ts } from "./columns.ts";
import { accounts } from "./core.ts";

/** An e-mail domain (and its subdomains) that may not sign up, or only with approval. */
export const emailDomainBlocks = pgTable("email_domain_blocks", {
  id: id("id").primaryKey(),
  /** Lowercase, IDNA (punycode) form; unique. */
  domain: text("domain").notNull().unique(),
  /** Sign-ups from the domain are let in but wait for approval instead of being refused. */
  allowWithApproval: boolean("allow_with_approval").notNull().default(false),
  /**
   * The block this one was derived from (Mastodon blocks a domain's MX hosts
   * as children of it); children go with their parent. Nothing derives
   * children yet (see docs/administration.md), so it is always null for now.
   */
  parentId: id("parent_id").references((): AnyPgColumn => emailDomainBlocks.id, {
    onDelete: "cascade",
  }),
  createdAt: ts("created_at").notNull().defaultNow(),
  updatedAt: ts("updated_at").notNull().defaultNow(),
});

/**
 * Sign-up attempts a block matched, per day and client address: the
 * entity's `history` (uses = attempts, accounts = distinct addresses), as
 * Mastodon counts them. Rows older than a week are purged as new ones come.
 */
export const emailDomainBlockAttempts = pgTable("email_domain_block_attempts", {
  blockId: id("block_id").notNull().references(() => emailDomainBlocks.id, {
    onDelete: "cascade",
  }),
  day: date("day", { mode: "string" }).notNull(),
  ip: text("ip").notNull(),
  uses: integer("uses").notNull().default(1),
}, (t) => [
  primaryKey({ columns: [t.blockId, t.day, t.ip] }),
  index("email_domain_block_attempts_day_idx").on(t.day),
]);

/** The severities of an IP block, Mastodon's. */
export const IP_BLOCK_SEVERITIES = [
  "sign_up_requires_approval",
  "sign_up_block",
  "no_access",
] as const;
export type IpBlockSeverity = typeof IP_BLOCK_SEVERITIES[number];

/** An address or network (CIDR) whose sign-ups, or whose every request, are refused. */
export const ipBlocks = pgTable("ip_blocks", {
  id: id("id").primaryKey(),
  /** The network address with its prefix (host bits cleared); unique. */
  ip: inet("ip").notNull().unique(),
  severity: text("severity").$type<IpBlockSeverity>().notNull(),
  comment: text("comment").notNull().default(""),
  /** Past this the block is ignored (and no longer listed as active). */
  expiresAt: ts("expires_at"),
  createdAt: ts("created_at").notNull().defaultNow(),
  updatedAt: ts("updated_at").notNull().defaultNow(),
}, (t) => [
  index("ip_blocks_severity_idx").on(t.severity),
  check(
    "ip_blocks_severity_check",
    sql`${t.severity} IN ('sign_up_requires_approval', 'sign_up_block', 'no_access')`,
  ),
]);

/** An e-mail address, in Mastodon's canonical form, that may not sign up again. */
export const canonicalEmailBlocks = pgTable("canonical_email_blocks", {
  id: id("id").primaryKey(),
  /** SHA-256 (hex) of the canonical address (actors/access_blocks/canonical_email.ts). */
  canonicalEmailHash: text("canonical_email_hash").notNull().unique(),
  /** The account whose address was blocked (when blocked from an account), if any. */
  referenceAccountId: id("reference_account_id").references(() => accounts.id, {
    onDelete: "set null",
  }),
  createdAt: ts("created_at").notNull().defaultNow(),
  updatedAt: ts("updated_at").notNull().defaultNow(),
});
