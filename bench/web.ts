/**
 * The web app's signed-in home page (issue 35): `GET /` with the seeded
 * viewer's session cookie, 40 posts, beside the API's home timeline rows
 * (same server, same data). Besides the latency rows (bench/run.ts), the
 * server's CPU per request of both, measured back to back, and the page's
 * size: the target is the API's own cost plus rendering (design 35 §15).
 */
import { cpuMs } from "./streaming.ts";

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
