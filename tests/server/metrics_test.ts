/**
 * The Prometheus endpoint (METRICS_BIND): its own listener, never the public
 * port, with the request histogram by route template, inbox refusals, the
 * queue by kind, streaming connections, database timing and pool use,
 * process memory, and Fedify's own metrics.
 */
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { afterAll, DB_KIND, startInstance, test } from "../harness.ts";
import { ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { WsClient } from "../streaming/helpers.ts";
import { startFakePeer } from "../fixtures/fake_peer.ts";
import { eventually } from "../fixtures/wait.ts";
import { ConfigError, loadConfig } from "../../config.ts";

const instance = await startInstance({
  listen: true,
  // The queue gauges read what waits: nothing here consumes it.
  worker: false,
  env: { METRICS_BIND: "127.0.0.1:0" },
});
afterAll(() => instance.close({ destroy: true }));
const alice = await createUser(instance, "alice");

/** One scrape of the endpoint. */
async function scrape(): Promise<string> {
  const port = instance.rookery.metricsPort;
  assert.ok(port, "the metrics listener is up");
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
  return await res.text();
}

/** The value of the first series named `name` whose labels include all of `labels`. */
function value(text: string, name: string, labels: Record<string, string> = {}): number | null {
  for (const line of text.split("\n")) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const have = match[2] ?? "";
    if (Object.entries(labels).every(([k, v]) => have.includes(`${k}="${v}"`))) {
      return Number(match[3]);
    }
  }
  return null;
}

test("requests are counted by route template and status, with latency buckets", async () => {
  const status = await postStatus(instance, alice, "counted");
  await ok(instance, alice, "GET", `/api/v1/statuses/${status.id}`);
  await ok(instance, alice, "GET", `/api/v1/statuses/${status.id}`);
  const text = await scrape();
  const labels = {
    http_request_method: "GET",
    http_route: "/api/v1/statuses/:id",
    http_response_status_code: "200",
  };
  assert.equal(value(text, "http_server_request_duration_count", labels), 2);
  assert.equal(value(text, "http_server_request_duration_bucket", { ...labels, le: "+Inf" }), 2);
  assert.equal(value(text, "http_server_request_duration_bucket", { ...labels, le: "10" }), 2);
  // The path itself (with the id) is never a label.
  assert.ok(!text.includes(status.id), "no status id in any series");
  await ok(instance, null, "GET", `/api/v1/statuses/999999999999`).catch(() => {});
  const after = await scrape();
  assert.equal(
    value(after, "http_server_request_duration_count", {
      http_route: "/api/v1/statuses/:id",
      http_response_status_code: "404",
    }),
    1,
  );
});

test("the public port does not serve the metrics", async () => {
  const res = await instance.request("/metrics");
  await res.body?.cancel();
  assert.equal(res.status, 404);
  const other = await fetch(`http://127.0.0.1:${instance.rookery.metricsPort}/other`);
  await other.body?.cancel();
  assert.equal(other.status, 404);
});

test("Fedify's answers are labelled (federation) and its own metrics are there", async () => {
  const res = await instance.request(
    `/.well-known/webfinger?resource=acct:alice@${instance.domain}`,
  );
  assert.equal(res.status, 200);
  await res.body?.cancel();
  const text = await scrape();
  assert.ok(
    (value(text, "http_server_request_duration_count", { http_route: "(federation)" }) ?? 0) >= 1,
  );
  assert.ok(
    (value(text, "fedify_http_server_request_count_total") ?? 0) >= 1,
    "Fedify records into our meter provider",
  );
});

test("inbox deliveries the guard refuses are counted with the reason", async () => {
  const res = await instance.request("/inbox", {
    method: "POST",
    headers: { "content-type": "application/activity+json" },
    body: JSON.stringify({
      "@context": "https://www.w3.org/ns/activitystreams",
      type: "Create",
      actor: "https://elsewhere.example/users/x",
    }),
  });
  await res.body?.cancel();
  assert.equal(res.status, 401);
  const text = await scrape();
  assert.equal(
    value(text, "rookery_inbox_activities_total", { outcome: "refused", reason: "signature" }),
    1,
  );
  assert.ok(
    (value(text, "http_server_request_duration_count", { http_route: "(inbox)" }) ?? 0) >= 1,
  );
});

test("queue depth and oldest age by kind", async () => {
  await instance.rookery.ctx.database.rows(sql`
    INSERT INTO federation_queue (message, run_at, created_at)
    VALUES ('{"job": "link_card"}'::jsonb, now() + interval '1 hour', now() - interval '90 seconds')`);
  const text = await scrape();
  assert.equal(value(text, "rookery_queue_depth", { kind: "link_card", state: "delayed" }), 1);
  const age = value(text, "rookery_queue_oldest_age", { kind: "link_card" });
  assert.ok(age !== null && age >= 90 && age < 600, `oldest age ${age}`);
});

test("open streaming connections by transport", async () => {
  const ws = await WsClient.open(
    instance,
    `/api/v1/streaming?stream=user&access_token=${alice.token}`,
  );
  try {
    const text = await scrape();
    assert.equal(value(text, "rookery_streaming_connections", { transport: "websocket" }), 1);
    assert.equal(value(text, "rookery_streaming_connections", { transport: "sse" }), 0);
  } finally {
    ws.socket.close();
    await ws.closed;
  }
});

test("database timing, pool use and process memory", async () => {
  const text = await scrape();
  const system = DB_KIND === "postgres" ? "postgresql" : "pglite";
  const selects = value(text, "db_client_operation_duration_count", {
    db_system: system,
    db_operation_name: "SELECT",
  });
  assert.ok((selects ?? 0) > 0, "SELECTs timed");
  const inserts = value(text, "db_client_operation_duration_count", {
    db_system: system,
    db_operation_name: "INSERT",
  });
  assert.ok((inserts ?? 0) > 0, "INSERTs timed");
  const max = DB_KIND === "postgres" ? 10 : 1;
  assert.equal(value(text, "db_client_connection_max"), max);
  const used = value(text, "db_client_connection_count", { state: "used" });
  const idle = value(text, "db_client_connection_count", { state: "idle" });
  assert.ok(used !== null && idle !== null && used + idle === max, `used ${used}, idle ${idle}`);
  assert.ok((value(text, "process_memory_usage") ?? 0) > 10_000_000, "RSS reported");
  assert.ok((value(text, "target_info", { service_name: "rookery", rookery_role: "all" })) === 1);
});

test("a ROLE=web process serves its own metrics, without the queue's", async () => {
  const web = await startInstance({
    worker: false,
    env: { ROLE: "web", METRICS_BIND: "127.0.0.1:0" },
  });
  try {
    await web.rookery.ctx.database.rows(sql`
      INSERT INTO federation_queue (message, run_at) VALUES ('{"type": "outbox"}'::jsonb, now())`);
    const res = await fetch(`http://127.0.0.1:${web.rookery.metricsPort}/metrics`);
    const text = await res.text();
    assert.match(text, /^target_info\{.*rookery_role="web".*\} 1$/m);
    assert.doesNotMatch(text, /rookery_queue_depth/);
    assert.match(text, /^db_client_connection_max\{/m);
  } finally {
    await web.close({ destroy: true });
  }
});

test("deliveries sent and failed for good are counted (Fedify's counters)", async () => {
  const peer = await startFakePeer({ rsaBits: 2048 });
  try {
    const bob = peer.publishActor("bob");
    const gone = peer.publishActor("gone");
    peer.route("/users/gone/inbox", () => new Response(null, { status: 410 }));
    // The queue runs from here on (the queue gauges' test above is done).
    instance.rookery.startWorker();
    for (const actor of [bob, gone]) {
      const q = encodeURIComponent(actor);
      const found = await ok(instance, alice, "GET", `/api/v2/search?q=${q}&resolve=true`);
      await ok(instance, alice, "POST", `/api/v1/accounts/${found.accounts[0].id}/follow`);
    }
    const text = await eventually("both deliveries counted", async () => {
      const text = await scrape();
      const failed = value(text, "activitypub_delivery_permanent_failure_total") ?? 0;
      const sent = value(text, "activitypub_delivery_sent_total", {
        activitypub_delivery_success: "true",
      }) ?? 0;
      return failed >= 1 && sent >= 1 ? text : null;
    });
    assert.ok(peer.hits("/users/bob/inbox") >= 1);
    assert.match(text, /^activitypub_delivery_duration_count\{/m);
  } finally {
    await peer.close();
  }
});

test("METRICS_BIND is host:port and never the public address", () => {
  const base = { PORT: "8080", BIND: "127.0.0.1" };
  assert.equal(loadConfig(base).metrics.bind, null);
  assert.deepEqual(loadConfig({ ...base, METRICS_BIND: "127.0.0.1:9394" }).metrics.bind, {
    hostname: "127.0.0.1",
    port: 9394,
  });
  assert.deepEqual(loadConfig({ ...base, METRICS_BIND: "[::1]:9394" }).metrics.bind, {
    hostname: "::1",
    port: 9394,
  });
  assert.throws(
    () => loadConfig({ ...base, METRICS_BIND: "127.0.0.1:8080" }),
    (e) => e instanceof ConfigError && /METRICS_BIND must differ/.test(e.message),
  );
  for (const bad of ["9394", "localhost", "host:99999", "http://x:1"]) {
    assert.throws(() => loadConfig({ ...base, METRICS_BIND: bad }), ConfigError, bad);
  }
});

test("a ROLE=worker process serves its own metrics, queue gauges included", async () => {
  const worker = await startInstance({
    worker: false,
    env: { ROLE: "worker", METRICS_BIND: "127.0.0.1:0" },
  });
  try {
    await worker.rookery.ctx.database.rows(sql`
      INSERT INTO federation_queue (message, run_at) VALUES ('{"type": "outbox"}'::jsonb, now())`);
    const res = await fetch(`http://127.0.0.1:${worker.rookery.metricsPort}/metrics`);
    const text = await res.text();
    assert.match(text, /^target_info\{.*rookery_role="worker".*\} 1$/m);
    assert.equal(value(text, "rookery_queue_depth", { kind: "outbox", state: "ready" }), 1);
    assert.match(text, /^db_client_connection_max\{/m);
  } finally {
    await worker.close({ destroy: true });
  }
});
