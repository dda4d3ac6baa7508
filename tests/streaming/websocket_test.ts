/**
 * The multiplexed WebSocket (GET /api/v1/streaming) with a real client:
 * the user stream carries what enters the home feed, rendered as the REST
 * API renders it for that viewer (notifications, deletes, edits too);
 * filters; subscribe/unsubscribe over one socket; hashtag, list and public
 * streams with their rules (blocks and mutes: nothing arrives); refusals
 * before and after the upgrade; a revoked token's socket closed.
 */
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { POSTGRES_ONLY, startInstance, test } from "../harness.ts";
import { eventually } from "../fixtures/wait.ts";
import postgres from "postgres";
import { callJson, ok, postStatus } from "../fixtures/api.ts";
import { createToken, createUser } from "../fixtures/users.ts";
import { hashSecret } from "../../actors/oauth/tokens.ts";
import { insertRemoteAccount } from "../discovery/helpers.ts";
import { remoteStatus, WsClient } from "./helpers.ts";

test("WebSocket streams", async (t) => {
  const instance = await startInstance({ listen: true });
  const open: WsClient[] = [];
  const connect = async (path: string, protocols?: string[]) => {
    const ws = await WsClient.open(instance, path, protocols);
    open.push(ws);
    return ws;
  };
  try {
    const alice = await createUser(instance, "alice");
    const bob = await createUser(instance, "bob");
    await ok(instance, bob, "POST", `/api/v1/accounts/${alice.id}/follow`);
    const bobWs = await connect(`/api/v1/streaming?stream=user&access_token=${bob.token}`);

    await t.step(
      "a followee's post arrives on user, as REST shows it",
      async () => {
        const status = await postStatus(instance, alice, "Hello followers");
        const frame = await bobWs.next("update", "user");
        assert.deepEqual(frame.stream, ["user"]);
        const rest = await ok(instance, bob, "GET", `/api/v1/statuses/${status.id}`);
        assert.deepEqual(JSON.parse(frame.payload!), rest);
        // The author's own post enters their home feed too; a stranger's does not.
        const carol = await createUser(instance, "carol0");
        const carolWs = await connect(`/api/v1/streaming?stream=user&access_token=${carol.token}`);
        await postStatus(instance, alice, "Not for carol");
        await bobWs.next("update", "user");
        const own = await postStatus(instance, carol, "Carol's own");
        await carolWs.nothingBefore("update", { event: "update", id: own.id, stream: "user" });
      },
    );

    await t.step("the viewer's own flags are in the payload (a boost of a favourite)", async () => {
      bobWs.clear();
      const ivan = await createUser(instance, "ivan");
      const status = await postStatus(instance, ivan, "Ivan writes");
      await ok(instance, bob, "POST", `/api/v1/statuses/${status.id}/favourite`);
      await ok(instance, bob, "POST", `/api/v1/statuses/${status.id}/bookmark`);
      await ok(instance, bob, "POST", `/api/v1/statuses/${status.id}/mute`);
      await ok(instance, alice, "POST", `/api/v1/statuses/${status.id}/reblog`);
      const frame = await bobWs.next("update", "user");
      const payload = JSON.parse(frame.payload!);
      assert.equal(payload.reblog.id, status.id);
      assert.equal(payload.reblog.favourited, true);
      assert.equal(payload.reblog.bookmarked, true);
      assert.equal(payload.reblog.muted, true);
      const rest = await ok(instance, bob, "GET", `/api/v1/statuses/${payload.id}`);
      assert.deepEqual(payload, rest);
    });

    // Followers share one rendering unless what they see differs: a policy
    // naming one of them by IRI makes his view his own.
    await t.step("a reply policy naming one follower: only his payload says me", async () => {
      bobWs.clear();
      const dan = await createUser(instance, "dan");
      await ok(instance, dan, "POST", `/api/v1/accounts/${alice.id}/follow`);
      const danWs = await connect(`/api/v1/streaming?stream=user&access_token=${dan.token}`);
      const [{ uri }] = await instance.rookery.ctx.database.rows<{ uri: string }>(
        sql`SELECT uri FROM accounts WHERE id = ${bob.id}::bigint`,
      );
      const policy = { can_reply: { automatic_approval: [uri], manual_approval: [] } };
      const status = await postStatus(instance, alice, "Bob may answer", {
        interaction_policy: policy,
      });
      const forBob = JSON.parse((await bobWs.next("update", "user")).payload!);
      const forDan = JSON.parse((await danWs.next("update", "user")).payload!);
      assert.equal(forBob.id, status.id);
      assert.ok(forBob.interaction_policy.can_reply.automatic_approval.includes("me"));
      assert.ok(!forDan.interaction_policy.can_reply.automatic_approval.includes("me"));
      assert.deepEqual(forBob, await ok(instance, bob, "GET", `/api/v1/statuses/${status.id}`));
      assert.deepEqual(forDan, await ok(instance, dan, "GET", `/api/v1/statuses/${status.id}`));
    });

    await t.step("a notification on user:notification and on user", async () => {
      bobWs.clear();
      const notes = await connect(
        `/api/v1/streaming?stream=user:notification&access_token=${bob.token}`,
      );
      const status = await postStatus(instance, bob, "Favourite me");
      await ok(instance, alice, "POST", `/api/v1/statuses/${status.id}/favourite`);
      // Bob's post came first: had its update been sent here, it would be before.
      const frame = await notes.nothingBefore("update", {
        event: "notification",
        stream: "user:notification",
      });
      const payload = JSON.parse(frame.payload!);
      assert.equal(payload.type, "favourite");
      assert.equal(payload.account.id, alice.id);
      assert.equal(payload.status.id, status.id);
      const rest = await ok(instance, bob, "GET", `/api/v1/notifications/${payload.id}`);
      assert.deepEqual(payload, rest);
      const onUser = await bobWs.next("notification", "user");
      assert.equal(JSON.parse(onUser.payload!).id, payload.id);
    });

    await t.step("a read:statuses token's user stream carries no notifications", async () => {
      const token = await createToken(instance, bob.userId, ["read:statuses"]);
      const ws = await connect(`/api/v1/streaming?stream=user&access_token=${token}`);
      const status = await postStatus(instance, bob, "Boost me");
      await ws.next("update", "user");
      await ok(instance, alice, "POST", `/api/v1/statuses/${status.id}/favourite`);
      await bobWs.next("notification", "user");
      const later = await postStatus(instance, bob, "After the favourite");
      await ws.nothingBefore("notification", { event: "update", id: later.id, stream: "user" });
    });

    await t.step("an edit arrives as status.update, a delete as the id", async () => {
      bobWs.clear();
      const status = await postStatus(instance, alice, "Frist post");
      await bobWs.next("update", "user");
      await ok(instance, alice, "PUT", `/api/v1/statuses/${status.id}`, { status: "First post" });
      const edited = await bobWs.next("status.update", "user");
      const payload = JSON.parse(edited.payload!);
      assert.equal(payload.id, status.id);
      assert.match(payload.content, /First post/);
      assert.ok(payload.edited_at);
      assert.deepEqual(payload, await ok(instance, bob, "GET", `/api/v1/statuses/${status.id}`));
      await ok(instance, alice, "DELETE", `/api/v1/statuses/${status.id}`);
      const deleted = await bobWs.next("delete", "user");
      assert.equal(deleted.payload, status.id);
    });

    await t.step("filters: hide drops the status, warn marks it filtered", async () => {
      bobWs.clear();
      const hide = await ok(instance, bob, "POST", "/api/v2/filters", {
        title: "Spoilers",
        context: ["home"],
        filter_action: "hide",
        keywords_attributes: [{ keyword: "spoiler" }],
      });
      await ok(instance, bob, "POST", "/api/v2/filters", {
        title: "Weather",
        context: ["home"],
        filter_action: "warn",
        keywords_attributes: [{ keyword: "rain" }],
      });
      // Each change tells the user stream (Mastodon's filters_changed, no payload).
      const changed = await bobWs.next("filters_changed", "user");
      assert.equal(changed.payload, undefined);
      await postStatus(instance, alice, "A spoiler ahead");
      const warned = await postStatus(instance, alice, "More rain today");
      const frame = await bobWs.nothingBefore("update", {
        event: "update",
        id: warned.id,
        stream: "user",
      });
      const payload = JSON.parse(frame.payload!);
      assert.equal(payload.filtered[0].filter.title, "Weather");
      await ok(instance, bob, "DELETE", `/api/v2/filters/${hide.id}`);
    });

    await t.step("subscribe and unsubscribe a hashtag over one socket", async () => {
      const dave = await createUser(instance, "dave");
      const ws = await connect(`/api/v1/streaming?access_token=${dave.token}`);
      ws.send({ type: "subscribe", stream: "hashtag", tag: "Rookery" });
      ws.send({ type: "subscribe", stream: "hashtag:local", tag: "rookery" });
      await ws.sync();
      const tagged = await postStatus(instance, alice, "Hello #rookery");
      const one = await ws.next("update", "hashtag");
      assert.deepEqual(one.stream, ["hashtag", "Rookery"]);
      assert.equal(JSON.parse(one.payload!).id, tagged.id);
      const local = await ws.next("update", "hashtag:local");
      assert.deepEqual(local.stream, ["hashtag:local", "rookery"]);
      // Unlisted statuses and other tags stay out; a reply keeps its tag.
      await postStatus(instance, alice, "Quiet #rookery", { visibility: "unlisted" });
      await postStatus(instance, alice, "Other #topic");
      const shown = await postStatus(instance, alice, "Shown #rookery");
      await ws.nothingBefore("update", { event: "update", id: shown.id, stream: "hashtag" });
      await ws.next("update", "hashtag:local");
      ws.send({ type: "unsubscribe", stream: "hashtag", tag: "ROOKERY" });
      ws.send({ type: "unsubscribe", stream: "hashtag:local", tag: "rookery" });
      // Another tag stays subscribed, for the marker.
      ws.send({ type: "subscribe", stream: "hashtag", tag: "marker" });
      await ws.sync();
      await postStatus(instance, alice, "Again #rookery");
      const marker = await postStatus(instance, alice, "Then #marker");
      await ws.nothingBefore("update", { event: "update", id: marker.id, stream: "hashtag" });
    });

    await t.step("subscribe and unsubscribe user over one socket of two", async () => {
      const frank = await createUser(instance, "frank2");
      await ok(instance, frank, "POST", `/api/v1/accounts/${alice.id}/follow`);
      const ws = await connect(`/api/v1/streaming?access_token=${frank.token}`);
      const other = await connect(`/api/v1/streaming?stream=user&access_token=${frank.token}`);
      ws.send({ type: "subscribe", stream: "user" });
      await ws.sync();
      const first = await postStatus(instance, alice, "For frank's two sockets");
      assert.equal(JSON.parse((await ws.next("update", "user")).payload!).id, first.id);
      assert.equal(JSON.parse((await other.next("update", "user")).payload!).id, first.id);
      // Only this socket leaves user: the account's other socket still gets home.
      ws.send({ type: "unsubscribe", stream: "user" });
      ws.send({ type: "subscribe", stream: "hashtag", tag: "frankmarker" });
      await ws.sync();
      const second = await postStatus(instance, alice, "Only the other socket");
      const marker = await postStatus(instance, alice, "Then #frankmarker");
      await ws.nothingBefore("update", { event: "update", id: marker.id, stream: "hashtag" });
      assert.equal(JSON.parse((await other.next("update", "user")).payload!).id, second.id);
      // Subscribed again, it gets home again (after the replay of what it
      // missed since it opened: the two posts above).
      ws.send({ type: "subscribe", stream: "user" });
      await ws.sync();
      const third = await postStatus(instance, alice, "Back for both");
      const seen: string[] = [];
      while (seen.at(-1) !== third.id) {
        seen.push(JSON.parse((await ws.next("update", "user")).payload!).id);
      }
      assert.deepEqual(seen, [second.id, marker.id, third.id]);
    });

    await t.step("a list stream, and someone else's list refused", async () => {
      const list = await ok(instance, bob, "POST", "/api/v1/lists", { title: "Friends" });
      await ok(instance, bob, "POST", `/api/v1/lists/${list.id}/accounts`, {
        account_ids: [alice.id],
      });
      const ws = await connect(
        `/api/v1/streaming?stream=list&list=${list.id}&access_token=${bob.token}`,
      );
      // The URL's list was checked before the upgrade: subscribed at once.
      const status = await postStatus(instance, alice, "For the list");
      const frame = await ws.next("update", "list");
      assert.deepEqual(frame.stream, ["list", list.id]);
      assert.equal(JSON.parse(frame.payload!).id, status.id);
      // Once only.
      const next = await postStatus(instance, alice, "Next for the list");
      await ws.nothingBefore("update", { event: "update", id: next.id, stream: "list" });

      const theirs = await connect(`/api/v1/streaming?access_token=${alice.token}`);
      theirs.send({ type: "subscribe", stream: "list", list: list.id });
      assert.deepEqual(await theirs.nextError(), {
        error: "Not authorized to stream this list",
        status: 401,
      });
      theirs.send({ type: "subscribe", stream: "list" });
      assert.deepEqual(await theirs.nextError(), {
        error: "Missing list name parameter",
        status: 400,
      });
      theirs.send({ type: "subscribe", stream: "list", list: "not-a-number" });
      assert.equal((await theirs.nextError()).status, 401);
    });

    await t.step("a list id sent as a JSON number is read exactly", async () => {
      const list = await ok(instance, bob, "POST", "/api/v1/lists", { title: "By number" });
      await ok(instance, bob, "POST", `/api/v1/lists/${list.id}/accounts`, {
        account_ids: [alice.id],
      });
      // Past 2^53: a double would round it to another id (someone else's list, or none).
      assert.ok(!Number.isSafeInteger(Number(list.id)));
      const ws = await connect(`/api/v1/streaming?access_token=${bob.token}`);
      ws.socket.send(`{"type":"subscribe","stream":"list","list":${list.id}}`);
      // Requests are answered in order: this refusal comes after the subscribe's outcome.
      ws.send({ type: "subscribe", stream: "list" });
      assert.deepEqual(await ws.nextError(), {
        error: "Missing list name parameter",
        status: 400,
      });
      const status = await postStatus(instance, alice, "For the list by number");
      const frame = await ws.next("update", "list");
      assert.deepEqual(frame.stream, ["list", list.id]);
      assert.equal(JSON.parse(frame.payload!).id, status.id);
    });

    await t.step("public streams: public originals, no boosts or replies to others", async () => {
      const erin = await createUser(instance, "erin");
      const ws = await connect(`/api/v1/streaming?stream=public&access_token=${erin.token}`);
      ws.send({ type: "subscribe", stream: "public:local" });
      ws.send({ type: "subscribe", stream: "public:remote" });
      ws.send({ type: "subscribe", stream: "public:media" });
      await ws.sync();
      const status = await postStatus(instance, alice, "Public hello");
      const frame = await ws.next("update", "public");
      assert.equal(JSON.parse(frame.payload!).id, status.id);
      assert.deepEqual(
        JSON.parse(frame.payload!),
        await ok(instance, erin, "GET", `/api/v1/statuses/${status.id}`),
      );
      await ws.next("update", "public:local");
      await ok(instance, bob, "POST", `/api/v1/statuses/${status.id}/reblog`);
      await postStatus(instance, bob, "A reply", { in_reply_to_id: status.id });
      await postStatus(instance, alice, "Unlisted", { visibility: "unlisted" });
      // Edits and deletes of what the stream showed follow it there (and
      // the edit marks the end of what the statuses above could have sent).
      await ok(instance, alice, "PUT", `/api/v1/statuses/${status.id}`, {
        status: "Public hello, edited",
      });
      const edited = await ws.nothingBefore("update", {
        event: "status.update",
        id: status.id,
        stream: "public",
      });
      assert.match(JSON.parse(edited.payload!).content, /edited/);
      await ws.next("status.update", "public:local");
      await ok(instance, alice, "DELETE", `/api/v1/statuses/${status.id}`);
      assert.equal((await ws.next("delete", "public")).payload, status.id);
      await ws.next("delete", "public:local");
      // A self-reply is shown (a thread), as Mastodon.
      const first = await postStatus(instance, alice, "Thread 1/2");
      await ws.nothingBefore("delete", { event: "update", id: first.id, stream: "public" });
      await ws.next("update", "public:local");
      const thread = await postStatus(instance, alice, "Thread 2/2", { in_reply_to_id: first.id });
      assert.equal(JSON.parse((await ws.next("update", "public")).payload!).id, thread.id);
      await ws.next("update", "public:local");
      const last = await postStatus(instance, alice, "After the thread");
      await ws.nothingBefore("update", { event: "update", id: last.id, stream: "public" });
    });

    await t.step("public streams: nothing from muted, blocked or blocking authors", async () => {
      const frank = await createUser(instance, "frank");
      const gina = await createUser(instance, "gina");
      const hank = await createUser(instance, "hank");
      const ws = await connect(`/api/v1/streaming?stream=public&access_token=${frank.token}`);
      ws.send({ type: "subscribe", stream: "hashtag", tag: "news" });
      await ws.sync();
      await ok(instance, frank, "POST", `/api/v1/accounts/${gina.id}/mute`);
      await ok(instance, hank, "POST", `/api/v1/accounts/${frank.id}/block`);
      await postStatus(instance, gina, "Muted #news");
      await postStatus(instance, hank, "Blocking #news");
      await postStatus(instance, alice, `Mentions @gina #news`);
      const status = await postStatus(instance, alice, "Visible #news");
      await ws.nothingBefore("update", { event: "update", id: status.id, stream: "public" });
      assert.equal(JSON.parse((await ws.next("update", "hashtag")).payload!).id, status.id);
    });

    await t.step("public:remote, and nothing from a domain the viewer blocks", async () => {
      const remoteId = await insertRemoteAccount(instance, "rita", "remote.example");
      const [jack, kate] = [await createUser(instance, "jack"), await createUser(instance, "kate")];
      await ok(instance, kate, "POST", "/api/v1/domain_blocks", { domain: "remote.example" });
      const jackWs = await connect(
        `/api/v1/streaming?stream=public:remote&access_token=${jack.token}`,
      );
      const kateWs = await connect(`/api/v1/streaming?stream=public&access_token=${kate.token}`);
      kateWs.send({ type: "subscribe", stream: "public:remote" });
      await kateWs.sync();
      const rita = { accountId: remoteId, actorUri: "https://remote.example/users/rita" };
      const id = await remoteStatus(instance, rita, "From afar");
      const frame = await jackWs.next("update", "public:remote");
      assert.deepEqual(
        JSON.parse(frame.payload!),
        await ok(instance, jack, "GET", `/api/v1/statuses/${id}`),
      );
      // Kate's public stream shows a local post; the remote one came before it.
      const local = await postStatus(instance, alice, "Local news");
      await kateWs.nothingBefore("update", { event: "update", id: local.id, stream: "public" });
      // The local post does not go to public:remote; a later remote one does.
      const later = await remoteStatus(instance, rita, "Later from afar");
      await jackWs.nothingBefore("update", { event: "update", id: later, stream: "public:remote" });
    });

    await t.step("refused subscriptions are answered on the socket", async () => {
      const ws = await connect(`/api/v1/streaming?access_token=${bob.token}`);
      ws.send({ type: "subscribe", stream: "nonsense" });
      assert.deepEqual(await ws.nextError(), { error: "Unknown stream type", status: 400 });
      ws.send({ type: "subscribe", stream: "hashtag" });
      assert.deepEqual(await ws.nextError(), { error: "Missing tag name parameter", status: 400 });
      ws.send("not json");
      ws.send({ type: "subscribe", stream: "hashtag", tag: "x".repeat(300) });
      assert.equal((await ws.nextError()).status, 400);

      // A flood of requests is refused past a small queue, not queued without end.
      for (let i = 0; i < 100; i++) ws.send({ type: "subscribe", stream: "list", list: "123" });
      const answers = [];
      for (let i = 0; i < 100; i++) answers.push(await ws.nextError());
      const refused = answers.filter((a) => a.status === 429).length;
      assert.ok(refused > 0 && refused < 100, `${refused} refused`);
      assert.ok(answers.every((a) => a.status === 429 || a.status === 401));

      const notesOnly = await createToken(instance, bob.userId, ["read:notifications"]);
      const limited = await connect(`/api/v1/streaming?stream=user&access_token=${notesOnly}`);
      assert.deepEqual(await limited.nextError(), {
        error: "Access token does not have the required scopes",
        status: 401,
      });
      limited.send({ type: "subscribe", stream: "user:notification" });
      limited.send({ type: "subscribe", stream: "public" });
      await limited.sync(); // fails on an error frame before its own
      assert.equal(limited.inbox.items.length, 0);
    });

    await t.step("bad credentials are refused before the upgrade", async () => {
      const upgrade = (query: string, headers: Record<string, string> = {}) =>
        instance.rookery.fetch(
          new Request(`${instance.origin}/api/v1/streaming${query}`, {
            headers: { Upgrade: "websocket", Connection: "Upgrade", ...headers },
          }),
        );
      let res = await upgrade("?stream=user&access_token=wrong");
      assert.equal(res.status, 401);
      assert.deepEqual(await res.json(), { error: "Invalid access token" });
      res = await upgrade("?stream=user", { "Sec-WebSocket-Protocol": "wrong" });
      assert.equal(res.status, 401);
      await res.body?.cancel();
      res = await upgrade("?stream=user", { Authorization: "Bearer wrong" });
      assert.equal(res.status, 401);
      await res.body?.cancel();
      // An application token has no user: Mastodon refuses it too.
      const app = await ok(instance, null, "POST", "/api/v1/apps", {
        client_name: "Streamer",
        redirect_uris: "urn:ietf:wg:oauth:2.0:oob",
      });
      const appToken = await ok(instance, null, "POST", "/oauth/token", {
        grant_type: "client_credentials",
        client_id: app.client_id,
        client_secret: app.client_secret,
      });
      res = await upgrade(`?stream=public&access_token=${appToken.access_token}`);
      assert.equal(res.status, 401);
      await res.body?.cancel();
      await assert.rejects(() =>
        WsClient.open(instance, "/api/v1/streaming?stream=user&access_token=nope")
      );
      // A plain GET: 404, as Mastodon's web host sharing its host with streaming.
      const plain = await callJson(instance, bob, "GET", "/api/v1/streaming");
      assert.deepEqual(plain, {
        status: 404,
        headers: plain.headers,
        body: { error: "Record not found" },
      });
      // Without a token: 401 before the upgrade, unless for public streams.
      res = await upgrade("?stream=user");
      assert.equal(res.status, 401);
      assert.deepEqual(await res.json(), { error: "Missing access token" });
      res = await upgrade("?stream=list&list=1");
      assert.equal(res.status, 401);
      await res.body?.cancel();
      // Anonymous: public streams only (the public preview is on by default).
      const anon = await connect("/api/v1/streaming?stream=public");
      anon.send({ type: "subscribe", stream: "user" });
      assert.deepEqual(await anon.nextError(), { error: "Missing access token", status: 401 });
      const status = await postStatus(instance, alice, "For everyone");
      assert.equal(JSON.parse((await anon.next("update", "public")).payload!).id, status.id);
    });

    await t.step("the token in Sec-WebSocket-Protocol is echoed back", async () => {
      const ws = await connect("/api/v1/streaming?stream=user", [bob.token]);
      assert.equal(ws.socket.protocol, bob.token);
      const status = await postStatus(instance, alice, "Via protocol");
      assert.equal(JSON.parse((await ws.next("update", "user")).payload!).id, status.id);
      // And in the Authorization header.
      const byHeader = await WsClient.open(instance, "/api/v1/streaming?stream=user", undefined, {
        Authorization: `Bearer ${bob.token}`,
      });
      open.push(byHeader);
      assert.equal(byHeader.socket.protocol, "");
      const second = await postStatus(instance, alice, "Via header");
      assert.equal(JSON.parse((await byHeader.next("update", "user")).payload!).id, second.id);
    });

    // PostgreSQL only: the check's query is held up by a lock while new
    // sockets open (their tokens come from the cache, without a query).
    // Their tokens were not asked about, and were once taken for revoked.
    await t.step({
      name: "sockets opened while held tokens are checked stay open",
      ...POSTGRES_ONLY,
      fn: async () => {
        const tokens = await Promise.all(
          Array.from({ length: 11 }, () => createToken(instance, bob.userId)),
        );
        for (const token of tokens) await ok(instance, token, "GET", "/api/v1/lists");
        // The marker: a socket whose token is revoked once the lock is gone.
        // Checks run one at a time, so its closing shows that the held check
        // has run to its end.
        const markerToken = tokens.pop()!;
        let marker: WsClient | null = null;
        const client = postgres(instance.databaseUrl!, { max: 1, onnotice: () => {} });
        const sockets: WsClient[] = [];
        try {
          await client.begin(async (tx) => {
            await tx`LOCK TABLE oauth_access_tokens IN ACCESS EXCLUSIVE MODE`;
            // Opened under the lock: the hub checks a new socket's token, and
            // that check is the one held (checks run only for new sockets and
            // tokens the database named, so one made before the lock may be over).
            marker = await connect(`/api/v1/streaming?stream=user&access_token=${markerToken}`);
            await eventually("a token check to wait for the lock", async () => {
              const [{ n }] = await tx`SELECT count(*)::int AS n FROM pg_locks
                WHERE NOT granted AND relation = 'oauth_access_tokens'::regclass`;
              return n > 0;
            });
            for (const token of tokens) {
              sockets.push(await connect(`/api/v1/streaming?stream=user&access_token=${token}`));
            }
          });
        } finally {
          await client.end();
        }
        await instance.rookery.ctx.database.db.execute(sql`UPDATE oauth_access_tokens
          SET revoked_at = now() WHERE token_hash = ${await hashSecret(markerToken)}`);
        await marker!.closed;
        const status = await postStatus(instance, alice, "To every socket");
        for (const ws of sockets) {
          assert.equal(ws.socket.readyState, WebSocket.OPEN);
          assert.equal(JSON.parse((await ws.next("update", "user")).payload!).id, status.id);
        }
      },
    });

    // How fast is the hub's TOKEN_CHECK_MS (a second at most); a test only
    // checks that it happens, since a loaded machine stretches any bound.
    await t.step("a revoked token's socket is closed", async () => {
      const token = await createToken(instance, bob.userId);
      const ws = await connect(`/api/v1/streaming?stream=user&access_token=${token}`);
      const { db } = instance.rookery.ctx.database;
      // As another process would: straight in the database.
      await db.execute(sql`UPDATE oauth_access_tokens SET revoked_at = now()
        WHERE token_hash = ${await hashSecret(token)}`);
      await ws.closed;
      // Bob's other sockets stay open.
      assert.equal(bobWs.socket.readyState, WebSocket.OPEN);
    });

    // The check asks about the tokens whose user or account changed (the
    // entity triggers name the account): a disabled user's socket closes.
    await t.step("a disabled user's socket is closed", async () => {
      const ellen = await createUser(instance, "ellen");
      const ws = await connect(`/api/v1/streaming?stream=user&access_token=${ellen.token}`);
      const { db } = instance.rookery.ctx.database;
      await db.execute(sql`UPDATE users SET disabled = true
        WHERE account_id = ${ellen.id}::bigint`);
      await ws.closed;
      assert.equal(bobWs.socket.readyState, WebSocket.OPEN);
    });
  } finally {
    for (const ws of open) await ws.close();
    await instance.close({ destroy: true });
  }
});
