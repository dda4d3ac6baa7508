/**
 * The streaming routes:
 * - GET /api/v1/streaming/health: `OK` (public);
 * - GET /api/v1/streaming: the multiplexed WebSocket (websocket.ts). A plain
 *   GET without the upgrade is 404, as on Mastodon's web host when the
 *   streaming server shares its host;
 * - GET /api/v1/streaming/<channel>: server-sent events (sse.ts); an
 *   unknown channel is 400 "Unknown channel requested".
 * Credentials are refused before any upgrade or stream starts: 401 with
 * Mastodon's message ("Missing access token", "Invalid access token", "Access
 * token does not have the required scopes"). Without a token a WebSocket
 * opens only while the public preview is on, and only for a public stream
 * (or none yet: it may then subscribe to public streams only).
 */
import { type Context, Hono } from "hono";
import type { ApiEnv } from "../env.ts";
import { readBoolean } from "../readers.ts";
import { checkSubscription, type StreamCredentials, streamCredentials } from "./auth.ts";
import { streamHub } from "./hub.ts";
import { initialSubscription, openWebSocket } from "./websocket.ts";
import { openEventStream } from "./sse.ts";
import {
  isPublicStream,
  parseSubscription,
  STREAM_ERRORS,
  StreamError,
  streamOfPath,
} from "./streams.ts";

function refusal(c: Context<ApiEnv>, error: unknown): Response {
  if (error instanceof StreamError) return c.json({ error: error.message }, error.status);
  throw error;
}

function wantsWebSocket(request: Request): boolean {
  return request.headers.get("upgrade")?.toLowerCase() === "websocket";
}

async function credentialsOr(c: Context<ApiEnv>): Promise<StreamCredentials | Response> {
  try {
    return await streamCredentials(c);
  } catch (error) {
    return refusal(c, error);
  }
}

/**
 * Whether an anonymous WebSocket may open: the public preview is on and the
 * stream in the URL, if any, is a public one (an unknown name is answered on
 * the socket, as Mastodon does).
 */
function anonymousMayOpen(c: Context<ApiEnv>, publicPreview: boolean): boolean {
  if (!publicPreview) return false;
  const stream = c.req.query("stream");
  if (!stream) return true;
  try {
    return isPublicStream(parseSubscription(stream, { tag: "x", list: "0" }).name);
  } catch {
    return true;
  }
}

export function streamingRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>({ strict: false });

  app.get("/api/v1/streaming/health", (c) => c.text("OK"));

  app.get("/api/v1/streaming", async (c) => {
    // Mastodon's web host answers this path with a redirect to the streaming
    // host, or 404 when it is the same host (clients probe it so).
    if (!wantsWebSocket(c.req.raw)) return c.json({ error: "Record not found" }, 404);
    const credentials = await credentialsOr(c);
    if (credentials instanceof Response) return credentials;
    const ctx = c.get("ctx");
    if (!credentials.accountId && !anonymousMayOpen(c, ctx.config.publicPreview)) {
      return c.json({ error: STREAM_ERRORS.missingToken }, 401);
    }
    const initial = await initialSubscription(ctx, credentials, new URL(c.req.url).searchParams);
    const hub = await streamHub(ctx);
    if (hub.closed) return c.json({ error: "Service Unavailable" }, 503);
    const upgradable = c.env?.connectionRequest ?? c.req.raw;
    return openWebSocket(ctx, hub, upgradable, credentials, initial);
  });

  app.get("/api/v1/streaming/*", async (c) => {
    const query = c.req.queries();
    const first = (key: string) => query[key]?.[0];
    const onlyMedia = readBoolean({ only_media: first("only_media") }, "only_media") ?? false;
    const name = streamOfPath(c.req.path, onlyMedia);
    if (!name) return c.json({ error: STREAM_ERRORS.unknownChannel }, 400);
    const credentials = await credentialsOr(c);
    if (credentials instanceof Response) return credentials;
    const ctx = c.get("ctx");
    try {
      const sub = parseSubscription(name, { tag: first("tag"), list: first("list") });
      await checkSubscription(ctx, credentials, sub);
      const hub = await streamHub(ctx);
      if (hub.closed) return c.json({ error: "Service Unavailable" }, 503);
      return openEventStream(hub, sub, credentials);
    } catch (error) {
      return refusal(c, error);
    }
  });

  return app;
}
