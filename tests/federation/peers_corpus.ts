/**
 * The corpus of other servers' documents (tests/federation/fixtures/peers/),
 * played against a Rookery instance by signed fake peers on loopback
 * (tests/fixtures/fake_peer.ts), and checked through the Mastodon API.
 *
 * Each family's `peer.json` holds what a server of that family publishes and
 * sends, written by us from the project's federation documentation:
 *
 * - `actor`: served at its id; its key is the fake peer's (`{{pem}}`);
 * - `objects`: served at their ids; those listed in `deliver` are sent in a
 *   `Create` (the others are fetched by reference: quoted posts, pins);
 * - `collections`: served at their ids (the featured collection);
 * - `activities`: sent as they are (a Misskey `Like`);
 * - `expect`: what the API must show (see {@link Expect}).
 *
 * Placeholders: `{{peer}}` (the peer's origin), `{{pem}}` (its public key),
 * `{{local_status}}` (a local public status, for likes).
 *
 * Every family is played twice: as written, and as a plain-context peer
 * whose every `@context` is only ActivityStreams' (the actor keeps the
 * security context its key needs), so each check also holds for peers that
 * define none of Mastodon's terms.
 */
import assert from "node:assert/strict";
import { startFakePeer } from "../fixtures/fake_peer.ts";
import { storedStatus } from "../fixtures/federation.ts";
import { callJson, ok } from "../fixtures/api.ts";
import { eventually } from "../fixtures/wait.ts";
import { startInstance, type TestInstance } from "../harness.ts";
import { createUser, type TestUser } from "../fixtures/users.ts";

const AS = "https://www.w3.org/ns/activitystreams";
const SECURITY = "https://w3id.org/security/v1";

/** What the API must show for one status (keyed by the object's path on the peer). */
export interface StatusExpect {
  language?: string | null;
  tags?: string[];
  sensitive?: boolean;
  spoiler_text?: string;
  /** A converted object's title: the content opens with it as a heading. */
  title?: string;
  /** Substrings the content must contain, and must not. */
  content_has?: string[];
  content_lacks?: string[];
  emojis?: string[];
  media?: { type?: string; blurhash?: string | null; focus?: { x: number; y: number } | null }[];
  poll?: { voters_count?: number | null; votes?: number[]; multiple?: boolean };
  /** The path of the quoted object (the quote must be recorded). */
  quote_of?: string;
  /** The status is listed by the tag timeline of this tag. */
  in_tag_timeline?: string;
  url?: string;
}

export interface Expect {
  account?: {
    locked?: boolean;
    discoverable?: boolean;
    fields?: string[];
    emojis?: string[];
    bot?: boolean;
    /** Paths of the objects pinned (the featured collection). */
    pinned?: string[];
  };
  statuses?: Record<string, StatusExpect>;
  /** Favourites the local status has after the activities. */
  local_favourites?: number;
}

interface PeerFixture {
  actor: Record<string, unknown>;
  objects?: Record<string, unknown>[];
  deliver?: string[];
  collections?: Record<string, unknown>[];
  activities?: Record<string, unknown>[];
  expect: Expect;
}

/** A family's fixture file, read as text (placeholders are filled per peer). */
export function readFamily(family: string): string {
  return Deno.readTextFileSync(new URL(`./fixtures/peers/${family}/peer.json`, import.meta.url));
}

/** Every `@context` made ActivityStreams' alone (the actor's keeps the security context). */
function plainContexts(value: unknown, actor: boolean): unknown {
  if (Array.isArray(value)) return value.map((v) => plainContexts(v, false));
  if (value === null || typeof value !== "object") return value;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    copy[key] = key === "@context" ? (actor ? [AS, SECURITY] : AS) : plainContexts(item, false);
  }
  return copy;
}

const pathOf = (id: unknown) => new URL(String(id)).pathname;

/**
 * Plays one family against `rookery` (as written, or `plain`) and checks
 * what the API shows. `viewer` reads; `localStatus` is the IRI and id of a
 * status of the viewer's, for likes.
 */
export async function playFamily(
  rookery: TestInstance,
  viewer: TestUser,
  local: { uri: string; id: string },
  family: string,
  plain: boolean,
): Promise<void> {
  const peer = await startFakePeer();
  try {
    const text = readFamily(family)
      .replaceAll("{{peer}}", peer.origin)
      .replaceAll("{{pem}}", JSON.stringify(peer.publicKeyPem).slice(1, -1))
      .replaceAll("{{local_status}}", local.uri);
    let fixture = JSON.parse(text) as PeerFixture;
    if (plain) {
      fixture = {
        ...fixture,
        actor: plainContexts(fixture.actor, true) as Record<string, unknown>,
        objects: plainContexts(fixture.objects ?? [], false) as Record<string, unknown>[],
        collections: plainContexts(fixture.collections ?? [], false) as Record<string, unknown>[],
        activities: plainContexts(fixture.activities ?? [], false) as Record<string, unknown>[],
      };
    }
    const actorId = String(fixture.actor.id);
    const keyId = String((fixture.actor.publicKey as { id: string }).id);
    peer.serve(pathOf(actorId), fixture.actor);
    // A key with an IRI of its own (GoToSocial's `/main-key`) is served as a key document.
    if (!keyId.startsWith(`${actorId}#`)) {
      peer.serve(pathOf(keyId), {
        "@context": [AS, SECURITY],
        type: "CryptographicKey",
        ...fixture.actor.publicKey as object,
      });
    }
    peer.route(`${pathOf(actorId)}/inbox`, () => new Response(null, { status: 202 }));
    for (const doc of [...fixture.objects ?? [], ...fixture.collections ?? []]) {
      peer.serve(pathOf(doc.id), doc);
    }
    const send = (request: Request) => rookery.request(request.url, request);
    const deliver = async (activity: Record<string, unknown>) => {
      const res = await peer.deliver(`${rookery.origin}/inbox`, activity, {
        keyId,
        send,
      });
      await res.body?.cancel();
      assert.equal(res.status, 202, `${family}: ${activity.type} ${activity.id} was refused`);
    };
    const objectAt = (path: string) => {
      const found = fixture.objects?.find((o) => pathOf(o.id) === path);
      assert.ok(found, `${family}: no object at ${path}`);
      return found;
    };
    for (const path of fixture.deliver ?? []) {
      const object = objectAt(path);
      await deliver({
        "@context": object["@context"],
        id: `${object.id}#create`,
        type: "Create",
        actor: actorId,
        to: object.to,
        cc: object.cc,
        object,
      });
    }
    for (const activity of fixture.activities ?? []) await deliver(activity);
    const label = `${family}${plain ? " (plain context)" : ""}`;
    await checkStatuses(rookery, viewer, fixture, peer.origin, label);
    await checkAccount(rookery, viewer, fixture, label);
    if (fixture.expect.local_favourites != null) {
      await eventually(`${label}: favourites of the local status`, async () => {
        const status = await ok(rookery, viewer, "GET", `/api/v1/statuses/${local.id}`);
        return status.favourites_count >= fixture.expect.local_favourites! || null;
      });
    }
  } finally {
    await peer.close();
  }
}

async function checkStatuses(
  rookery: TestInstance,
  viewer: TestUser,
  fixture: PeerFixture,
  origin: string,
  label: string,
) {
  for (const [path, want] of Object.entries(fixture.expect.statuses ?? {})) {
    const what = `${label} ${path}`;
    const row = await eventually(`${what} stored`, () => storedStatus(rookery, origin + path));
    const status = await ok(rookery, viewer, "GET", `/api/v1/statuses/${row.id}`);
    if ("language" in want) assert.equal(status.language, want.language, `${what}: language`);
    if (want.tags) {
      assert.deepEqual(
        status.tags.map((t: { name: string }) => t.name).sort(),
        want.tags.map((t) => t.toLowerCase()).sort(),
        `${what}: tags`,
      );
    }
    if (want.sensitive != null) {
      assert.equal(status.sensitive, want.sensitive, `${what}: sensitive`);
    }
    if (want.spoiler_text != null) {
      assert.equal(status.spoiler_text, want.spoiler_text, `${what}: spoiler_text`);
    }
    if (want.title != null) {
      assert.ok(
        status.content.startsWith(`<p><strong>${want.title}</strong></p>`),
        `${what}: the title as a heading: ${status.content}`,
      );
    }
    for (const s of want.content_has ?? []) assert.ok(status.content.includes(s), `${what}: ${s}`);
    for (const s of want.content_lacks ?? []) {
      assert.ok(!status.content.includes(s), `${what}: has ${s}: ${status.content}`);
    }
    if (want.emojis) {
      assert.deepEqual(
        status.emojis.map((e: { shortcode: string }) => e.shortcode).sort(),
        [...want.emojis].sort(),
        `${what}: emojis`,
      );
    }
    if (want.media) {
      assert.equal(status.media_attachments.length, want.media.length, `${what}: media`);
      want.media.forEach((m, i) => {
        const got = status.media_attachments[i];
        if (m.type) assert.equal(got.type, m.type, `${what}: media type`);
        if ("blurhash" in m) assert.equal(got.blurhash, m.blurhash, `${what}: blurhash`);
        if ("focus" in m) assert.deepEqual(got.meta?.focus ?? null, m.focus, `${what}: focus`);
      });
    }
    if (want.poll) {
      assert.ok(status.poll, `${what}: poll`);
      if ("voters_count" in want.poll) {
        assert.equal(status.poll.voters_count, want.poll.voters_count, `${what}: voters`);
      }
      if (want.poll.votes) {
        assert.deepEqual(
          status.poll.options.map((o: { votes_count: number }) => o.votes_count),
          want.poll.votes,
          `${what}: votes`,
        );
      }
      if (want.poll.multiple != null) assert.equal(status.poll.multiple, want.poll.multiple);
    }
    if (want.quote_of) {
      const quoted = await eventually(
        `${what}: quoted post stored`,
        () => storedStatus(rookery, origin + want.quote_of),
      );
      assert.ok(status.quote, `${what}: quote recorded`);
      const quotedId = status.quote.quoted_status?.id ?? status.quote.quoted_status_id;
      if (quotedId) assert.equal(quotedId, quoted.id, `${what}: quoted status`);
    }
    if (want.url) assert.equal(status.url, want.url.replace("{{peer}}", origin), `${what}: url`);
    if (want.in_tag_timeline) {
      const tag = encodeURIComponent(want.in_tag_timeline);
      const timeline = await ok(rookery, viewer, "GET", `/api/v1/timelines/tag/${tag}`);
      assert.ok(
        timeline.some((s: { id: string }) => s.id === row.id),
        `${what}: in the #${want.in_tag_timeline} timeline`,
      );
    }
  }
}

async function checkAccount(
  rookery: TestInstance,
  viewer: TestUser,
  fixture: PeerFixture,
  label: string,
) {
  const want = fixture.expect.account;
  if (!want) return;
  const id = new URL(String(fixture.actor.id));
  const acct = `${fixture.actor.preferredUsername}@${id.host}`;
  const res = await callJson(rookery, viewer, "GET", `/api/v1/accounts/lookup?acct=${acct}`);
  assert.equal(res.status, 200, `${label}: lookup of ${acct}`);
  const account = res.body;
  if (want.locked != null) assert.equal(account.locked, want.locked, `${label}: locked`);
  if (want.discoverable != null) {
    assert.equal(account.discoverable, want.discoverable, `${label}: discoverable`);
  }
  if (want.bot != null) assert.equal(account.bot, want.bot, `${label}: bot`);
  if (want.fields) {
    assert.deepEqual(
      account.fields.map((f: { name: string }) => f.name),
      want.fields,
      `${label}: fields`,
    );
  }
  if (want.emojis) {
    assert.deepEqual(
      account.emojis.map((e: { shortcode: string }) => e.shortcode).sort(),
      [...want.emojis].sort(),
      `${label}: profile emojis`,
    );
  }
  if (want.pinned) {
    const expected = want.pinned.map((p) => id.origin + p).sort();
    await eventually(`${label}: pinned posts`, async () => {
      const pinned = await ok(
        rookery,
        viewer,
        "GET",
        `/api/v1/accounts/${account.id}/statuses?pinned=true`,
      );
      const uris = pinned.map((s: { uri: string }) => s.uri).sort();
      return JSON.stringify(uris) === JSON.stringify(expected) || null;
    });
  }
}

/**
 * Plays each family (or those in DIALECT_FAMILIES) against one instance, as
 * written and again with only the ActivityStreams context, one step each.
 */
export async function playFamilies(t: Deno.TestContext, families: string[]): Promise<void> {
  const chosen = Deno.env.get("DIALECT_FAMILIES")?.split(",") ?? families;
  const rookery = await startInstance({
    env: { LOG_LEVEL: Deno.env.get("DIALECT_LOG") ?? "error" },
  });
  try {
    const viewer = await createUser(rookery, "viewer");
    const status = await ok(rookery, viewer, "POST", "/api/v1/statuses", {
      status: "Something to like",
      visibility: "public",
    });
    const local = { uri: status.uri, id: status.id };
    for (const family of chosen) {
      for (const plain of [false, true]) {
        await t.step(`${family}${plain ? ", plain context" : ""}`, async () => {
          await playFamily(rookery, viewer, local, family, plain);
        });
      }
    }
  } finally {
    await rookery.close({ destroy: true });
  }
}
