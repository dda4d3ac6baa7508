/**
 * OpenTelemetry over OTLP/HTTP, against a collector stub the test starts
 * (tests/fixtures/otlp_collector.ts): a server span per request named by
 * its route, Fedify's spans nested under ours, metrics exported on their
 * interval, the protobuf protocol, the flush at close, and the standard
 * variables as config.ts reads them.
 */
import assert from "node:assert/strict";
import { afterAll, startInstance, test } from "../harness.ts";
import { createUser } from "../fixtures/users.ts";
import { startCollector } from "../fixtures/otlp_collector.ts";
import { ConfigError, loadConfig } from "../../config.ts";
import { recordJob } from "../../actors/outbox/jobs.ts";

const collector = startCollector();
const instance = await startInstance({
  worker: false,
  env: {
    OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    OTEL_METRIC_EXPORT_INTERVAL: "200",
    OTEL_BSP_SCHEDULE_DELAY: "50",
  },
});
afterAll(async () => {
  await instance.close({ destroy: true });
  await collector.stop();
});
await createUser(instance, "alice");

/** SpanKind in OTLP. */
const SERVER = 2;
const CONSUMER = 5;

test("a request is a server span named by its route, without its query", async () => {
  const res = await instance.request("/api/v1/instance?access_token=very-secret");
  assert.equal(res.status, 200);
  await res.body?.cancel();
  const span = await collector.waitFor(() =>
    collector.spans().find((s) => s.name === "GET /api/v1/instance")
  );
  assert.equal(span.kind, SERVER);
  assert.equal(span.attributes["http.route"], "/api/v1/instance");
  assert.equal(span.attributes["http.request.method"], "GET");
  assert.equal(Number(span.attributes["http.response.status_code"]), 200);
  assert.equal(span.attributes["url.path"], "/api/v1/instance");
  assert.ok(!JSON.stringify(span).includes("very-secret"), "the query is never recorded");
  assert.equal(span.resource["service.name"], "rookery");
  assert.equal(span.resource["rookery.role"], "all");
  assert.match(String(span.traceId), /^[0-9a-f]{32}$/);
});

test("Fedify's spans nest under our server span", async () => {
  const res = await instance.request(
    `/.well-known/webfinger?resource=acct:alice@${instance.domain}`,
  );
  assert.equal(res.status, 200);
  await res.body?.cancel();
  const ours = await collector.waitFor(() =>
    collector.spans().find((s) =>
      s.name === "GET (federation)" && s.attributes["url.path"] === "/.well-known/webfinger"
    )
  );
  const child = await collector.waitFor(() =>
    collector.spans().find((s) => s.parentSpanId === ours.spanId)
  );
  assert.equal(child.traceId, ours.traceId);
  assert.match(child.name, /webfinger/i);
});

test("metrics are exported on their interval", async () => {
  const names = await collector.waitFor(() => {
    const text = collector.requests.filter((r) => r.path === "/v1/metrics")
      .map((r) => new TextDecoder().decode(r.body)).join("\n");
    return text.includes("http.server.request.duration") && text;
  });
  assert.match(names, /"db\.client\.operation\.duration"/);
  assert.match(names, /"process\.memory\.usage"/);
});

test("a job runs in a consumer span of its own", async () => {
  await recordJob(instance.rookery.ctx.database.db, { job: "link_card", statusId: "1" });
  instance.rookery.startWorker();
  const span = await collector.waitFor(() =>
    collector.spans().find((s) => s.name === "job link_card")
  );
  assert.equal(span.kind, CONSUMER);
  assert.equal(span.attributes["rookery.job"], "link_card");
});

test("a job continues the trace of the request that recorded it", async () => {
  instance.rookery.startWorker();
  const carol = await createUser(instance, "carol");
  const res = await instance.request("/api/v1/statuses", {
    method: "POST",
    headers: { authorization: `Bearer ${carol.token}`, "content-type": "application/json" },
    body: JSON.stringify({ status: "a link: http://127.0.0.1:1/page" }),
  });
  assert.equal(res.status, 200);
  const { id } = await res.json();
  const post = await collector.waitFor(() =>
    collector.spans().find((s) => s.name === "POST /api/v1/statuses")
  );
  const job = await collector.waitFor(() =>
    collector.spans().find((s) => s.name === "job link_card" && s.traceId === post.traceId)
  );
  assert.ok(job.parentSpanId, "the job's span has a parent");
  assert.ok(id);
});

test("protobuf by default, and spans still pending are sent at close", async () => {
  const other = startCollector();
  const proto = await startInstance({
    worker: false,
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: other.endpoint,
      OTEL_METRICS_EXPORTER: "none",
      // Far beyond the test: only the close sends them.
      OTEL_BSP_SCHEDULE_DELAY: "600000",
    },
  });
  try {
    const res = await proto.request("/api/v1/instance");
    await res.body?.cancel();
    assert.equal(other.requests.length, 0, "nothing sent before the close");
  } finally {
    await proto.close({ destroy: true });
  }
  const traces = other.requests.filter((r) => r.path === "/v1/traces");
  assert.ok(traces.length >= 1, "flushed at close");
  assert.equal(traces[0].contentType, "application/x-protobuf");
  const bytes = new TextDecoder("latin1").decode(
    new Uint8Array(traces.flatMap((r) => [...r.body])),
  );
  assert.ok(bytes.includes("GET /api/v1/instance"), "the span's name is in the protobuf body");
  assert.equal(other.requests.filter((r) => r.path === "/v1/metrics").length, 0);
  await other.stop();
});

test("the standard OTEL_* variables", () => {
  const base = { PORT: "8080" };
  assert.equal(loadConfig(base).otel, null);
  const endpoint = { ...base, OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" };
  const otel = loadConfig({
    ...endpoint,
    OTEL_EXPORTER_OTLP_HEADERS: "x-api-key=a%20b,other=c",
    OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=prod",
    OTEL_SERVICE_NAME: "social",
    OTEL_TRACES_SAMPLER: "traceidratio",
    OTEL_TRACES_SAMPLER_ARG: "0.25",
  }).otel!;
  assert.equal(otel.traces?.url, "http://collector:4318/v1/traces");
  assert.equal(otel.metrics?.url, "http://collector:4318/v1/metrics");
  assert.equal(otel.metrics?.intervalMs, 60000);
  assert.equal(otel.protocol, "http/protobuf");
  assert.deepEqual(otel.headers, { "x-api-key": "a b", other: "c" });
  assert.deepEqual(otel.resourceAttributes, { "deployment.environment": "prod" });
  assert.equal(otel.serviceName, "social");
  assert.deepEqual(otel.sampler, { kind: "traceidratio", ratio: 0.25 });
  // A signal's own endpoint wins; "none" turns a signal off.
  const own = loadConfig({
    ...endpoint,
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://traces.example/v1/t",
    OTEL_METRICS_EXPORTER: "none",
  }).otel!;
  assert.equal(own.traces?.url, "https://traces.example/v1/t");
  assert.equal(own.metrics, null);
  assert.equal(loadConfig({ ...endpoint, OTEL_TRACES_EXPORTER: "none" }).otel?.traces, null);
  assert.equal(loadConfig({ ...endpoint, OTEL_SDK_DISABLED: "true" }).otel, null);
  assert.throws(
    () => loadConfig({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }),
    (e) => e instanceof ConfigError && /not supported: use http\/protobuf/.test(e.message),
  );
  assert.throws(() => loadConfig({ ...endpoint, OTEL_TRACES_SAMPLER_ARG: "2" }), ConfigError);
  assert.throws(
    () => loadConfig({ ...endpoint, OTEL_EXPORTER_OTLP_HEADERS: "novalue" }),
    ConfigError,
  );
  assert.throws(
    () => loadConfig({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: "collector" }),
    ConfigError,
  );
});
