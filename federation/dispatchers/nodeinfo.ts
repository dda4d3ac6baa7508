/**
 * NodeInfo 2.1 (Fedify serves it and `/.well-known/nodeinfo`) and 2.0
 * (Mastodon's version, which some crawlers still ask for; see discovery.ts).
 */
import { type Federation, type NodeInfo, nodeInfoToJson } from "@fedify/fedify";
import { sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { MASTODON_COMPAT_VERSION, ROOKERY_VERSION, SOURCE_URL } from "../../version.ts";

/** Where the NodeInfo documents live. */
export const NODEINFO_21_PATH = "/nodeinfo/2.1";
export const NODEINFO_20_PATH = "/nodeinfo/2.0";

/** Registers the NodeInfo 2.1 dispatcher. */
export function registerNodeInfo(federation: Federation<AppContext>): void {
  federation.setNodeInfoDispatcher(NODEINFO_21_PATH, (ctx) => buildNodeInfo(ctx.data));
}

/** The NodeInfo of this server, with usage counted from the database. */
export async function buildNodeInfo(app: AppContext): Promise<NodeInfo> {
  const usage = await countUsage(app);
  return {
    software: {
      name: "rookery",
      version: ROOKERY_VERSION,
      repository: new URL(SOURCE_URL),
      homepage: new URL(SOURCE_URL),
    },
    protocols: ["activitypub"],
    services: { inbound: [], outbound: [] },
    openRegistrations: app.config.registrations !== "closed",
    usage: {
      users: { total: usage.total, activeHalfyear: usage.halfYear, activeMonth: usage.month },
      localPosts: usage.localPosts,
      localComments: 0,
    },
    metadata: {
      nodeName: app.config.instance.title,
      // The client API we speak. megalodon (Whalebird and the apps built on
      // it) chooses its driver by `software.name`, else by this, and refuses
      // a server it cannot place ("Unknown SNS").
      upstream: { name: "Mastodon", version: MASTODON_COMPAT_VERSION },
    },
  };
}

/**
 * NodeInfo 2.0 JSON: the 2.1 document without what 2.0 lacks
 * (`software.repository` and `software.homepage`).
 */
export function nodeInfo20Json(nodeInfo: NodeInfo): Record<string, unknown> {
  const json = nodeInfoToJson(nodeInfo) as Record<string, unknown>;
  const software = json.software as Record<string, unknown>;
  return {
    ...json,
    $schema: "http://nodeinfo.diaspora.software/ns/schema/2.0#",
    version: "2.0",
    software: { name: software.name, version: software.version },
  };
}

/**
 * Counts users and posts. A user is active in a window when they signed in
 * within it or a login_activity week overlaps it (a week row means "active
 * some time in the 7 days from `week`").
 */
async function countUsage(app: AppContext) {
  const [row] = await app.database.rows<Record<string, string | number>>(sql`
    SELECT
      count(*) AS total,
      count(*) FILTER (WHERE ${activeSince(sql`interval '180 days'`)}) AS half_year,
      count(*) FILTER (WHERE ${activeSince(sql`interval '30 days'`)}) AS month,
      (SELECT count(*) FROM statuses s WHERE s.local AND s.deleted_at IS NULL) AS local_posts
    FROM accounts a
    JOIN users u ON u.account_id = a.id
    WHERE a.domain IS NULL AND a.deleted_at IS NULL
  `);
  return {
    total: Number(row.total),
    halfYear: Number(row.half_year),
    month: Number(row.month),
    localPosts: Number(row.local_posts),
  };
}

function activeSince(window: ReturnType<typeof sql>) {
  return sql`(u.last_sign_in_at >= now() - ${window} OR EXISTS (
    SELECT 1 FROM login_activity la
    WHERE la.user_id = u.id AND la.week > now() - ${window} - interval '7 days'))`;
}
