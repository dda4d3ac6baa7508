/**
 * The instance API: what a client reads before and after signing in to learn
 * the server's name, limits, rules and contact, plus the public statistics.
 *
 * Decisions where Mastodon depends on settings we do not have yet:
 * - /peers and /activity are public (Mastodon's default settings).
 * - /domain_blocks answers `[]`: the server has no domain blocks to hide.
 * - /privacy_policy and /terms_of_service come from the operator's files
 *   (instance_documents.ts), 404 when none is configured.
 * - /peers/search (also at Mastodon's own path, /api/v1/peers/search): up to
 *   10 known domains starting with `q`, public like /peers.
 * - /translation_languages: the configured backend's languages
 *   (actors/translation/service.ts), `{}` without one, 503 when the backend
 *   cannot be asked (Mastodon lets that error through as a 500).
 */
import { currentCampaign } from "../../actors/annual_reports/state.ts";
import { Hono } from "hono";
import { asc, sql } from "drizzle-orm";
import ISO6391 from "iso-639-1";
import type { ApiEnv } from "../env.ts";
import type { Database } from "../../db/connection.ts";
import { instanceRules } from "../../db/schema/mod.ts";
import { type Account, loadAccountEntities } from "../entities/account.ts";
import { ruleEntity } from "../entities/rule.ts";
import {
  extendedDescription,
  type InstanceFacts,
  type InstanceStats,
  instanceV1,
  instanceV2,
  type Rule,
} from "../entities/instance.ts";
import type { AppContext } from "../../context.ts";
import { weekStart } from "../middleware/auth.ts";
import { params } from "../params.ts";
import { readString } from "../readers.ts";
import { instanceDocumentRoutes } from "./instance_documents.ts";
import { vapidKeys } from "../../actors/push/vapid.ts";
import { translationLanguages } from "../../actors/translation/service.ts";
import { TranslationUnavailableError } from "../../actors/translation/backend.ts";
import { translationUnavailable } from "./translations.ts";

const WEEK_MS = 7 * 24 * 60 * 60 * 1000;

/** Rules in display order. */
export async function loadRules(database: Database): Promise<Rule[]> {
  const rows = await database.db.select().from(instanceRules)
    .orderBy(asc(instanceRules.position), asc(instanceRules.id));
  return rows.map(ruleEntity);
}

/**
 * The contact account: the configured username if that local account exists
 * (and is not suspended), else the oldest owner, else the oldest admin.
 */
export async function loadContactAccount(ctx: AppContext): Promise<Account | null> {
  const { database, config } = ctx;
  const wanted = config.instance.contactUsername?.toLowerCase() ?? "";
  const [row] = await database.rows<{ id: string }>(sql`
    SELECT a.id FROM accounts a JOIN users u ON u.account_id = a.id
    WHERE a.domain IS NULL AND a.suspended_at IS NULL AND a.deleted_at IS NULL
      AND (lower(a.username) = ${wanted} OR u.role IN ('owner', 'admin'))
    ORDER BY (lower(a.username) = ${wanted}) DESC, (u.role = 'owner') DESC, u.id ASC
    LIMIT 1`);
  if (!row) return null;
  const [account] = await loadAccountEntities(database.db, ctx.mediaUrls, [String(row.id)]);
  return account ?? null;
}

/** Counts for the instance entities, in one query. */
export async function loadCounts(
  database: Database,
  now = new Date(),
): Promise<InstanceStats & { activeMonth: number }> {
  const monthAgo = new Date(now.getTime() - 30 * 24 * 60 * 60 * 1000).toISOString();
  // Mastodon counts logins over the current and the three previous weeks.
  const fourWeeks = new Date(weekStart(now).getTime() - 3 * WEEK_MS).toISOString();
  const [row] = await database.rows<Record<string, string | number>>(sql`
    SELECT
      (SELECT count(*) FROM users u JOIN accounts a ON a.id = u.account_id
        WHERE a.suspended_at IS NULL AND a.deleted_at IS NULL) AS user_count,
      (SELECT count(*) FROM statuses WHERE local AND deleted_at IS NULL) AS status_count,
      (SELECT count(DISTINCT lower(domain)) FROM accounts WHERE domain IS NOT NULL)
        AS domain_count,
      (SELECT count(*) FROM users u WHERE u.last_sign_in_at >= ${monthAgo}::timestamptz
        OR EXISTS (SELECT 1 FROM login_activity l
          WHERE l.user_id = u.id AND l.week >= ${fourWeeks}::timestamptz)) AS active_month`);
  return {
    userCount: Number(row.user_count),
    statusCount: Number(row.status_count),
    domainCount: Number(row.domain_count),
    activeMonth: Number(row.active_month),
  };
}

async function loadFacts(ctx: AppContext) {
  const [counts, contactAccount, rules, vapid] = await Promise.all([
    loadCounts(ctx.database),
    loadContactAccount(ctx),
    loadRules(ctx.database),
    vapidKeys(ctx),
  ]);
  const facts: InstanceFacts = {
    activeMonth: counts.activeMonth,
    contactAccount,
    rules,
    vapidKey: vapid.serverKey,
    wrapstodon: currentCampaign(ctx, ctx.now?.() ?? new Date()),
  };
  return { facts, counts };
}

/** Twelve weeks of activity, newest first, as Mastodon's strings. */
export async function loadActivity(database: Database, now = new Date()) {
  const current = weekStart(now);
  const oldest = new Date(current.getTime() - 11 * WEEK_MS);
  const rows = await database.rows<Record<string, string | number>>(sql`
    WITH weeks AS (
      SELECT generate_series(${oldest.toISOString()}::timestamptz,
        ${current.toISOString()}::timestamptz, interval '7 days') AS week
    )
    SELECT extract(epoch FROM w.week)::bigint AS week,
      (SELECT count(*) FROM statuses s WHERE s.local
        AND s.created_at >= w.week AND s.created_at < w.week + interval '7 days') AS statuses,
      (SELECT count(*) FROM login_activity l WHERE l.week = w.week) AS logins,
      (SELECT count(*) FROM accounts a WHERE a.domain IS NULL
        AND a.created_at >= w.week AND a.created_at < w.week + interval '7 days') AS registrations
    FROM weeks w ORDER BY w.week DESC`);
  return rows.map((r) => ({
    week: String(r.week),
    statuses: String(r.statuses),
    logins: String(r.logins),
    registrations: String(r.registrations),
  }));
}

/** Known remote domains, sorted. */
export async function loadPeers(database: Database): Promise<string[]> {
  const rows = await database.rows<{ domain: string }>(sql`
    SELECT DISTINCT lower(domain) AS domain FROM accounts WHERE domain IS NOT NULL
      -- Silenced and suspended servers are not advertised (Mastodon's Instance.searchable).
      AND NOT EXISTS (SELECT 1 FROM domain_blocks pb
        WHERE pb.domain = ANY(rookery_domain_variants(accounts.domain))
          AND pb.severity IN ('silence', 'suspend'))
    ORDER BY 1`);
  return rows.map((r) => r.domain);
}

/** How many domains /peers/search answers (Mastodon's limit). */
const PEER_SEARCH_LIMIT = 10;

/**
 * Known remote domains that start with `q` (trimmed, lower case), sorted; []
 * for a blank or overlong `q`. LIKE's wildcards in `q` match themselves.
 */
export async function searchPeers(database: Database, q: string): Promise<string[]> {
  const prefix = q.trim().toLowerCase().replace(/\/$/, "");
  if (prefix === "" || prefix.length > 253) return [];
  const pattern = prefix.replace(/[\\%_]/g, (ch) => `\\${ch}`) + "%";
  const rows = await database.rows<{ domain: string }>(sql`
    SELECT DISTINCT lower(domain) AS domain FROM accounts
    WHERE domain IS NOT NULL AND lower(domain) LIKE ${pattern}
    ORDER BY 1 LIMIT ${PEER_SEARCH_LIMIT}`);
  return rows.map((r) => r.domain);
}

/** ISO 639-1 languages with their English names. */
export function languageList(): { code: string; name: string }[] {
  return ISO6391.getAllCodes().map((code) => ({ code, name: ISO6391.getName(code) }));
}

/** The instance routes. */
export function instanceRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get("/api/v2/instance", async (c) => {
    const ctx = c.get("ctx");
    const { facts } = await loadFacts(ctx);
    return c.json(instanceV2(ctx.config, facts));
  });

  app.get("/api/v1/instance", async (c) => {
    const ctx = c.get("ctx");
    const { facts, counts } = await loadFacts(ctx);
    return c.json(instanceV1(ctx.config, facts, counts));
  });

  app.get("/api/v1/instance/peers", async (c) => c.json(await loadPeers(c.get("ctx").database)));
  app.get(
    "/api/v1/instance/activity",
    async (c) => c.json(await loadActivity(c.get("ctx").database)),
  );
  app.get("/api/v1/instance/rules", async (c) => c.json(await loadRules(c.get("ctx").database)));
  app.get(
    "/api/v1/instance/extended_description",
    (c) => c.json(extendedDescription(c.get("ctx").config.instance.extendedDescription)),
  );
  app.get("/api/v1/instance/translation_languages", async (c) => {
    try {
      return c.json(await translationLanguages(c.get("ctx")));
    } catch (error) {
      if (error instanceof TranslationUnavailableError) throw translationUnavailable(error);
      throw error;
    }
  });
  app.get("/api/v1/instance/languages", (c) => c.json(languageList()));
  app.route("/", instanceDocumentRoutes());
  for (const path of ["/api/v1/instance/peers/search", "/api/v1/peers/search"]) {
    app.get(path, async (c) => {
      const q = readString(await params(c), "q", { allowBlank: true }) ?? "";
      return c.json(await searchPeers(c.get("ctx").database, q));
    });
  }

  return app;
}
