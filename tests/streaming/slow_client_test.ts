/**
 * Slow clients are dropped, never buffered without bound: a WebSocket whose
 * unsent frames pass the limit is closed, an SSE response whose reader lags
 * by more than the limit is ended. (Filling megabytes through real posts
 * would take thousands of them, so the connections are driven directly.)
 */
import assert from "node:assert/strict";
import { test } from "../harness.ts";
import type { AppContext } from "../../context.ts";
import { StreamHub } from "../../api/streaming/hub.ts";
import { Payload } from "../../api/streaming/frames.ts";
import { parseSubscription } from "../../api/streaming/streams.ts";
import {
  BUFFER_CHECK_EVERY,
  MAX_BUFFERED_BYTES,
  WebSocketConnection,
} from "../../api/streaming/websocket.ts";
import { MAX_QUEUED_BYTES, SseConnection } from "../../api/streaming/sse.ts";

const credentials = { accountId: "1", tokenId: "2", scopes: ["read"], protocol: null };
const sub = parseSubscription("user", {});

test("a slow WebSocket client is closed", () => {
  const hub = new StreamHub({} as AppContext);
  const sent: string[] = [];
  const closed: number[] = [];
  const socket = {
    readyState: WebSocket.OPEN,
    bufferedAmount: 0,
    send(frame: string) {
      sent.push(frame);
    },
    close(code: number) {
      closed.push(code);
    },
  };
  const conn = new WebSocketConnection(
    socket as unknown as WebSocket,
    credentials,
    hub,
    {} as AppContext,
  );
  hub.add(conn);
  conn.send(sub, new Payload("update", "{}"));
  assert.deepEqual(sent, ['{"stream":["user"],"event":"update","payload":"{}"}']);
  socket.bufferedAmount = MAX_BUFFERED_BYTES + 1;
  // The unsent bytes are read every BUFFER_CHECK_EVERY frames: the frames
  // until the next read still go, the one that finds the limit passed does not.
  for (let i = 0; i < BUFFER_CHECK_EVERY; i++) conn.send(sub, new Payload("update", "{}"));
  assert.equal(sent.length, BUFFER_CHECK_EVERY);
  assert.deepEqual(closed, [4000]);
  assert.equal(hub.size, 0);
});

test("an SSE client that stops reading is ended", async () => {
  const hub = new StreamHub({} as AppContext);
  const conn = new SseConnection(sub, credentials, hub);
  const body = conn.body();
  assert.equal(hub.size, 1);
  const big = new Payload("update", "x".repeat(MAX_QUEUED_BYTES / 4));
  let sends = 0;
  while (hub.size > 0 && sends < 100) {
    conn.send(sub, big);
    sends++;
  }
  // Each frame is a little over a quarter of the limit: the fourth takes the
  // queue past it, the fifth finds it over and ends the response.
  assert.equal(sends, 5);
  // What was queued is still readable, then the stream ends.
  let bytes = 0;
  for await (const chunk of body) bytes += chunk.length;
  assert.ok(bytes > MAX_QUEUED_BYTES && bytes < 1.5 * MAX_QUEUED_BYTES, `${bytes} bytes`);
});
