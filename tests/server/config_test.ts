/**
 * Settings read by config.ts that need no running server: DB_POOL_SIZE
 * defaults to 10, takes a positive integer, and refuses anything else; the
 * S3_* variables (Mastodon's names and meanings) and their refusals;
 * MEDIA_CACHE_RETENTION_PERIOD; the delivery slots (DELIVERY_CONCURRENCY,
 * DELIVERY_HOST_CONCURRENCY).
 */
import assert from "node:assert/strict";
import { ConfigError, loadConfig } from "../../config.ts";

Deno.test("DB_POOL_SIZE: default, a chosen size, and refused values", () => {
  assert.equal(loadConfig({}).dbPoolSize, 10);
  assert.equal(loadConfig({ DB_POOL_SIZE: "32" }).dbPoolSize, 32);
  for (const bad of ["0", "-1", "2.5", "many", "100000"]) {
    assert.throws(
      () => loadConfig({ DB_POOL_SIZE: bad }),
      (e: unknown) =>
        e instanceof ConfigError && /DB_POOL_SIZE must be an integer between 1 and 1000/.test(
          e.message,
        ),
      bad,
    );
  }
});

Deno.test("DELIVERY_CONCURRENCY and DELIVERY_HOST_CONCURRENCY: defaults, chosen values, refusals", () => {
  assert.deepEqual(loadConfig({}).deliveries, { concurrency: 64, perHost: 4 });
  assert.deepEqual(
    loadConfig({ DELIVERY_CONCURRENCY: "16", DELIVERY_HOST_CONCURRENCY: "2" }).deliveries,
    { concurrency: 16, perHost: 2 },
  );
  for (const name of ["DELIVERY_CONCURRENCY", "DELIVERY_HOST_CONCURRENCY"]) {
    for (const bad of ["0", "1.5", "lots"]) {
      assert.throws(
        () => loadConfig({ [name]: bad }),
        (e: unknown) => e instanceof ConfigError && e.message.startsWith(`${name} must be`),
        `${name}=${bad}`,
      );
    }
  }
});

const S3 = {
  S3_ENABLED: "true",
  S3_BUCKET: "media",
  AWS_ACCESS_KEY_ID: "key",
  AWS_SECRET_ACCESS_KEY: "secret",
};

Deno.test("S3_*: folder by default; Mastodon's variables and defaults", () => {
  assert.deepEqual(loadConfig({}).media.store, { kind: "folder" });
  assert.deepEqual(loadConfig({ S3_ENABLED: "false", S3_BUCKET: "x" }).media.store, {
    kind: "folder",
  });
  assert.deepEqual(loadConfig(S3).media.store, {
    kind: "s3",
    bucket: "media",
    region: "us-east-1",
    endpoint: null,
    overridePathStyle: false,
    accessKeyId: "key",
    secretAccessKey: "secret",
    aliasHost: null,
    protocol: "https",
    permission: null,
    storageClass: null,
    multipartThreshold: 15 * 1024 * 1024,
    openTimeoutMs: 5000,
    readTimeoutMs: 5000,
    retryLimit: 0,
    batchDeleteLimit: 1000,
    checksums: false,
  });
  const store = loadConfig({
    ...S3,
    S3_ENDPOINT: "https://garage.example:3900/",
    S3_REGION: "garage",
    S3_OVERRIDE_PATH_STYLE: "true",
    S3_CLOUDFRONT_HOST: "files.example/media/",
    S3_PROTOCOL: "http",
    S3_PERMISSION: "public-read",
    S3_STORAGE_CLASS: "STANDARD_IA",
    S3_MULTIPART_THRESHOLD: String(50 * 1024 * 1024),
    S3_OPEN_TIMEOUT: "2",
    S3_READ_TIMEOUT: "30",
    S3_RETRY_LIMIT: "3",
    S3_BATCH_DELETE_LIMIT: "100",
    S3_ENABLE_CHECKSUM_MODE: "true",
  }).media.store;
  assert.deepEqual(store, {
    kind: "s3",
    bucket: "media",
    region: "garage",
    endpoint: "https://garage.example:3900",
    overridePathStyle: true,
    accessKeyId: "key",
    secretAccessKey: "secret",
    aliasHost: "files.example/media",
    protocol: "http",
    permission: "public-read",
    storageClass: "STANDARD_IA",
    multipartThreshold: 50 * 1024 * 1024,
    openTimeoutMs: 2000,
    readTimeoutMs: 30_000,
    retryLimit: 3,
    batchDeleteLimit: 100,
    checksums: true,
  });
  // S3_ALIAS_HOST wins over Mastodon's older S3_CLOUDFRONT_HOST.
  const both = loadConfig({
    ...S3,
    S3_ALIAS_HOST: "cdn.example",
    S3_CLOUDFRONT_HOST: "old.example",
  });
  assert.equal(both.media.store.kind === "s3" && both.media.store.aliasHost, "cdn.example");
});

Deno.test("S3_*: missing or malformed values stop start-up, naming the variable", () => {
  const refused: [Record<string, string>, RegExp][] = [
    [{ ...S3, S3_BUCKET: "" }, /S3_BUCKET is required/],
    [{ ...S3, AWS_ACCESS_KEY_ID: "" }, /AWS_ACCESS_KEY_ID is required/],
    [{ ...S3, AWS_SECRET_ACCESS_KEY: " " }, /AWS_SECRET_ACCESS_KEY is required/],
    [{ ...S3, S3_ENDPOINT: "minio.example:9000" }, /S3_ENDPOINT must be an http/],
    [{ ...S3, S3_ENDPOINT: "ftp://minio.example" }, /S3_ENDPOINT must be an http/],
    [{ ...S3, S3_ALIAS_HOST: "https://cdn.example" }, /S3_ALIAS_HOST is a host/],
    [{ ...S3, S3_PROTOCOL: "ftp" }, /S3_PROTOCOL must be one of http, https/],
    [
      { ...S3, S3_OVERRIDE_PATH_STYLE: "sometimes" },
      /S3_OVERRIDE_PATH_STYLE must be true or false/,
    ],
    [{ ...S3, S3_MULTIPART_THRESHOLD: "1024" }, /S3_MULTIPART_THRESHOLD must be an integer/],
    [{ ...S3, S3_BATCH_DELETE_LIMIT: "5000" }, /S3_BATCH_DELETE_LIMIT must be an integer/],
    [{ ...S3, S3_ENABLED: "maybe" }, /S3_ENABLED must be true or false/],
  ];
  for (const [env, message] of refused) {
    assert.throws(
      () => loadConfig(env),
      (e: unknown) => e instanceof ConfigError && message.test(e.message),
      JSON.stringify(env),
    );
  }
});

Deno.test("MEDIA_CACHE_RETENTION_PERIOD: unset or 0 keeps copies; days; refused values", () => {
  assert.equal(loadConfig({}).media.cacheRetentionDays, null);
  assert.equal(loadConfig({ MEDIA_CACHE_RETENTION_PERIOD: "0" }).media.cacheRetentionDays, null);
  assert.equal(loadConfig({ MEDIA_CACHE_RETENTION_PERIOD: "14" }).media.cacheRetentionDays, 14);
  for (const bad of ["-1", "1.5", "a week", "36501"]) {
    assert.throws(
      () => loadConfig({ MEDIA_CACHE_RETENTION_PERIOD: bad }),
      (e: unknown) =>
        e instanceof ConfigError &&
        /MEDIA_CACHE_RETENTION_PERIOD must be an integer/.test(e.message),
      bad,
    );
  }
});
