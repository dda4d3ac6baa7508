/**
 * A user agent's side of Web Push for the tests: subscription keys (a P-256
 * key pair and an auth secret, as a browser makes them), a local push
 * service on loopback that records what it receives, decryption of both
 * encodings with the subscription's private key (http_ece), and the check
 * of the VAPID JWT against the instance's public key.
 */
import crypto from "node:crypto";
import { Buffer } from "node:buffer";
import ece from "http_ece";
import { sql } from "drizzle-orm";
import type { TestInstance } from "../harness.ts";
import { eventually } from "../fixtures/wait.ts";

/** A browser's subscription keys. */
export interface UaKeys {
  ecdh: crypto.ECDH;
  /** Uncompressed public key, base64url. */
  p256dh: string;
  /** 16 random bytes, base64url. */
  auth: string;
  authBytes: Buffer;
}

export function uaKeys(): UaKeys {
  const ecdh = crypto.createECDH("prime256v1");
  ecdh.generateKeys();
  const authBytes = crypto.randomBytes(16);
  return {
    ecdh,
    p256dh: ecdh.getPublicKey("base64url"),
    auth: authBytes.toString("base64url"),
    authBytes,
  };
}

/** One request the push service received. */
export interface Received {
  path: string;
  headers: Headers;
  body: Uint8Array;
}

/** What a path of the push service answers (default 201). */
export type Answer = (attempt: number) => { status: number; headers?: Record<string, string> };

/** A push service on a loopback port. */
export interface PushService {
  origin: string;
  received: Received[];
  /** Sets the answers of a path (attempt counts from 1). */
  answer(path: string, fn: Answer): void;
  /** Requests received on a path. */
  on(path: string): Received[];
  close(): Promise<void>;
}

export function startPushService(): Promise<PushService> {
  const received: Received[] = [];
  const answers = new Map<string, Answer>();
  const { promise, resolve } = Promise.withResolvers<number>();
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: ({ port }) => resolve(port),
  }, async (request) => {
    const path = new URL(request.url).pathname;
    received.push({
      path,
      headers: request.headers,
      body: new Uint8Array(await request.arrayBuffer()),
    });
    const attempt = received.filter((r) => r.path === path).length;
    const answer = answers.get(path)?.(attempt) ?? { status: 201 };
    return new Response(null, { status: answer.status, headers: answer.headers });
  });
  return promise.then((port) => ({
    origin: `http://127.0.0.1:${port}`,
    received,
    answer: (path, fn) => void answers.set(path, fn),
    on: (path) => received.filter((r) => r.path === path),
    close: () => server.shutdown(),
  }));
}

/** Waits for the `index`-th message (from 0) on `path`. */
export function arrival(service: PushService, path: string, index = 0): Promise<Received> {
  return eventually(
    `push #${index + 1} on ${path}`,
    () => Promise.resolve(service.on(path)[index]),
  );
}

/** Waits until `path` has received more than `count` messages. */
export function moreThan(service: PushService, path: string, count: number): Promise<true> {
  return eventually(
    `more than ${count} pushes on ${path}`,
    () => Promise.resolve(service.on(path).length > count || undefined),
  );
}

/**
 * Decrypts a received message with the subscription's private key,
 * whichever encoding it used, and parses it ({@link readPayload}).
 */
export function decrypt(message: Received, keys: UaKeys): any {
  const encoding = message.headers.get("content-encoding");
  const body = Buffer.from(message.body);
  let plain: Buffer;
  if (encoding === "aes128gcm") {
    plain = ece.decrypt(body, {
      version: "aes128gcm",
      privateKey: keys.ecdh,
      authSecret: keys.authBytes,
    });
  } else if (encoding === "aesgcm") {
    const salt = /salt=([^;,\s]+)/.exec(message.headers.get("encryption") ?? "")?.[1];
    const dh = /dh=([^;,\s]+)/.exec(message.headers.get("crypto-key") ?? "")?.[1];
    if (!salt || !dh) throw new Error("aesgcm without salt or dh");
    plain = ece.decrypt(body, {
      version: "aesgcm",
      privateKey: keys.ecdh,
      dh,
      salt,
      authSecret: keys.authBytes,
    });
  } else {
    throw new Error(`Unexpected Content-Encoding ${encoding}`);
  }
  return readPayload(plain.toString("utf8"));
}

/**
 * Parses a payload, checking that `notification_id` is a JSON number (as
 * Mastodon sends it) and reading its digits exactly (a 64-bit id does not
 * survive a JavaScript number).
 */
export function readPayload(text: string): any {
  const number = /"notification_id":(\d+)[,}]/.exec(text);
  if (!number) throw new Error(`notification_id is not a number in ${text}`);
  return JSON.parse(
    text.replace(`"notification_id":${number[1]}`, `"notification_id":"${number[1]}"`),
  );
}

function base64UrlBytes(text: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Buffer.from(text.replace(/=+$/, ""), "base64url"));
}

/**
 * The VAPID JWT and key of a message (`vapid t=…, k=…` for aes128gcm,
 * `WebPush …` with `p256ecdsa=` in Crypto-Key for aesgcm).
 */
export function vapidOf(message: Received): { jwt: string; key: string } {
  const authorization = message.headers.get("authorization") ?? "";
  const standard = /^vapid t=([^,\s]+),\s*k=([^,\s]+)$/.exec(authorization);
  if (standard) return { jwt: standard[1], key: standard[2] };
  const legacy = /^WebPush (\S+)$/.exec(authorization);
  const key = /p256ecdsa=([^;,\s]+)/.exec(message.headers.get("crypto-key") ?? "")?.[1];
  if (legacy && key) return { jwt: legacy[1], key };
  throw new Error(`No VAPID authorization in ${authorization}`);
}

/**
 * Verifies the message's VAPID JWT (ES256) with `serverKey` (the instance's
 * `configuration.vapid.public_key`) and returns its claims.
 */
export async function verifyVapid(message: Received, serverKey: string): Promise<any> {
  const { jwt, key } = vapidOf(message);
  const expected = base64UrlBytes(serverKey);
  if (Buffer.compare(Buffer.from(base64UrlBytes(key)), Buffer.from(expected)) !== 0) {
    throw new Error("The message names another key than the instance's");
  }
  const [header, claims, signature] = jwt.split(".");
  const publicKey = await globalThis.crypto.subtle.importKey(
    "raw",
    expected,
    { name: "ECDSA", namedCurve: "P-256" },
    false,
    ["verify"],
  );
  const valid = await globalThis.crypto.subtle.verify(
    { name: "ECDSA", hash: "SHA-256" },
    publicKey,
    base64UrlBytes(signature),
    new TextEncoder().encode(`${header}.${claims}`),
  );
  if (!valid) throw new Error("The VAPID signature does not verify");
  const head = JSON.parse(Buffer.from(header, "base64url").toString());
  if (head.alg !== "ES256") throw new Error(`VAPID alg ${head.alg}`);
  return JSON.parse(Buffer.from(claims, "base64url").toString());
}

/** Waits until no push is recorded (not yet relayed), queued, waiting for a retry or running. */
export function pushesDrained(instance: TestInstance): Promise<true> {
  return eventually("the push jobs to finish", async () => {
    const [row] = await instance.rookery.ctx.database.rows<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM federation_queue
          WHERE message->>'type' = 'rookery:job' AND message->>'job' = 'web_push'`,
    );
    return row.n === 0 ? true : undefined;
  }, 20_000);
}
