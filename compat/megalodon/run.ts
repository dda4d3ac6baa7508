/**
 * megalodon (the client library of Whalebird and others), its Mastodon
 * driver, against a Rookery: what a bot and a user do, one line per action,
 * "ok" or "FAILED: why". compat/megalodon/run.sh runs it against a fresh
 * instance behind nginx; against another Rookery:
 *
 *   ROOKERY_URL=https://social.example ROOKERY_TOKEN_ALICE=… ROOKERY_TOKEN_BOB=… \
 *   ROOKERY_TOKEN_CAROL=… deno run -A --no-lock compat/megalodon/run.ts
 *
 * The three tokens are of three accounts that do not follow one another yet
 * (scopes read write follow). Routes megalodon has no method for (grouped
 * notifications, filters v2, familiar followers) go through its own HTTP
 * client, as an app built on it does. Exit status 1 when an action failed.
 */
// Pinned here, not in deno.json: megalodon is this script's, not one of Rookery's dependencies.
// deno-lint-ignore no-import-prefix
import generator, { detector, type Entity, type MegalodonInterface } from "npm:megalodon@10.3.0";
import { Buffer } from "node:buffer";
import { createReadStream, type ReadStream } from "node:fs";

const URL_ = Deno.env.get("ROOKERY_URL")!;
const results: { name: string; why: string | null }[] = [];

function client(who: string): MegalodonInterface {
  return generator("mastodon", URL_, Deno.env.get(`ROOKERY_TOKEN_${who.toUpperCase()}`)!);
}

/** The library's own HTTP client (its Mastodon driver keeps it as `client`). */
function http(api: MegalodonInterface): {
  get(path: string, params?: object): Promise<{ data: any }>;
  post(path: string, params?: object): Promise<{ data: any }>;
  del(path: string, params?: object): Promise<{ data: any }>;
} {
  return (api as unknown as { client: any }).client;
}

function expect(condition: unknown, why: string): void {
  if (!condition) throw new Error(why);
}

async function action(name: string, fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
    results.push({ name, why: null });
    console.log(`ok      ${name}`);
  } catch (error) {
    const e = error as { message?: string; response?: { status: number; data: unknown } };
    const detail = e.response ? ` (${e.response.status} ${JSON.stringify(e.response.data)})` : "";
    const why = `${e.message ?? error}${detail}`.replaceAll("\n", " ").slice(0, 300);
    results.push({ name, why });
    console.log(`FAILED  ${name}: ${why}`);
    if (Deno.env.get("VERBOSE")) console.error(error);
  }
}

/** A 1×1 PNG. */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC",
  "base64",
);

/**
 * A file as megalodon's users pass one: a read stream. Its name has no
 * extension, so the `form-data` package declares it application/octet-stream.
 * (A stream without a path has no filename: Rack reads such a part as a
 * string, and Rails refuses its bytes, as Rookery does.)
 */
function upload(): ReadStream {
  const path = `${Deno.makeTempDirSync()}/picture`;
  Deno.writeFileSync(path, PNG);
  return createReadStream(path);
}

interface World {
  alice: MegalodonInterface;
  bob: MegalodonInterface;
  carol: MegalodonInterface;
  me: Record<string, Entity.Account>;
  posts: Record<string, Entity.Status>;
}

async function posting(w: World): Promise<void> {
  const { alice, bob } = w;
  await action("post text (visibility, language)", async () => {
    const s = (await alice.postStatus("Hello from megalodon #rookery", {
      visibility: "public",
      language: "en",
    })).data as Entity.Status;
    expect(s.language === "en" && s.tags[0]?.name === "rookery", "language and tag");
    w.posts.text = s;
  });
  await action("post with a content warning, unlisted", async () => {
    const s = (await alice.postStatus("Behind the warning", {
      spoiler_text: "CW: test",
      visibility: "unlisted",
    })).data as Entity.Status;
    expect(s.spoiler_text === "CW: test" && s.visibility === "unlisted", s.visibility);
  });
  await action("media upload (a file of no declared type), with alt text", async () => {
    const m = (await alice.uploadMedia(upload(), { description: "A dot" })).data;
    expect(m.type === "image" && m.description === "A dot", `${m.type} ${m.description}`);
    const s = (await alice.postStatus("A picture", { media_ids: [m.id], sensitive: true }))
      .data as Entity.Status;
    expect(s.media_attachments.length === 1, "attached");
    w.posts.media = s;
  });
  await action("post a poll", async () => {
    const s = (await alice.postStatus("Polls?", {
      poll: { options: ["yes", "no"], expires_in: 3600, multiple: false },
    })).data as Entity.Status;
    expect(s.poll?.options.length === 2, "two options");
    w.posts.poll = s;
  });
  await action("vote in the poll", async () => {
    const p = (await bob.votePoll(w.posts.poll.poll!.id, [1], w.posts.poll.id)).data;
    expect(p.voted && (p as { own_votes?: number[] }).own_votes?.[0] === 1, JSON.stringify(p));
  });
  await action("reply with a mention", async () => {
    const r = (await bob.postStatus(`@alice Nice`, { in_reply_to_id: w.posts.poll.id }))
      .data as Entity.Status;
    expect(r.in_reply_to_id === w.posts.poll.id && r.mentions.length === 1, "reply, mention");
  });
  await action("edit", async () => {
    const s = (await alice.editStatus(w.posts.text.id, { status: "Edited #rookery" })).data;
    expect(s.content.includes("Edited") && s.edited_at, "edited");
  });
  await action("delete and redraft", async () => {
    const gone = (await alice.deleteStatus(w.posts.media.id)).data as Entity.Status;
    expect(gone.media_attachments?.length === 1, "the deleted status comes back");
    const again = (await alice.postStatus("Again", {
      media_ids: gone.media_attachments.map((m) => m.id),
    })).data as Entity.Status;
    expect(again.media_attachments.length === 1, "the same media");
    w.posts.media = again;
  });
}

async function interacting(w: World): Promise<void> {
  const { alice, bob, carol } = w;
  await action("favourite, boost, bookmark", async () => {
    const id = w.posts.media.id;
    expect((await bob.favouriteStatus(id)).data.favourited, "favourited");
    expect((await bob.reblogStatus(id)).data.reblogged, "reblogged");
    expect((await bob.bookmarkStatus(id)).data.bookmarked, "bookmarked");
    expect((await bob.getBookmarks()).data.some((s) => s.id === id), "in bookmarks");
  });
  await action("pin and unpin", async () => {
    expect((await alice.pinStatus(w.posts.poll.id)).data.pinned, "pinned");
    expect((await alice.unpinStatus(w.posts.poll.id)).data.pinned === false, "unpinned");
  });
  await action("follow, and see the followee's posts in home", async () => {
    expect((await carol.followAccount(w.me.alice.id)).data.following, "following");
    const home = (await carol.getHomeTimeline({ limit: 40 })).data;
    expect(home.some((s) => s.id === w.posts.poll.id), "alice's earlier posts in carol's home");
  });
  await action("notifications", async () => {
    const types = new Set((await alice.getNotifications({ limit: 40 })).data.map((n) => n.type));
    for (const kind of ["favourite", "reblog", "mention", "follow"]) {
      expect(types.has(kind), `no ${kind} among ${[...types]}`);
    }
  });
  await action("notifications v2 (grouped)", async () => {
    const { data } = await http(alice).get("/api/v2/notifications", { limit: 10 });
    expect(data.notification_groups.length && data.accounts.length, "groups and accounts");
  });
  await action("unfollow", async () => {
    expect((await carol.unfollowAccount(w.me.alice.id)).data.following === false, "unfollowed");
  });
  await action("markers", async () => {
    const top = (await alice.getNotifications({ limit: 1 })).data[0];
    await alice.saveMarkers({ notifications: { last_read_id: top.id } });
    const got = (await alice.getMarkers(["notifications"])).data as Entity.Marker;
    expect(got.notifications?.last_read_id === top.id, JSON.stringify(got));
  });
  await action("search with resolve", async () => {
    const domain = new URL(URL_).host;
    const found = (await carol.search(`@bob@${domain}`, { resolve: true })).data;
    expect(found.accounts.map((a) => a.id).join() === w.me.bob.id, "bob by handle");
    const byUrl = (await carol.search(w.posts.poll.url!, { resolve: true, type: "statuses" }))
      .data;
    expect(byUrl.statuses[0]?.id === w.posts.poll.id, "the status by URL");
  });
}

async function organising(w: World): Promise<void> {
  const { alice, bob, carol } = w;
  await action("lists", async () => {
    await alice.followAccount(w.me.bob.id);
    const list = (await alice.createList("Friends")).data;
    await alice.addAccountsToList(list.id, [w.me.bob.id]);
    const members = (await alice.getAccountsInList(list.id)).data;
    expect(members.map((a) => a.id).join() === w.me.bob.id, "bob in the list");
    await bob.postStatus("For the list");
    expect((await alice.getListTimeline(list.id)).data.length, "the list timeline");
  });
  await action("filters v1", async () => {
    const f = (await alice.createFilter("spoiler", ["home"], { whole_word: true })).data;
    expect(f.phrase === "spoiler", "the phrase");
    await alice.deleteFilter(f.id);
  });
  await action("filters v2", async () => {
    const { data } = await http(alice).post("/api/v2/filters", {
      title: "No spoilers",
      context: ["home"],
      keywords_attributes: [{ keyword: "spoiler", whole_word: true }],
    });
    expect(data.keywords[0].keyword === "spoiler", "the keyword");
    await http(alice).del(`/api/v2/filters/${data.id}`);
  });
  await action("familiar followers", async () => {
    await carol.followAccount(w.me.alice.id);
    const { data } = await http(carol).get("/api/v1/accounts/familiar_followers", {
      id: [w.me.bob.id],
    });
    expect(data[0].accounts[0]?.id === w.me.alice.id, JSON.stringify(data));
  });
  await action("account relationships", async () => {
    const rels = (await carol.getRelationships([w.me.alice.id, w.me.bob.id])).data;
    expect(rels.map((r) => r.following).join() === "true,false", JSON.stringify(rels));
  });
  await action("profile edit", async () => {
    const acct = (await alice.updateCredentials({
      display_name: "Alice M.",
      note: "Hello",
      fields_attributes: [{ name: "Site", value: "https://example.com" }],
    })).data;
    expect(acct.display_name === "Alice M." && acct.fields[0]?.name === "Site", "fields");
  });
  await action("block, find the blocked account by search, unblock", async () => {
    expect((await alice.blockAccount(w.me.carol.id)).data.blocking, "blocking");
    expect((await alice.getBlocks()).data.some((a) => a.id === w.me.carol.id), "in blocks");
    const found = (await alice.searchAccount("carol")).data;
    expect(found.some((a) => a.id === w.me.carol.id), "carol found by search");
    expect((await alice.unblockAccount(w.me.carol.id)).data.blocking === false, "unblocked");
  });
}

async function streaming(w: World): Promise<void> {
  await action("streaming (WebSocket, user): a live update arrives", async () => {
    const stream = await w.alice.userStreaming();
    try {
      const connected = new Promise<void>((resolve) => stream.once("connect", () => resolve()));
      const arrived = new Promise<Entity.Status>((resolve, reject) => {
        stream.on("update", (s: Entity.Status) => s.content.includes("live") && resolve(s));
        stream.on("error", (e: Error) => reject(e));
      });
      const timeout = new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error("no update in 20 s")), 20_000)
      );
      await Promise.race([connected, timeout]);
      // The subscription is read a moment after the socket opens: post until one arrives.
      const poster = setInterval(() => w.bob.postStatus("A live update").catch(() => {}), 2000);
      try {
        await w.bob.postStatus("A live update");
        await Promise.race([arrived, timeout]);
      } finally {
        clearInterval(poster);
      }
    } finally {
      stream.stop();
    }
  });
}

async function main(): Promise<number> {
  const w: World = {
    alice: client("alice"),
    bob: client("bob"),
    carol: client("carol"),
    me: {},
    posts: {},
  };
  await action("detect the server type from NodeInfo (Whalebird's first step)", async () => {
    const sns = await detector(URL_);
    expect(sns === "mastodon", `detected ${sns}`);
  });
  await action("verify credentials", async () => {
    for (const name of ["alice", "bob", "carol"] as const) {
      w.me[name] = (await w[name].verifyAccountCredentials()).data;
      expect(w.me[name].username === name, w.me[name].username);
    }
  });
  await posting(w);
  await interacting(w);
  await organising(w);
  await streaming(w);
  const failed = results.filter((r) => r.why).length;
  console.log(`${results.length - failed} passed, ${failed} failed`);
  return failed ? 1 : 0;
}

Deno.exit(await main());
