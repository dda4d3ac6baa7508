/**
 * The fuzzed server: a real Rookery instance listening on loopback (the test
 * harness's startInstance, on PGlite or on the PostgreSQL of
 * TEST_DATABASE_URL), a fuzz user whose token has every scope, two more local
 * users (one signs inbox requests, one is "someone else"), and objects of the
 * fuzz user's own whose ids go into the paths. The objects are made again
 * now and then, since the fuzzer deletes some of them.
 */
import { ALL_SCOPES } from "../model/scopes.ts";
import { createAnnouncement } from "../actors/announcements/manage.ts";
import { startInstance, type TestInstance } from "../tests/harness.ts";
import { createUser, type TestUser } from "../tests/fixtures/users.ts";
import { localSigner, type Signer } from "./signing.ts";
import type { GenContext } from "./values.ts";

/** A running instance with the fuzz user, its objects and a signer. */
export interface FuzzTarget {
  instance: TestInstance;
  user: TestUser;
  other: TestUser;
  signer: Signer;
  /** Real ids and usernames for the generators; refreshed by {@link refreshObjects}. */
  gen: GenContext;
  close(): Promise<void>;
}

const PNG_1X1 = Uint8Array.from(
  atob(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  ),
  (c) => c.charCodeAt(0),
);

async function apiCall(
  instance: TestInstance,
  token: string,
  method: string,
  path: string,
  body?: Record<string, unknown> | FormData,
): Promise<any> {
  const headers: Record<string, string> = { Authorization: `Bearer ${token}` };
  if (body && !(body instanceof FormData)) headers["Content-Type"] = "application/json";
  const res = await instance.request(path, {
    method,
    headers,
    body: body instanceof FormData ? body : body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  // The fuzzer may have blocked, muted or filled a cap on the way: a fixture
  // that cannot be made again is skipped, the old ids stay.
  if (res.status >= 300) return null;
  return JSON.parse(text);
}

/** Starts the instance and makes the users and their objects. */
export async function startTarget(): Promise<FuzzTarget> {
  const instance = await startInstance({ listen: true });
  const user = await createUser(instance, "fuzz", { scopes: [...ALL_SCOPES] });
  const other = await createUser(instance, "fuzzother", { scopes: [...ALL_SCOPES] });
  const signerUser = await createUser(instance, "fuzzsigner");
  const signer = await localSigner(
    instance.rookery.ctx,
    instance.origin,
    signerUser.id,
    signerUser.username,
  );
  const gen: GenContext = {
    ids: {},
    origin: instance.origin,
    usernames: [user.username, other.username, signerUser.username],
  };
  const target: FuzzTarget = {
    instance,
    user,
    other,
    signer,
    gen,
    close: () => instance.close({ destroy: true }),
  };
  // A new server makes its instance actor's RSA keys in the background:
  // seconds of CPU that the first profile update waited for (and counted as a
  // slow answer). Serving the actor waits for them, as bench/run.ts does.
  // Each user's key pair is made the first time its actor is served (or its
  // inbox gets a delivery): RSA key generation, once per user.
  for (const path of ["/actor", ...[user, other].map((u) => `/users/${u.username}`)]) {
    const actor = await instance.request(path, {
      headers: { accept: "application/activity+json" },
    });
    await actor.body?.cancel();
  }
  // The first Update of a profile after start takes seconds (Fedify's first
  // sendActivity, federation/outbox/accounts.ts), whatever the body: a cold
  // start, paid here once rather than blamed on the input that meets it.
  await apiCall(instance, user.token, "PATCH", "/api/v1/accounts/update_credentials", {
    display_name: "fuzz",
  });
  // The first signed delivery fetches and parses the signer's key (then
  // cached): also a cold start, paid once here.
  const warmBody = new TextEncoder().encode(JSON.stringify({
    "@context": "https://www.w3.org/ns/activitystreams",
    id: `${signer.actor}#warm-up`,
    type: "Like",
    actor: signer.actor,
    object: `${instance.origin}/users/${other.username}`,
  }));
  const warm = await signer.sign(
    new Request(`${instance.origin}/inbox`, {
      method: "POST",
      headers: { "Content-Type": "application/activity+json" },
      body: warmBody,
    }),
    warmBody,
    false,
  );
  await (await fetch(warm)).body?.cancel();
  gen.ids.account = [user.id, other.id, signerUser.id];
  gen.ids.username = [...gen.usernames];
  await refreshObjects(target);
  return target;
}

function keep(ids: Record<string, string[]>, kind: string, id: string | undefined | null) {
  if (!id) return;
  ids[kind] = [id, ...(ids[kind] ?? []).filter((x) => x !== id)].slice(0, 3);
}

/**
 * Makes a fresh set of the fuzz user's objects (statuses, a poll, a list,
 * media, a scheduled status, a featured and a followed tag) and records the
 * ids of notifications and conversations it has.
 */
export async function refreshObjects(target: FuzzTarget): Promise<void> {
  const { instance, user, other, gen } = target;
  const t = user.token;
  const ids = gen.ids;
  const status = await apiCall(instance, t, "POST", "/api/v1/statuses", {
    status: "fuzz target #fuzz",
  });
  keep(ids, "status", status?.id);
  const poll = await apiCall(instance, other.token, "POST", "/api/v1/statuses", {
    status: "a poll",
    poll: { options: ["a", "b", "c"], expires_in: 86400, multiple: true },
  });
  keep(ids, "status", poll?.id);
  keep(ids, "poll", poll?.poll?.id);
  const mention = await apiCall(instance, other.token, "POST", "/api/v1/statuses", {
    status: `@${user.username} hello`,
    visibility: "direct",
  });
  keep(ids, "status", mention?.id);
  const list = await apiCall(instance, t, "POST", "/api/v1/lists", { title: "fuzz" });
  keep(ids, "list", list?.id);
  const filter = await apiCall(instance, t, "POST", "/api/v2/filters", {
    title: "fuzz",
    context: ["home"],
    keywords_attributes: [{ keyword: "fuzz" }],
  });
  keep(ids, "filter", filter?.id);
  keep(ids, "filter_keyword", filter?.keywords?.[0]?.id);
  const filterStatus = await apiCall(
    instance,
    t,
    "POST",
    `/api/v2/filters/${filter?.id}/statuses`,
    {
      status_id: poll?.id,
    },
  );
  keep(ids, "filter_status", filterStatus?.id);
  const form = new FormData();
  form.set("file", new File([PNG_1X1], "a.png", { type: "image/png" }));
  const media = await apiCall(instance, t, "POST", "/api/v1/media", form);
  keep(ids, "media", media?.id);
  const scheduled = await apiCall(instance, t, "POST", "/api/v1/statuses", {
    status: "later",
    scheduled_at: new Date(Date.now() + 7 * 86400_000).toISOString(),
  });
  keep(ids, "scheduled", scheduled?.id);
  const featured = await apiCall(instance, t, "POST", "/api/v1/featured_tags", {
    name: `fuzz${Date.now() % 100000}`,
  });
  keep(ids, "featured_tag", featured?.id);
  keep(ids, "tag", featured?.name ?? "fuzz");
  keep(ids, "tag", "fuzz");
  const notifications = await apiCall(instance, t, "GET", "/api/v1/notifications?limit=3");
  for (const n of notifications ?? []) keep(ids, "notification", n.id);
  const groups = await apiCall(instance, t, "GET", "/api/v2/notifications?limit=3");
  for (const g of groups?.notification_groups ?? []) keep(ids, "group_key", g.group_key);
  const conversations = await apiCall(instance, t, "GET", "/api/v1/conversations?limit=3");
  for (const c of conversations ?? []) keep(ids, "conversation", c.id);
  keep(ids, "notification_request", other.id);
  // Announcements are written by administrators, not through the API.
  const { database, config } = instance.rookery.ctx;
  const announcement = await createAnnouncement(database.db, config, { text: "fuzz news" });
  keep(ids, "announcement", announcement.id);
  keep(ids, "reaction", "👍");
}
