/**
 * What this server federates with (Mastodon's DomainBlock and DomainAllow):
 * instance-wide blocks of other servers, and the allow-list that limited
 * federation (FEDERATION_MODE=allowlist) admits. A user's own domain blocks
 * are `account_domain_blocks` (core.ts). Enforcement reads these through
 * actors/moderation/domain_rules.ts; triggers (migration 0023) tell every process when
 * they change.
 */
import { sql } from "drizzle-orm";
import { boolean, check, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { id, ts } from "./columns.ts";

export const domainBlocks = pgTable("domain_blocks", {
  id: id("id").primaryKey(),
  /** Normalized (lower case, punycode); covers its subdomains. */
  domain: text("domain").notNull(),
  /** silence (limited), suspend, or noop (only the reject_* flags apply). */
  severity: text("severity").notNull().default("silence"),
  rejectMedia: boolean("reject_media").notNull().default(false),
  rejectReports: boolean("reject_reports").notNull().default(false),
  privateComment: text("private_comment"),
  publicComment: text("public_comment"),
  /** Shown partly starred in public lists. */
  obfuscate: boolean("obfuscate").notNull().default(false),
  createdAt: ts("created_at").notNull().defaultNow(),
  updatedAt: ts("updated_at").notNull().defaultNow(),
}, (t) => [
  uniqueIndex("domain_blocks_domain_idx").on(t.domain),
  check("domain_blocks_severity_check", sql`${t.severity} IN ('silence', 'suspend', 'noop')`),
]);

export const domainAllows = pgTable("domain_allows", {
  id: id("id").primaryKey(),
  domain: text("domain").notNull(),
  createdAt: ts("created_at").notNull().defaultNow(),
  updatedAt: ts("updated_at").notNull().defaultNow(),
}, (t) => [uniqueIndex("domain_allows_domain_idx").on(t.domain)]);
