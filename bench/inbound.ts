/**
 * The inbound scenario of `deno task bench`: signed deliveries of
 * Create(Note) from a remote server, as Mastodon sends them.
 *
 * The remote server is a fake peer on loopback (tests/fixtures/fake_peer.ts)
 * that serves its actor and public key (RSA-2048, as Mastodon's) over plain
 * http; the bench server runs with ALLOW_PRIVATE_ADDRESS=true so it may
 * fetch them. Each delivery is a POST of a Create of a new public Note
 * (unique ids) signed draft-cavage style over `(request-target) host date
 * digest content-type`, Mastodon's list, alternately to the shared inbox
 * and to a local user's inbox. Signing is done before each run, so the
 * generator's RSA work takes no CPU from the server while it is measured.
 *
 * BENCH_INBOX_SENDERS (default 1) spreads the deliveries over that many
 * actors of the peer, in turn: per-sender ordering makes one sender's
 * activities sequential, so many senders show what the server does with
 * the same load from a busy federation.
 *
 * Two runs:
 * - full speed: `count` deliveries, `concurrency` at a time; a delivery is
 *   accepted when it is answered 202 AND its note is stored afterwards
 *   (the inbox answers before the queue processes it). Accepted/s = notes
 *   stored / time from the first send to the last note stored;
 * - fixed rate: deliveries evenly spaced (bench/paced.ts, latency from each
 *   one's due time to its 202), p50/p95/p99, then the notes counted.
 *
 * Notes are counted with `stored()` (the caller's: SQL on PostgreSQL, the
 * sender's statuses_count through the API where the database is the
 * server's own, PGlite); the caller checks the exact rows afterwards.
 *
 * With `followers` (BENCH_INBOX_FOLLOWERS), those local accounts follow
 * every sender before the runs, as on a real server, which receives notes
 * mostly from actors its users follow: each asks through the API, the peer
 * answers the Follow with a signed Accept. Every note is then fanned out to
 * their home feeds, and their home timelines are read afterwards: the
 * newest entries must be the runs' notes (up to HOME_FEED_LIMIT).
 */
import { signJsonLd } from "@fedify/fedify/sig";
import { type DocumentLoader, preloadedContexts } from "@fedify/vocab-runtime";
import { type FakePeer, startFakePeer } from "../tests/fixtures/fake_peer.ts";
import { MASTODON_45_CONTEXT } from "../tests/federation/plain_documents.ts";
import { paced } from "./paced.ts";
import type { StatementCount, StatementProbe } from "./statements.ts";
import { HOME_FEED_LIMIT } from "../actors/timelines/fanout.ts";

const AS = "https://www.w3.org/ns/activitystreams";
/** Mastodon's signed headers for a POST. */
const COVERED = ["(request-target)", "host", "date", "digest", "content-type"];

export interface Prepared {
  url: string;
  init: RequestInit;
  /** The note's id. */
  note: string;
}

export interface InboundPeer {
  peer: FakePeer;
  /** The first actor; all of them in `actors`. */
  actor: string;
  actors: string[];
  /** The prefix of every note id this peer sends. */
  notePrefix: string;
  /** `n` signed deliveries, made now; `tag` keeps ids unique across runs. */
  sign(n: number, tag: string): Promise<Prepared[]>;
}

/**
 * A fake remote server delivering to `server` (shared inbox and `username`'s
 * inbox). With `senders` > 1 it has that many actors, `{name}0` … (one key,
 * the peer's), and delivery i comes from actor i % senders: per-sender
 * ordering lets one sender's activities be handled only one at a time.
 */
export async function startInboundPeer(
  server: string,
  username: string,
  { senders = 1, name = "loadgen" }: { senders?: number; name?: string } = {},
): Promise<InboundPeer> {
  const peer = await startFakePeer({ rsaBits: 2048 });
  const names = senders === 1 ? [name] : Array.from({ length: senders }, (_, i) => `${name}${i}`);
  const actors = names.map((n) =>
    peer.publishActor(n, { followers: `${peer.origin}/users/${n}/followers` })
  );
  const actor = actors[0];
  const notePrefix = `${peer.origin}/users/${name}`;
  const inboxes = [`${server}/inbox`, `${server}/users/${username}/inbox`];
  return {
    peer,
    actor,
    actors,
    notePrefix,
    async sign(n, tag) {
      const out: Prepared[] = [];
      for (let i = 0; i < n; i++) {
        const actor = actors[i % actors.length];
        const id = `${actor}/notes/${tag}-${i}`;
        const create = inboundCreate(SHAPE, actor, id, `${tag} ${i}`);
        const body = JSON.stringify(
          SIGNED === "ld"
            ? await ldSigned(create, peer.keys.privateKey, `${actor}#main-key`)
            : create,
        );
        const request = await peer.handSigned(
          inboxes[i % inboxes.length],
          body,
          `${actor}#main-key`,
          COVERED,
        );
        out.push({
          url: request.url,
          init: { method: "POST", headers: request.headers, body },
          note: id,
        });
      }
      return out;
    },
  };
}

/**
 * BENCH_INBOX_SHAPE: `minimal` (default) sends the least a Create(Note)
 * needs; `mastodon45` sends the note as Mastodon 4.5 writes one (its
 * context, language map, interaction policy, a mention of another actor of
 * the peer, a hashtag, a custom emoji and an image on the peer, which
 * answers 404 for both: the copy job's fetch fails fast, nothing is
 * downloaded or resized). Unsigned by Linked Data signature (as Mastodon
 * sends a note with AUTHORIZED_FETCH or a note that is not public) unless
 * BENCH_INBOX_SIGNED=ld.
 */
const SHAPE = Deno.env.get("BENCH_INBOX_SHAPE") ?? "minimal";

/**
 * BENCH_INBOX_SIGNED: `ld` adds a Linked Data signature (`RsaSignature2017`,
 * with the actor's key, as Mastodon signs every public activity) to each
 * Create of either shape; unset, none.
 */
const SIGNED = Deno.env.get("BENCH_INBOX_SIGNED") ?? "";
if (SIGNED !== "" && SIGNED !== "ld") throw new Error(`BENCH_INBOX_SIGNED=${SIGNED}: ld or unset`);

/** Contexts for signing: Fedify's preloaded ones (the shapes' others are inline), nothing fetched. */
const preloaded: DocumentLoader = (url) => {
  const document = preloadedContexts[url];
  if (document == null) return Promise.reject(new Error(`context ${url} is not preloaded`));
  return Promise.resolve({ contextUrl: null, documentUrl: url, document });
};

/** `activity` with a Linked Data signature by `keyId`, as Mastodon's LinkedDataSignature makes one. */
export async function ldSigned(
  activity: Record<string, unknown>,
  privateKey: CryptoKey,
  keyId: string,
): Promise<Record<string, unknown>> {
  return await signJsonLd(activity, privateKey, new URL(keyId), {
    contextLoader: preloaded,
  }) as Record<string, unknown>;
}

/** The Create of note `id` by `actor`, in `shape` (see {@link SHAPE}). */
export function inboundCreate(
  shape: string,
  actor: string,
  id: string,
  label: string,
): Record<string, unknown> {
  const published = new Date().toISOString();
  const content = `<p>Inbound benchmark note ${label}, with a little text to carry.</p>`;
  const note = {
    id,
    type: "Note",
    attributedTo: actor,
    published,
    to: [`${AS}#Public`],
    cc: [`${actor}/followers`],
    content,
  };
  const create = {
    "@context": AS as unknown,
    id: `${id}/activity`,
    type: "Create",
    actor,
    published,
  };
  if (shape === "minimal") return { ...create, to: note.to, cc: note.cc, object: note };
  if (shape !== "mastodon45") throw new Error(`BENCH_INBOX_SHAPE=${shape}: minimal or mastodon45`);
  const origin = new URL(actor).origin;
  return {
    ...create,
    "@context": MASTODON_45_CONTEXT,
    to: note.to,
    cc: [...note.cc, `${origin}/users/friend`],
    object: {
      ...note,
      cc: [...note.cc, `${origin}/users/friend`],
      summary: null,
      inReplyTo: null,
      url: id.replace("/users/", "/@"),
      sensitive: false,
      atomUri: id,
      inReplyToAtomUri: null,
      conversation: `tag:${new URL(actor).host},2026:objectId=${label}:objectType=Conversation`,
      context: `${origin}/contexts/${encodeURIComponent(label)}`,
      content: `${content}<p>@friend :bench: #bench</p>`,
      contentMap: { en: `${content}<p>@friend :bench: #bench</p>` },
      attachment: [{
        type: "Document",
        mediaType: "image/png",
        url: `${origin}/media/${encodeURIComponent(label)}.png`,
        name: "A picture",
        blurhash: "UBL_:rOpGG-oBUNG,qRj2so|=eE1w^n4S5NH",
        focalPoint: [0, 0],
        width: 640,
        height: 480,
      }],
      tag: [
        { type: "Mention", href: `${origin}/users/friend`, name: "@friend@loadgen" },
        { type: "Hashtag", href: `${origin}/tags/bench`, name: "#bench" },
        {
          id: `${origin}/emojis/1`,
          type: "Emoji",
          name: ":bench:",
          updated: "2026-01-01T00:00:00Z",
          icon: { type: "Image", mediaType: "image/png", url: `${origin}/emojis/bench.png` },
        },
      ],
      replies: {
        id: `${id}/replies`,
        type: "Collection",
        first: {
          type: "CollectionPage",
          next: `${id}/replies?page=true`,
          partOf: `${id}/replies`,
          items: [],
        },
      },
      likes: { id: `${id}/likes`, type: "Collection", totalItems: 0 },
      shares: { id: `${id}/shares`, type: "Collection", totalItems: 0 },
      interactionPolicy: { canQuote: { automaticApproval: [`${AS}#Public`] } },
    },
  };
}

export interface FullSpeedResult {
  sent: number;
  answered202: number;
  stored: number;
  /** Notes stored per second, from the first send to the last note stored. */
  acceptedPerSecond: number;
  /** 202 answers per second while sending. */
  answeredPerSecond: number;
  /** The server process's CPU per stored note, ms (not the database's). */
  serverCpuMsPerNote?: number;
}

/**
 * Waits until `stored()` reaches `target` or stops growing for `quietMs`;
 * returns the last count and when it last grew.
 */
async function drain(
  stored: () => Promise<number>,
  target: number,
  quietMs = 10_000,
): Promise<{ count: number; at: number }> {
  let count = await stored();
  let at = performance.now();
  while (count < target && performance.now() - at < quietMs) {
    await new Promise((r) => setTimeout(r, 100));
    const now = await stored();
    if (now > count) {
      count = now;
      at = performance.now();
    }
  }
  return { count, at };
}

/** Sends `prepared` with `concurrency` in flight; counts 202s and stored notes. */
export async function fullSpeed(
  prepared: Prepared[],
  concurrency: number,
  stored: () => Promise<number>,
): Promise<FullSpeedResult> {
  const before = await stored();
  let next = 0;
  let answered202 = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < prepared.length) {
      const { url, init } = prepared[next++];
      try {
        const res = await fetch(url, init);
        await res.body?.cancel();
        if (res.status === 202) answered202++;
      } catch { /* counted as not answered */ }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const sentIn = (performance.now() - started) / 1000;
  const { count, at } = await drain(stored, before + answered202);
  const storedNow = count - before;
  return {
    sent: prepared.length,
    answered202,
    stored: storedNow,
    acceptedPerSecond: Math.round(storedNow / ((at - started) / 1000)),
    answeredPerSecond: Math.round(answered202 / sentIn),
  };
}

export interface FixedRateResult {
  rate: number;
  sent: number;
  answered202: number;
  stored: number;
  p50: number;
  p95: number;
  p99: number;
  /** Not answered 202. */
  errors: number;
  /** From the last send to the last note stored, ms. */
  drainMs: number;
}

/** Sends `prepared` evenly at `rate`/s; latency of the 202 answers, then notes counted. */
export async function fixedRate(
  prepared: Prepared[],
  rate: number,
  stored: () => Promise<number>,
): Promise<FixedRateResult> {
  const before = await stored();
  const result = await paced({
    url: "",
    headers: {},
    rate,
    seconds: prepared.length / rate,
    request: (i) => prepared[i],
    ok: (status) => status === 202,
  });
  const sentAt = performance.now();
  const answered = prepared.length - result.errors;
  const { count, at } = await drain(stored, before + answered);
  return {
    rate,
    sent: prepared.length,
    answered202: answered,
    stored: count - before,
    p50: result.p50,
    p95: result.p95,
    p99: result.p99,
    errors: result.errors,
    drainMs: Math.max(0, Math.round(at - sentAt)),
  };
}

export interface InboundOptions {
  /** The server's base URL (http://127.0.0.1:port). */
  url: string;
  /** A token that may read accounts (the sender's statuses_count). */
  token: string;
  /** The local user whose inbox gets half of the deliveries. */
  username: string;
  /** Deliveries in the full-speed run. */
  count: number;
  /** Remote actors the deliveries come from, in turn (default 1). */
  senders?: number;
  concurrency: number;
  /** Offered rate and duration of the fixed-rate run. */
  rate: number;
  seconds: number;
  /** The server's CPU time so far, ms (/proc/<pid>/stat). */
  cpuMs(): number;
  log(message: string): void;
  /** BENCH_STATEMENTS=1 on PostgreSQL: counts the full-speed run's statements. */
  statements?: StatementProbe;
  /** Tokens of local accounts that follow the senders before the runs. */
  followers?: string[];
}

export interface InboundReport {
  fullSpeed: FullSpeedResult;
  fixedRate: FixedRateResult;
  /** Every note id this run sent starts with this (for an exact count in the database). */
  notePrefix: string;
  /** Notes the server reported stored, warm-up included. */
  storedTotal: number;
  /** The full-speed run's statements (BENCH_STATEMENTS=1, PostgreSQL). */
  statements?: StatementCount;
  /** Local followers of the senders, and the runs' notes missing from their home timelines. */
  followers: number;
  missingFromHomes?: number;
}

/** Looks `acct` up until the server has stored it (a warm-up delivery made it). */
async function lookUp(url: string, auth: RequestInit, acct: string): Promise<string> {
  for (let i = 0; i < 300; i++) {
    const res = await fetch(`${url}/api/v1/accounts/lookup?acct=${acct}`, auth);
    if (res.ok) return (await res.json()).id;
    await res.body?.cancel();
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the sender ${acct} was never stored`);
}

/**
 * Counts the notes stored from all of `gen`'s actors: the sum of their
 * statuses_count, 40 accounts a request (GET /api/v1/accounts?id[]=…).
 */
async function storedCounter(
  url: string,
  token: string,
  gen: InboundPeer,
): Promise<() => Promise<number>> {
  const auth = { headers: { authorization: `Bearer ${token}` } };
  const host = new URL(gen.peer.origin).host;
  const ids: string[] = [];
  for (const actor of gen.actors) {
    ids.push(await lookUp(url, auth, `${actor.slice(actor.lastIndexOf("/") + 1)}@${host}`));
  }
  const chunks: string[] = [];
  for (let i = 0; i < ids.length; i += 40) {
    chunks.push(ids.slice(i, i + 40).map((id) => `id[]=${id}`).join("&"));
  }
  return async () => {
    let n = 0;
    for (const query of chunks) {
      const res = await fetch(`${url}/api/v1/accounts?${query}`, auth);
      if (!res.ok) {
        await res.body?.cancel();
        return 0;
      }
      for (const account of await res.json()) n += Number(account.statuses_count);
    }
    return n;
  };
}

/** Warm-up, full-speed and fixed-rate runs of signed Create(Note) deliveries. */
export async function inboundScenario(o: InboundOptions): Promise<InboundReport> {
  const gen = await startInboundPeer(o.url, o.username, { senders: o.senders });
  try {
    // Warm-up: the server fetches each actor and its key once, and the
    // accounts exist afterwards to count their statuses.
    const warm = await gen.sign(Math.max(20, gen.actors.length), "warm");
    for (const { url, init } of warm) {
      const res = await fetch(url, init);
      await res.body?.cancel();
      if (res.status !== 202) throw new Error(`a warm-up delivery was answered ${res.status}`);
    }
    const stored = await storedCounter(o.url, o.token, gen);
    await drain(stored, warm.length);
    const followers = o.followers ?? [];
    if (followers.length) {
      o.log(`${followers.length} local accounts follow the sender(s)`);
      await followSenders(o.url, gen, followers);
    }
    o.log(`signing ${o.count} deliveries`);
    const signedMax = await gen.sign(o.count, "max");
    await o.statements?.reset();
    const cpuBefore = o.cpuMs();
    const full = await fullSpeed(signedMax, o.concurrency, stored);
    full.serverCpuMsPerNote = Math.round((o.cpuMs() - cpuBefore) / full.stored * 100) / 100;
    const statements = await o.statements?.read();
    if (statements) {
      o.log(
        `${(statements.total / full.stored).toFixed(1)} statements per stored note; the busiest:`,
      );
      for (const { calls, query } of statements.top) o.log(`  ${calls}  ${query}`);
    }
    const paced = Math.round(o.rate * o.seconds);
    o.log(`signing ${paced} deliveries`);
    const signed = await gen.sign(paced, "paced");
    o.log(`delivering at ${o.rate}/s`);
    const fixed = await fixedRate(signed, o.rate, stored);
    return {
      fullSpeed: full,
      fixedRate: fixed,
      notePrefix: gen.notePrefix,
      storedTotal: await stored(),
      statements,
      followers: followers.length,
      missingFromHomes: followers.length
        ? await missingFromHomes(o.url, followers, [...signedMax, ...signed].map((p) => p.note))
        : undefined,
    };
  } finally {
    await o.statements?.close();
    await gen.peer.close();
  }
}

/** Polls `check` every 50 ms until it holds (ten seconds at most). */
async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`never: ${what}`);
}

/**
 * Each of `tokens`' accounts follows each of `gen`'s actors as with a real
 * server: the follow asked through the API, the Follow the server delivers
 * answered with a signed Accept, then the relationship read until it says
 * following.
 */
async function followSenders(url: string, gen: InboundPeer, tokens: string[]): Promise<void> {
  const host = new URL(gen.peer.origin).host;
  const received: Record<string, unknown>[] = [];
  for (const actor of gen.actors) {
    gen.peer.route(`${new URL(actor).pathname}/inbox`, async (request) => {
      const body = await request.json();
      if (body.type === "Follow") received.push(body);
      return new Response(null, { status: 202 });
    });
  }
  for (const token of tokens) {
    const auth = { headers: { authorization: `Bearer ${token}` } };
    for (const actor of gen.actors) {
      const id = await lookUp(url, auth, `${actor.slice(actor.lastIndexOf("/") + 1)}@${host}`);
      const res = await fetch(`${url}/api/v1/accounts/${id}/follow`, { ...auth, method: "POST" });
      await res.body?.cancel();
      if (!res.ok) throw new Error(`a follow of ${actor} was answered ${res.status}`);
      await until(`the Follow of ${actor}`, () => Promise.resolve(received.length > 0));
      const follow = received.shift()!;
      const accepted = await gen.peer.deliver(`${url}/inbox`, {
        "@context": AS,
        id: `${actor}#accepts/${crypto.randomUUID()}`,
        type: "Accept",
        actor,
        object: follow,
      }, { keyId: `${actor}#main-key` });
      await accepted.body?.cancel();
      await until(`following ${actor}`, async () => {
        const r = await fetch(`${url}/api/v1/accounts/relationships?id[]=${id}`, auth);
        return r.ok && (await r.json())[0]?.following === true;
      });
    }
  }
}

/**
 * The notes among `notes` (in the order sent) that should be in each
 * follower's home timeline and are not, summed over the followers: the last
 * HOME_FEED_LIMIT - 100 sent (fan-out trims a feed to its newest
 * HOME_FEED_LIMIT; the full-speed run's notes are stored a little out of
 * the order they were sent in).
 */
async function missingFromHomes(url: string, tokens: string[], notes: string[]): Promise<number> {
  const expected = notes.slice(-(HOME_FEED_LIMIT - 100));
  let missing = 0;
  for (const token of tokens) {
    const auth = { headers: { authorization: `Bearer ${token}` } };
    const seen = new Set<string>();
    let page = `${url}/api/v1/timelines/home?limit=40`;
    while (seen.size < HOME_FEED_LIMIT) {
      const res = await fetch(page, auth);
      const statuses: { id: string; uri: string }[] = res.ok ? await res.json() : [];
      if (!statuses.length) break;
      for (const s of statuses) seen.add(s.uri);
      page = `${url}/api/v1/timelines/home?limit=40&max_id=${statuses.at(-1)!.id}`;
    }
    missing += expected.filter((note) => !seen.has(note)).length;
  }
  return missing;
}
