/**
 * Configuration: the one module that reads the environment.
 *
 * Every other module receives a {@link Config} object; nothing else calls
 * `Deno.env`. The names below are part of the product's interface and are
 * documented in docs/configuration.md with their defaults.
 */

export type Role = "web" | "worker" | "all";
export type RegistrationMode = "open" | "approval" | "closed";
export type DomainBlocksAudience = "all" | "users" | "disabled";
export type LogLevel = "trace" | "debug" | "info" | "warning" | "error" | "fatal";

export interface Config {
  /** TCP port the HTTP server listens on. */
  port: number;
  /** Address the HTTP server binds to. */
  bindAddress: string;
  /** Public base URL, without a trailing slash. */
  origin: string;
  /** Host (with port when not default) used as the account domain. */
  domain: string;
  /** Where the embedded database, media and the admin socket live. */
  dataDir: string;
  /** PostgreSQL URL; when absent the embedded PGlite database is used. */
  databaseUrl: string | null;
  /** Where fresh PGlite data directories' migrated cluster is cached (db/pglite_template.ts). */
  pgliteTemplateCache: string | null;
  /** PostgreSQL connections each process may open (DB_POOL_SIZE). */
  dbPoolSize: number;
  /** Which parts this process runs. */
  role: Role;
  registrations: RegistrationMode;
  requireEmailConfirmation: boolean;
  /**
   * Ask DNS about a sign-up's e-mail domain (EMAIL_DOMAIN_CHECK; the older
   * EMAIL_MX_CHECK is read when it is unset): refuse a domain without MX, A or
   * AAAA records and check its MX hosts against the e-mail domain blocks.
   */
  emailDomainCheck: boolean;
  /** Minimum age in years to register; null when none is asked (no date of birth needed). */
  minAge: number | null;
  mail: {
    /** smtp:// or smtps:// URL of the relay; null writes messages as .eml files under dataDir/mail. */
    smtpUrl: string | null;
    /** The From address of the server's messages. */
    from: string;
  };
  /** Lets federation reach loopback and private addresses (tests, development). */
  allowPrivateAddress: boolean;
  /** Deadline in milliseconds of each outbound request, body and redirects included. */
  fetchTimeoutMs: number;
  /** What one inbound activity may fetch (federation/fetch/budget.ts): documents, and milliseconds. */
  fetchBudget: { count: number; ms: number };
  /** Deliveries a worker process runs at once, in all and to one host (federation/stores/delivery_lane.ts). */
  deliveries: { concurrency: number; perHost: number };
  /**
   * Crawling a remote status's replies when a user opens its thread
   * (federation/remote/replies_crawl.ts): not again within `cooldownMs`, not before
   * the status is `initialWaitMs` old, at most `maxStatuses` replies a crawl.
   */
  fetchReplies: { cooldownMs: number; initialWaitMs: number; maxStatuses: number };
  rateLimits: boolean;
  /**
   * Whether anonymous visitors may read the public, hashtag and link
   * timelines (Mastodon's timeline preview); when false they need a token.
   */
  publicPreview: boolean;
  /** Trust X-Forwarded-For/-Proto/-Host (set when behind a reverse proxy). */
  trustProxy: boolean;
  /**
   * Mastodon's authorized fetch (secure mode): ActivityPub objects and
   * collections only for signed requests, actor documents unsigned only with
   * their key, and the Mastodon API only for signed-in users.
   */
  authorizedFetch: boolean;
  /**
   * Instance domain blocks (actors/moderation/domain_rules.ts): "open" federates with
   * every server not suspended; "allowlist" only with domains an admin
   * allowed (Mastodon's limited federation mode). FEDERATION_MODE.
   */
  federationMode: "open" | "allowlist";
  /**
   * Who GET /api/v1/instance/domain_blocks answers (Mastodon's
   * show_domain_blocks), and who sees the public comments in it
   * (show_domain_blocks_rationale): everyone, signed-in users, or nobody (404).
   */
  showDomainBlocks: DomainBlocksAudience;
  showDomainBlocksRationale: DomainBlocksAudience;
  trends: {
    /** Only items a moderator allowed are listed (TRENDS_REVIEW). */
    review: boolean;
    /** How often the worker recomputes trend scores, in milliseconds (TRENDS_INTERVAL). */
    intervalMs: number;
  };
  /**
   * Days a local suspension keeps the account's data before the worker
   * purges it (SUSPENSION_GRACE_DAYS); unsuspending before then restores it.
   */
  suspensionGraceDays: number;
  /**
   * Whether the worker makes the year's annual reports ("Wrapstodon") from
   * the 10th to the 31st of December, as Mastodon does where enabled
   * (ANNUAL_REPORTS). Reports already made are served either way.
   */
  annualReports: boolean;
  /**
   * E-mail subscriptions to accounts' public posts (Mastodon 4.7 newsletters,
   * EMAIL_SUBSCRIPTIONS; off by default). An admin must also turn them on,
   * and a role grant them. A post waits `digestDelayMs` (EMAIL_DIGEST_DELAY,
   * seconds) for others to join its mail; an account's subscribers get at most
   * one mail every `minIntervalMs` (EMAIL_DIGEST_MIN_INTERVAL, seconds).
   */
  emailSubscriptions: { enabled: boolean; digestDelayMs: number; minIntervalMs: number };
  /**
   * Machine translation of statuses (actors/translation/): a
   * LibreTranslate-compatible server or DeepL; null: translation is disabled.
   */
  translation: TranslationConfig | null;
  /** Where media files and archives are kept (S3_* variables). */
  media: {
    store: MediaStoreConfig;
    /**
     * MEDIA_CACHE_RETENTION_PERIOD, in days: the worker deletes copies of
     * remote attachments and card images cached longer ago (fetched again
     * on demand); null keeps them until `media remove`.
     */
    cacheRetentionDays: number | null;
  };
  /** The Prometheus endpoint (METRICS_BIND). */
  metrics: MetricsConfig;
  /** OTLP export of traces and metrics; null: none. */
  otel: OtelConfig | null;
  logLevel: LogLevel;
  /** "text" for people, "json" for log collectors. */
  logFormat: "text" | "json";
  instance: {
    title: string;
    description: string;
    extendedDescription: string;
    contactEmail: string;
    /** Username of the local account shown as the contact. */
    contactUsername: string | null;
    thumbnailUrl: string | null;
    /** The thumbnail's alt text (INSTANCE_THUMBNAIL_DESCRIPTION). */
    thumbnailDescription: string;
    languages: string[];
    /**
     * Files with the privacy policy and the terms of service (Markdown, or
     * HTML when the name ends in .html), read when asked for; null: none.
     */
    privacyPolicyFile: string | null;
    termsOfServiceFile: string | null;
  };
  limits: {
    maxStatusCharacters: number;
    maxMediaAttachments: number;
    charactersReservedPerUrl: number;
    maxPollOptions: number;
    maxPollOptionCharacters: number;
    minPollExpiration: number;
    maxPollExpiration: number;
    maxFeaturedTags: number;
    maxPinnedStatuses: number;
    maxProfileFields: number;
    imageSizeLimit: number;
    videoSizeLimit: number;
    /** Upper bound on any request body, in bytes. */
    maxBodyBytes: number;
  };
}

/** Where statuses are translated, and how long one request to the backend may take. */
export type TranslationConfig =
  & { timeoutMs: number }
  & (
    /** TRANSLATION_URL (+ TRANSLATION_API_KEY): LibreTranslate's API. */
    | { kind: "libretranslate"; url: string; apiKey: string | null }
    /** DEEPL_API_KEY (+ DEEPL_PLAN): DeepL's v2 API on its free or pro host. */
    | { kind: "deepl"; apiKey: string; plan: "free" | "pro" }
  );

/** Where the Prometheus endpoint listens (METRICS_BIND); null: no metrics at all. */
export interface MetricsConfig {
  bind: { hostname: string; port: number } | null;
}

/** OpenTelemetry export over OTLP/HTTP (the standard OTEL_* variables). */
export interface OtelConfig {
  /** Where spans go; null: no traces (no endpoint, or OTEL_TRACES_EXPORTER=none). */
  traces: { url: string; scheduledDelayMs: number } | null;
  /** Where metrics go, and how often; null: none (OTEL_METRICS_EXPORTER=none). */
  metrics: { url: string; intervalMs: number } | null;
  protocol: "http/protobuf" | "http/json";
  /** OTEL_EXPORTER_OTLP_HEADERS, e.g. an API key. */
  headers: Record<string, string>;
  serviceName: string;
  /** OTEL_RESOURCE_ATTRIBUTES. */
  resourceAttributes: Record<string, string>;
  sampler: { kind: OtelSampler; ratio: number };
}

export type OtelSampler =
  | "always_on"
  | "always_off"
  | "traceidratio"
  | "parentbased_always_on"
  | "parentbased_always_off"
  | "parentbased_traceidratio";

/** The folder under DATA_DIR (the default), or a bucket of S3-compatible storage. */
export type MediaStoreConfig = { kind: "folder" } | S3StoreConfig;

/** S3_ENABLED=true: Mastodon's S3_* variables (docs/configuration.md, "Object storage"). */
export interface S3StoreConfig {
  kind: "s3";
  bucket: string;
  region: string;
  /** S3_ENDPOINT without a trailing slash; null: AWS itself. */
  endpoint: string | null;
  /** S3_OVERRIDE_PATH_STYLE=true: virtual-hosted requests even with an endpoint (Mastodon's meaning). */
  overridePathStyle: boolean;
  accessKeyId: string;
  secretAccessKey: string;
  /** S3_ALIAS_HOST (or S3_CLOUDFRONT_HOST): host[:port][/path] of public URLs; null: ORIGIN/system. */
  aliasHost: string | null;
  protocol: "http" | "https";
  /** S3_PERMISSION: the ACL of public files; null sends no ACL header. */
  permission: string | null;
  storageClass: string | null;
  multipartThreshold: number;
  openTimeoutMs: number;
  readTimeoutMs: number;
  retryLimit: number;
  batchDeleteLimit: number;
  /** S3_ENABLE_CHECKSUM_MODE: the SDK's request checksums and response validation. */
  checksums: boolean;
  /** Keys per ListObjectsV2 page (1000; smaller only in tests, to exercise paging). */
  listPageSize?: number;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function readBool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw == null || raw === "") return fallback;
  const v = raw.trim().toLowerCase();
  if (["1", "true", "yes", "on"].includes(v)) return true;
  if (["0", "false", "no", "off"].includes(v)) return false;
  throw new ConfigError(`${name} must be true or false, not ${JSON.stringify(raw)}`);
}

/** PGLITE_TEMPLATE_CACHE: a directory, `off`, or unset: `$XDG_CACHE_HOME/rookery`, `~/.cache/rookery`. */
function readTemplateCache(env: Env): string | null {
  const raw = (env.PGLITE_TEMPLATE_CACHE ?? "").trim();
  if (raw.toLowerCase() === "off") return null;
  const xdg = (env.XDG_CACHE_HOME ?? "").trim(), home = (env.HOME ?? "").trim();
  return raw || (xdg ? `${xdg}/rookery` : home ? `${home}/.cache/rookery` : null);
}

function readInt(env: Env, name: string, fallback: number, min = 0, max = 2 ** 31): number {
  const raw = env[name];
  if (raw == null || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}`);
  }
  return n;
}

function readEnum<T extends string>(env: Env, name: string, values: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw == null || raw === "") return fallback;
  const v = raw.trim().toLowerCase() as T;
  if (!values.includes(v)) {
    throw new ConfigError(`${name} must be one of ${values.join(", ")}`);
  }
  return v;
}

function readSmtpUrl(env: Env): string | null {
  const raw = (env.SMTP_URL ?? "").trim();
  if (raw === "") return null;
  if (!/^smtps?:\/\/[^/]/.test(raw)) {
    throw new ConfigError("SMTP_URL must start with smtp:// or smtps://");
  }
  return raw;
}

/**
 * The translation backend. DeepL wins when both are set, as in Mastodon;
 * Mastodon's own LIBRE_TRANSLATE_ENDPOINT and LIBRE_TRANSLATE_API_KEY are
 * read when TRANSLATION_URL and TRANSLATION_API_KEY are not set.
 */
function readTranslation(env: Env): TranslationConfig | null {
  const timeoutMs = readInt(env, "TRANSLATION_TIMEOUT", 15, 1, 120) * 1000;
  const deeplKey = (env.DEEPL_API_KEY ?? "").trim();
  if (deeplKey) {
    const plan = readEnum(env, "DEEPL_PLAN", ["free", "pro"] as const, "free");
    return { kind: "deepl", apiKey: deeplKey, plan, timeoutMs };
  }
  const raw = (env.TRANSLATION_URL ?? "").trim() || (env.LIBRE_TRANSLATE_ENDPOINT ?? "").trim();
  if (!raw) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`TRANSLATION_URL is not a URL: ${JSON.stringify(raw)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigError("TRANSLATION_URL must be an http or https URL");
  }
  const apiKey = (env.TRANSLATION_API_KEY ?? "").trim() ||
    (env.LIBRE_TRANSLATE_API_KEY ?? "").trim() || null;
  return { kind: "libretranslate", url: url.href.replace(/\/+$/, ""), apiKey, timeoutMs };
}

/** The media store: S3 when S3_ENABLED=true, with everything it needs checked here. */
function readMediaStore(env: Env): MediaStoreConfig {
  if (!readBool(env, "S3_ENABLED", false)) return { kind: "folder" };
  const text = (name: string) => (env[name] ?? "").trim() || null;
  const required = (name: string) => {
    const value = text(name);
    if (!value) throw new ConfigError(`${name} is required when S3_ENABLED=true`);
    return value;
  };
  const endpoint = text("S3_ENDPOINT");
  if (endpoint && !/^https?:\/\/[^/]/.test(endpoint)) {
    throw new ConfigError("S3_ENDPOINT must be an http:// or https:// URL");
  }
  const aliasHost = text("S3_ALIAS_HOST") ?? text("S3_CLOUDFRONT_HOST");
  if (aliasHost && /^[a-z][a-z0-9+.-]*:\/\//i.test(aliasHost)) {
    throw new ConfigError("S3_ALIAS_HOST is a host (and path), without a scheme: see S3_PROTOCOL");
  }
  return {
    kind: "s3",
    bucket: required("S3_BUCKET"),
    region: text("S3_REGION") ?? "us-east-1",
    endpoint: endpoint?.replace(/\/+$/, "") ?? null,
    overridePathStyle: readBool(env, "S3_OVERRIDE_PATH_STYLE", false),
    accessKeyId: required("AWS_ACCESS_KEY_ID"),
    secretAccessKey: required("AWS_SECRET_ACCESS_KEY"),
    aliasHost: aliasHost?.replace(/\/+$/, "") ?? null,
    protocol: readEnum(env, "S3_PROTOCOL", ["http", "https"] as const, "https"),
    permission: text("S3_PERMISSION"),
    storageClass: text("S3_STORAGE_CLASS"),
    multipartThreshold: readInt(env, "S3_MULTIPART_THRESHOLD", 15 * 1024 * 1024, 5 * 1024 * 1024),
    openTimeoutMs: readInt(env, "S3_OPEN_TIMEOUT", 5, 1, 300) * 1000,
    readTimeoutMs: readInt(env, "S3_READ_TIMEOUT", 5, 1, 3600) * 1000,
    retryLimit: readInt(env, "S3_RETRY_LIMIT", 0, 0, 10),
    batchDeleteLimit: readInt(env, "S3_BATCH_DELETE_LIMIT", 1000, 1, 1000),
    checksums: readBool(env, "S3_ENABLE_CHECKSUM_MODE", false),
  };
}

/**
 * METRICS_BIND, `host:port` (`[v6]:port` for IPv6). The public listener never
 * serves the metrics, so the same address is refused.
 */
function readMetrics(env: Env, bindAddress: string, port: number): MetricsConfig {
  const raw = (env.METRICS_BIND ?? "").trim();
  if (!raw) return { bind: null };
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\s\[\]]+)):(\d{1,5})$/.exec(raw);
  const metricsPort = match ? Number(match[3]) : NaN;
  if (!match || metricsPort > 65535) {
    throw new ConfigError(`METRICS_BIND must be host:port, not ${JSON.stringify(raw)}`);
  }
  const hostname = match[1] ?? match[2];
  if (hostname === bindAddress && metricsPort === port && port !== 0) {
    throw new ConfigError("METRICS_BIND must differ from BIND:PORT: metrics are never public");
  }
  return { bind: { hostname, port: metricsPort } };
}

/** `k=v,k2=v2` with URL-encoded values (OTEL_EXPORTER_OTLP_HEADERS, OTEL_RESOURCE_ATTRIBUTES). */
function readPairs(env: Env, name: string): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const item of (env[name] ?? "").split(",")) {
    if (!item.trim()) continue;
    const at = item.indexOf("=");
    if (at <= 0) throw new ConfigError(`${name} must be key=value pairs separated by commas`);
    try {
      pairs[item.slice(0, at).trim()] = decodeURIComponent(item.slice(at + 1).trim());
    } catch {
      throw new ConfigError(`${name} has a badly encoded value for ${item.slice(0, at).trim()}`);
    }
  }
  return pairs;
}

/** An OTLP URL: the signal's own variable, else the base endpoint with `/v1/<signal>`. */
function readOtlpUrl(env: Env, signal: "traces" | "metrics"): string | null {
  const upper = signal.toUpperCase();
  if (readEnum(env, `OTEL_${upper}_EXPORTER`, ["otlp", "none"] as const, "otlp") === "none") {
    return null;
  }
  const own = (env[`OTEL_EXPORTER_OTLP_${upper}_ENDPOINT`] ?? "").trim();
  const base = (env.OTEL_EXPORTER_OTLP_ENDPOINT ?? "").trim();
  const url = own || (base ? `${base.replace(/\/+$/, "")}/v1/${signal}` : "");
  if (!url) return null;
  if (!/^https?:\/\/[^/]/.test(url)) {
    throw new ConfigError(
      `OTEL_EXPORTER_OTLP_${own ? `${upper}_` : ""}ENDPOINT must be an http(s) URL`,
    );
  }
  return url;
}

/** OpenTelemetry's standard variables; only OTLP over HTTP is supported. */
function readOtel(env: Env): OtelConfig | null {
  if (readBool(env, "OTEL_SDK_DISABLED", false)) return null;
  const tracesUrl = readOtlpUrl(env, "traces");
  const metricsUrl = readOtlpUrl(env, "metrics");
  if (!tracesUrl && !metricsUrl) return null;
  const protocol = (env.OTEL_EXPORTER_OTLP_PROTOCOL ?? "").trim() || "http/protobuf";
  if (protocol !== "http/protobuf" && protocol !== "http/json") {
    throw new ConfigError(
      `OTEL_EXPORTER_OTLP_PROTOCOL ${
        JSON.stringify(protocol)
      } is not supported: use http/protobuf or http/json`,
    );
  }
  const kind = readEnum(
    env,
    "OTEL_TRACES_SAMPLER",
    [
      "always_on",
      "always_off",
      "traceidratio",
      "parentbased_always_on",
      "parentbased_always_off",
      "parentbased_traceidratio",
    ] as const,
    "parentbased_always_on",
  );
  const ratioText = (env.OTEL_TRACES_SAMPLER_ARG ?? "").trim();
  const ratio = ratioText === "" ? 1 : Number(ratioText);
  if (!(ratio >= 0 && ratio <= 1)) {
    throw new ConfigError("OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1");
  }
  return {
    traces: tracesUrl
      ? { url: tracesUrl, scheduledDelayMs: readInt(env, "OTEL_BSP_SCHEDULE_DELAY", 5000, 1) }
      : null,
    metrics: metricsUrl
      ? { url: metricsUrl, intervalMs: readInt(env, "OTEL_METRIC_EXPORT_INTERVAL", 60000, 100) }
      : null,
    protocol,
    headers: readPairs(env, "OTEL_EXPORTER_OTLP_HEADERS"),
    serviceName: (env.OTEL_SERVICE_NAME ?? "").trim() || "rookery",
    resourceAttributes: readPairs(env, "OTEL_RESOURCE_ATTRIBUTES"),
    sampler: { kind, ratio },
  };
}

/** ORIGIN, by default http://localhost:<PORT>: an http or https URL. */
function readOrigin(env: Env, port: number): URL {
  const raw = (env.ORIGIN ?? "").trim() || `http://localhost:${port}`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`ORIGIN is not a URL: ${JSON.stringify(raw)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigError("ORIGIN must be an http or https URL");
  }
  return url;
}

function readOnOff(env: Env, name: string, fallback: boolean): boolean {
  const raw = (env[name] ?? (fallback ? "on" : "off")).trim().toLowerCase();
  if (raw === "on") return true;
  if (raw === "off") return false;
  throw new ConfigError(`${name} must be on or off`);
}

/** What the instance says of itself (INSTANCE_*, CONTACT_*, the policy files). */
function readInstance(env: Env): Config["instance"] {
  const languages = (env.INSTANCE_LANGUAGES ?? "en").split(",").map((s) => s.trim())
    .filter(Boolean);
  return {
    title: (env.INSTANCE_TITLE ?? "").trim() || "Rookery",
    description: (env.INSTANCE_DESCRIPTION ?? "").trim() ||
      "A federated social network server.",
    extendedDescription: env.INSTANCE_EXTENDED_DESCRIPTION ?? "",
    contactEmail: (env.CONTACT_EMAIL ?? "").trim(),
    contactUsername: (env.CONTACT_USERNAME ?? "").trim() || null,
    thumbnailUrl: (env.INSTANCE_THUMBNAIL_URL ?? "").trim() || null,
    thumbnailDescription: (env.INSTANCE_THUMBNAIL_DESCRIPTION ?? "").trim(),
    languages: languages.length ? languages : ["en"],
    privacyPolicyFile: (env.PRIVACY_POLICY_FILE ?? "").trim() || null,
    termsOfServiceFile: (env.TERMS_OF_SERVICE_FILE ?? "").trim() || null,
  };
}

/** The limits clients are told of (Mastodon's, the status length and body size configurable). */
function readLimits(env: Env): Config["limits"] {
  return {
    maxStatusCharacters: readInt(env, "MAX_STATUS_CHARACTERS", 500, 1, 100_000),
    maxMediaAttachments: 4,
    charactersReservedPerUrl: 23,
    maxPollOptions: 4,
    maxPollOptionCharacters: 50,
    minPollExpiration: 300,
    maxPollExpiration: 2_629_746,
    maxFeaturedTags: 10,
    maxPinnedStatuses: 5,
    maxProfileFields: 4,
    imageSizeLimit: 16 * 1024 * 1024,
    videoSizeLimit: 99 * 1024 * 1024,
    maxBodyBytes: readInt(env, "MAX_BODY_BYTES", 110 * 1024 * 1024, 1024),
  };
}

const AUDIENCES = ["all", "users", "disabled"] as const;

/** Builds the configuration from an environment (defaults to the process's). */
export function loadConfig(env: Env = Deno.env.toObject()): Config {
  const port = readInt(env, "PORT", 8080, 0, 65535);
  const originUrl = readOrigin(env, port);
  const databaseUrl = (env.DATABASE_URL ?? "").trim() || null;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError("DATABASE_URL must start with postgres:// or postgresql://");
  }
  const bindAddress = (env.BIND ?? "").trim() || "0.0.0.0";
  return {
    port,
    bindAddress,
    origin: originUrl.origin,
    domain: originUrl.host,
    dataDir: (env.DATA_DIR ?? "").trim() || "./data",
    databaseUrl,
    pgliteTemplateCache: readTemplateCache(env),
    dbPoolSize: readInt(env, "DB_POOL_SIZE", 10, 1, 1000),
    role: readEnum(env, "ROLE", ["web", "worker", "all"] as const, "all"),
    registrations: readEnum(env, "REGISTRATIONS", ["open", "approval", "closed"] as const, "open"),
    requireEmailConfirmation: readBool(env, "REQUIRE_EMAIL_CONFIRMATION", false),
    emailDomainCheck: readBool(env, "EMAIL_DOMAIN_CHECK", readBool(env, "EMAIL_MX_CHECK", true)),
    minAge: readInt(env, "MIN_AGE", 0, 0, 150) || null,
    mail: {
      smtpUrl: readSmtpUrl(env),
      from: (env.SMTP_FROM ?? "").trim() || `notifications@${originUrl.hostname}`,
    },
    allowPrivateAddress: readBool(env, "ALLOW_PRIVATE_ADDRESS", false),
    fetchTimeoutMs: readInt(env, "FETCH_TIMEOUT", 10, 1, 60) * 1000,
    deliveries: {
      concurrency: readInt(env, "DELIVERY_CONCURRENCY", 64, 1, 1000),
      perHost: readInt(env, "DELIVERY_HOST_CONCURRENCY", 4, 1, 1000),
    },
    fetchBudget: {
      count: readInt(env, "FETCH_BUDGET", 8, 1, 100),
      ms: readInt(env, "FETCH_BUDGET_SECONDS", 10, 1, 120) * 1000,
    },
    fetchReplies: {
      cooldownMs: readInt(env, "THREAD_CRAWL_COOLDOWN", 15, 0, 10_080) * 60_000,
      initialWaitMs: readInt(env, "THREAD_CRAWL_MIN_AGE", 5, 0, 1_440) * 60_000,
      maxStatuses: readInt(env, "THREAD_CRAWL_MAX_REPLIES", 1000, 0, 10_000),
    },
    rateLimits: readOnOff(env, "RATE_LIMITS", true),
    trustProxy: readBool(env, "TRUST_PROXY", false),
    authorizedFetch: readBool(env, "AUTHORIZED_FETCH", false),
    publicPreview: readBool(env, "PUBLIC_PREVIEW", true),
    federationMode: readEnum(env, "FEDERATION_MODE", ["open", "allowlist"] as const, "open"),
    showDomainBlocks: readEnum(env, "SHOW_DOMAIN_BLOCKS", AUDIENCES, "disabled"),
    showDomainBlocksRationale: readEnum(env, "SHOW_DOMAIN_BLOCKS_RATIONALE", AUDIENCES, "disabled"),
    trends: {
      review: readBool(env, "TRENDS_REVIEW", false),
      intervalMs: readInt(env, "TRENDS_INTERVAL", 60, 1, 3600) * 1000,
    },
    suspensionGraceDays: readInt(env, "SUSPENSION_GRACE_DAYS", 30, 0, 3650),
    annualReports: readBool(env, "ANNUAL_REPORTS", false),
    emailSubscriptions: {
      enabled: readBool(env, "EMAIL_SUBSCRIPTIONS", false),
      digestDelayMs: readInt(env, "EMAIL_DIGEST_DELAY", 600, 0, 86_400) * 1000,
      minIntervalMs: readInt(env, "EMAIL_DIGEST_MIN_INTERVAL", 3_600, 0, 604_800) * 1000,
    },
    translation: readTranslation(env),
    media: {
      store: readMediaStore(env),
      // 0 or unset: no pruning (Mastodon's meaning of an empty setting).
      cacheRetentionDays: readInt(env, "MEDIA_CACHE_RETENTION_PERIOD", 0, 0, 36_500) || null,
    },
    metrics: readMetrics(env, bindAddress, port),
    otel: readOtel(env),
    logLevel: readEnum(
      env,
      "LOG_LEVEL",
      ["trace", "debug", "info", "warning", "error", "fatal"] as const,
      "info",
    ),
    logFormat: readEnum(env, "LOG_FORMAT", ["text", "json"] as const, "text"),
    instance: readInstance(env),
    limits: readLimits(env),
  };
}
