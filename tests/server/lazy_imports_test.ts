/**
 * What only some deployments use is loaded only by them: no static import
 * from main.ts reaches the OpenTelemetry SDK and exporters (loaded when
 * METRICS_BIND or an OTLP endpoint is set, telemetry/sdk.ts) or the AWS SDK
 * (loaded when S3_ENABLED=true). `@opentelemetry/api`, which records into
 * no-ops when nothing is on, is allowed. Reads `deno info --json`: no server.
 */
import assert from "node:assert/strict";
import { test } from "../harness.ts";

const ROOT = new URL("../../", import.meta.url);
const LAZY = /^npm:\/?(@opentelemetry\/(?!api@)[^@]+|@aws-sdk\/[^@]+)@/;

interface Dependency {
  code?: { specifier: string };
  isDynamic?: boolean;
}

test("main.ts reaches the OpenTelemetry SDK and the AWS SDK only through dynamic imports", async () => {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "main.ts"],
    cwd: ROOT.pathname,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(output.success, new TextDecoder().decode(output.stderr));
  const info = JSON.parse(new TextDecoder().decode(output.stdout));
  const modules = new Map<string, Dependency[]>(
    info.modules.map((m: { specifier: string; dependencies?: Dependency[] }) => [
      m.specifier,
      m.dependencies ?? [],
    ]),
  );
  // Follows static imports of our own modules (type-only imports load nothing).
  const seen = new Set<string>();
  const found: string[] = [];
  const walk = (specifier: string, via: string[]) => {
    if (seen.has(specifier)) return;
    seen.add(specifier);
    for (const dep of modules.get(specifier) ?? []) {
      if (!dep.code || dep.isDynamic) continue;
      const target = dep.code.specifier;
      if (LAZY.test(target)) found.push(`${[...via, specifier].at(-1)} → ${target}`);
      else if (target.startsWith("file:")) walk(target, [...via, specifier]);
    }
  };
  for (const root of info.roots) walk(root, []);
  assert.ok(seen.size > 100, "the walk saw the tree");
  assert.deepEqual(found, []);
});
