/**
 * The web app's signed-in home page (issue 35): `GET /` with the seeded
 * viewer's session cookie, 40 posts, beside the API's home timeline rows
 * (same server, same data). Besides the latency rows (bench/run.ts), the
 * server's CPU per request of both, measured back to back, and the page's
 * size: the target is the API's own cost plus rendering (design 35 §15).
 */
import autocannon from "autocannon";
import { cpuMs } from "./streaming.ts";
import { paced } from "./paced.ts";
import type { Row } from "./rows.ts";

/** What bench/run.ts lends the web rows: its rate, duration, full-speed runner and log. */
export interface RowTools {
  rate: number;
  seconds: number;
  cannon: (options: Record<string, unknown>) => Promise<Omit<Row, "database" | "scenario">>;
  log: (message: string) => void;
}

/** The request of the signed-in home page. */
export function webHomeRequest(url: string, cookie: string) {
  return {
    url: `${url}/`,
    headers: { cookie: `_rookery_session=${cookie}`, accept: "text/html" },
  };
}

/** Asks the page once: it must be Home with 40 posts under the app's CSP. Returns its size. */
export async function checkWebHome(url: string, cookie: string): Promise<number> {
  const { url: page, headers } = webHomeRequest(url, cookie);
  const res = await fetch(page, { headers });
  const html = await res.text();
  const articles = html.match(/<article class="status/g)?.length ?? 0;
  const csp = res.headers.get("content-security-policy") ?? "";
  if (res.status !== 200 || articles !== 40 || !csp.includes("script-src")) {
    throw new Error(`web home: status ${res.status}, ${articles} posts, CSP ${csp}`);
  }
  return new TextEncoder().encode(html).length;
}

/** Server CPU per request (ms) of `count` sequential requests. */
export async function cpuPerRequest(
  pid: number,
  request: { url: string; headers: Record<string, string> },
  count = 200,
): Promise<number> {
  const before = cpuMs(pid);
  for (let i = 0; i < count; i++) {
    const res = await fetch(request.url, { headers: request.headers });
    await res.arrayBuffer();
  }
  return (cpuMs(pid) - before) / count;
}

/**
 * The web app's signed-in home page, right after the API's
 * home rows: paced at RATE and full speed, then the server CPU per request
 * of the API's home and the page, back to back, and the page's size.
 */
export async function webHomeRows(
  database: string,
  { url, pid }: { url: string; pid: number },
  viewerCookie: string,
  home: { url: string; headers: Record<string, string> },
  { rate: RATE, seconds: SECONDS, cannon, log }: RowTools,
): Promise<Row[]> {
  const web = webHomeRequest(url, viewerCookie);
  const bytes = await checkWebHome(url, viewerCookie);
  await autocannon({ ...web, duration: 3, connections: 4 }); // warm
  log(`${database}: web home at ${RATE} requests/s`);
  const rows: Row[] = [{
    database,
    scenario: `web home (40) @ ${RATE}/s`,
    ...await paced({ ...web, rate: RATE, seconds: SECONDS }),
  }];
  log(`${database}: web home, full speed`);
  rows.push({
    database,
    scenario: "web home (40) max",
    ...await cannon({ ...web, connections: 32 }),
  });
  const apiCpu = await cpuPerRequest(pid, home);
  const webCpu = await cpuPerRequest(pid, web);
  log(
    `${database}: server CPU per request: API home ${apiCpu.toFixed(2)} ms, web home ${
      webCpu.toFixed(2)
    } ms (render + session: ${(webCpu - apiCpu).toFixed(2)} ms); page ${bytes} bytes`,
  );
  return rows;
}
