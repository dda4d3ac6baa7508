/**
 * A frame for thousands of sockets is sent in slices with turns of the
 * event loop between them ({@link SEND_SLICE}): the requests and I/O that
 * wait are handled during a 10,000-socket post, not after it. Driven
 * directly, as slow_client_test.ts does (thousands of real sockets belong
 * to the benchmark), with connections over sockets that record the frames.
 */
import assert from "node:assert/strict";
import { setImmediate } from "node:timers";
import { test } from "../harness.ts";
import type { AppContext } from "../../context.ts";
import { StreamHub } from "../../api/streaming/hub.ts";
import { Payload } from "../../api/streaming/frames.ts";
import { parseSubscription } from "../../api/streaming/streams.ts";
import { WebSocketConnection } from "../../api/streaming/websocket.ts";
import { deliverPlain, SEND_SLICE } from "../../api/streaming/render.ts";

test("a frame for thousands of sockets leaves the event loop turns in between", async () => {
  const hub = new StreamHub({} as AppContext);
  const sub = parseSubscription("user", {});
  const sent: string[] = [];
  const socket = {
    readyState: WebSocket.OPEN,
    bufferedAmount: 0,
    send(frame: string) {
      sent.push(frame);
    },
    close() {},
  } as unknown as WebSocket;
  const count = SEND_SLICE * 2 + 500;
  const targets = Array.from({ length: count }, (_, i) => {
    const credentials = {
      accountId: String(i + 1),
      tokenId: null,
      scopes: ["read"],
      protocol: null,
    };
    return { conn: new WebSocketConnection(socket, credentials, hub, {} as AppContext), sub };
  });
  // Waiting work: it runs at the first turn, while the delivery is under way.
  let sentWhenTurned = -1;
  setImmediate(() => sentWhenTurned = sent.length);
  await deliverPlain(targets, new Payload("update", "{}"));
  assert.equal(sent.length, count);
  assert.equal(new Set(sent).size, 1, "one frame string for every socket");
  assert.equal(sentWhenTurned, SEND_SLICE);
});
