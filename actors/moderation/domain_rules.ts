/**
 * The one place that decides what this server does with another server:
 * whether a domain is suspended, silenced (limited), has its media or its
 * reports rejected, and whether it may federate at all (FEDERATION_MODE).
 * The inbox guard, the document loader, WebFinger lookups, the delivery
 * queue, the remote account and status readers and the Flag listener all
 * ask here; SQL readers use db/queries/limited_accounts.ts, which applies
 * the same matching rule in the database.
 *
 * Matching is Mastodon's (DomainBlock.rule_for): a block of `example.com`
 * covers `a.example.com` and every other subdomain, and the most specific
 * block wins. An account domain keeps its port (`localhost:4001`); a block
 * of the exact name with port, or of the host without it, covers it. The
 * allow-list matches exactly, as Mastodon's DomainAllow does.
 *
 * Every process keeps both tables in memory (they are small and read at
 * every delivery) and forgets them when the `rookery_domain_rules`
 * notification of migration 0023's triggers arrives, at commit, from any
 * process: a block made in one process is enforced by the others within
 * milliseconds. A load that a notification overtook is not kept, and a
 * process that is not listening (yet, or any more) reads the tables each
 * time.
 */
import type { Config } from "../../config.ts";
import type { Database } from "../../db/connection.ts";
import { domainAllows, domainBlocks } from "../../db/schema/mod.ts";
import { getLogger } from "@logtape/logtape";
import type { ChannelListener } from "../../db/channel_listener.ts";

const logger = getLogger(["rookery", "domain_rules"]);

const CHANNEL = "rookery_domain_rules";

export type DomainSeverity = "silence" | "suspend" | "noop";

/** What a domain block says about a domain (noop with no flags: nothing). */
export interface DomainRule {
  /** The block that applies (the most specific one covering the domain). */
  domain: string;
  severity: DomainSeverity;
  rejectMedia: boolean;
  rejectReports: boolean;
}

interface Rules {
  blocks: Map<string, DomainRule>;
  allows: Set<string>;
}

/**
 * The names a block could be filed under for `domain`, most specific first:
 * the name itself (with its port), then the host and each of its parents.
 * Migration 0023's rookery_domain_variants computes the same list.
 */
export function domainVariants(domain: string): string[] {
  const name = domain.trim().toLowerCase().replace(/\.$/, "");
  const host = name.replace(/:\d+$/, "");
  const labels = host.split(".");
  const variants = [name];
  for (let i = 0; i < labels.length; i++) {
    const suffix = labels.slice(i).join(".");
    if (suffix !== name) variants.push(suffix);
  }
  return variants;
}

/** The account domain of a URL: its host, with the port when not the default. */
export function domainOfUrl(url: URL | string): string | null {
  try {
    const parsed = typeof url === "string" ? new URL(url) : url;
    return parsed.host.toLowerCase() || null;
  } catch {
    return null;
  }
}

async function loadRules(database: Database): Promise<Rules> {
  const [blockRows, allowRows] = await Promise.all([
    database.db.select({
      domain: domainBlocks.domain,
      severity: domainBlocks.severity,
      rejectMedia: domainBlocks.rejectMedia,
      rejectReports: domainBlocks.rejectReports,
    }).from(domainBlocks),
    database.db.select({ domain: domainAllows.domain }).from(domainAllows),
  ]);
  return {
    blocks: new Map(
      blockRows.map((r) => [r.domain, { ...r, severity: r.severity as DomainSeverity }]),
    ),
    allows: new Set(allowRows.map((r) => r.domain)),
  };
}

/**
 * This process's copy of the rules (process/core.ts holds one), forgotten
 * when the tables' notification arrives on the core's listener. A load that
 * a notification overtook is not kept; while not listening (not yet, or the
 * listen failed) the tables are read each time.
 */
export class DomainRules {
  readonly #database: Database;
  #listening = false;
  /** Bumped by every notification; a load that saw a bump is not kept. */
  #generation = 0;
  #rules: Promise<Rules> | null = null;

  constructor(database: Database) {
    this.#database = database;
  }

  /** Starts listening for changes (the core does it as it opens). */
  listen(listener: ChannelListener): void {
    // (Re)connected: anything sent while away was missed.
    const listening = () => {
      this.forget();
      this.#listening = true;
    };
    listener.listen(CHANNEL, () => this.forget(), listening).catch((error) => {
      this.#listening = false;
      logger.warn("Not listening for domain block changes; reading them each time: {error}", {
        error,
      });
    });
  }

  /**
   * Forgets this process's copy at once (a command that changed the tables
   * calls it after its commit; the notification does the same a moment
   * later, and for the other processes).
   */
  forget(): void {
    this.#generation++;
    this.#rules = null;
  }

  /** The rules, from the copy when it is current. */
  async current(): Promise<Rules> {
    if (!this.#listening) return await loadRules(this.#database);
    if (this.#rules) return await this.#rules;
    const generation = this.#generation;
    const loading = loadRules(this.#database);
    this.#rules = loading;
    try {
      const rules = await loading;
      if (this.#generation !== generation && this.#rules === loading) this.#rules = null;
      return rules;
    } catch (error) {
      if (this.#rules === loading) this.#rules = null;
      throw error;
    }
  }

  /** The block that applies to `domain` (most specific first), or null. */
  async ruleFor(domain: string | null | undefined): Promise<DomainRule | null> {
    if (!domain) return null;
    return ruleIn(await this.current(), domain);
  }
}

function ruleIn({ blocks }: Rules, domain: string): DomainRule | null {
  if (blocks.size === 0) return null;
  for (const variant of domainVariants(domain)) {
    const rule = blocks.get(variant);
    if (rule) return rule;
  }
  return null;
}

/** What the checks below read: the process core's rules. */
export interface RulesHolder {
  readonly core: { readonly domainRules: DomainRules };
}

/** The context these checks need. */
export interface RulesContext extends RulesHolder {
  readonly config: Pick<Config, "federationMode" | "domain">;
}

/**
 * Whether this server refuses to federate with `domain` at all: suspended
 * by a block, or (FEDERATION_MODE=allowlist) not on the allow-list. Our own
 * domain is never refused. Used for inbound deliveries, outbound
 * deliveries, fetches and lookups alike.
 */
export async function federationRefused(
  app: RulesContext,
  domain: string | null | undefined,
): Promise<boolean> {
  if (!domain) return false;
  const name = domain.toLowerCase();
  if (name === app.config.domain.toLowerCase()) return false;
  const rules = await app.core.domainRules.current();
  if (app.config.federationMode === "allowlist" && !rules.allows.has(name.replace(/\.$/, ""))) {
    return true;
  }
  return ruleIn(rules, name)?.severity === "suspend";
}

/** {@link federationRefused} for the host of a URL (unparsable URLs are refused). */
export async function federationRefusedUrl(
  app: RulesContext,
  url: URL | string,
): Promise<boolean> {
  const domain = domainOfUrl(url);
  return domain == null ? true : await federationRefused(app, domain);
}

/** Whether media of `domain` is neither fetched nor stored (reject_media). */
export async function mediaRejected(
  app: RulesHolder,
  domain: string | null | undefined,
): Promise<boolean> {
  const rule = await app.core.domainRules.ruleFor(domain);
  return rule != null && (rule.rejectMedia || rule.severity === "suspend");
}

/** Whether reports (Flags) from `domain` are ignored (reject_reports). */
export async function reportsRejected(
  app: RulesHolder,
  domain: string | null | undefined,
): Promise<boolean> {
  const rule = await app.core.domainRules.ruleFor(domain);
  return rule != null && (rule.rejectReports || rule.severity === "suspend");
}
