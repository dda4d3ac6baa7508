/**
 * GET /api/v2/search and /api/v1/search on one instance: parameters and
 * refusals, who finds which status (the library, public statuses of
 * indexable accounts, the visibility rules), every operator, the index kept
 * in step with edits and deletes, hashtags and accounts.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { startInstance, test } from "../harness.ts";
import { newId } from "../../db/ids.ts";
import { accounts, mediaAttachments, previewCards, statusSearch } from "../../db/schema/mod.ts";
import { type Caller, callJson, ok, postStatus } from "../fixtures/api.ts";
import { createToken, createUser, type TestUser } from "../fixtures/users.ts";
import { parseSearch } from "../../db/queries/search_query.ts";
import { searchStatuses } from "../../db/queries/status_search.ts";

const DAY_MS = 86_400_000;
const day = (offset: number) => new Date(Date.now() + offset * DAY_MS).toISOString().slice(0, 10);

test("search: parameters, visibility, operators, index upkeep, hashtags, accounts", async (t) => {
  const instance = await startInstance();
  const { db } = instance.rookery.ctx.database;
  const search = (who: Caller, query: string) =>
    callJson(instance, who, "GET", `/api/v2/search?${query}`);
  /** The ids of the statuses `who` finds for `q` (extra: more parameters). */
  const found = async (who: Caller, q: string, extra = "") => {
    const res = await search(who, `type=statuses&q=${encodeURIComponent(q)}${extra}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.statuses.map((s: { id: string }) => s.id);
  };
  try {
    const [alice, bob, carol, dave, erin] = await Promise.all(
      ["alice", "bob", "carol", "dave", "erin"].map((n) => createUser(instance, n)),
    );
    // carol does not allow her posts to be indexed.
    await db.update(accounts).set({ indexable: false }).where(eq(accounts.id, carol.id));

    await t.step("q is required; anonymous callers get no offset and no resolve", async () => {
      for (const query of ["", "q=", "q=%20%20"]) {
        const res = await search(alice, query);
        assert.equal(res.status, 400);
        assert.equal(res.body.error, "param is missing or the value is empty: q");
      }
      const offset = await search(null, "q=bob&offset=0");
      assert.equal(offset.status, 401);
      assert.equal(
        offset.body.error,
        "Search queries pagination is not supported without authentication",
      );
      const resolve = await search(null, "q=bob&resolve=true");
      assert.equal(resolve.status, 401);
      assert.equal(
        resolve.body.error,
        "Search queries that resolve remote resources are not supported without authentication",
      );
      assert.equal((await search(null, "q=bob&resolve=false")).status, 200);
      const badType = await search(alice, "q=bob&type=status");
      assert.equal(badType.status, 422);
      assert.match(badType.body.error, /type/);
      // A token without read:search (nor read) is refused; read:search alone will do.
      const writeOnly = await createToken(instance, alice.userId, ["write"]);
      assert.equal((await search(writeOnly, "q=bob")).status, 403);
      const searchOnly = await createToken(instance, alice.userId, ["read:search"]);
      assert.equal((await search(searchOnly, "q=bob")).status, 200);
      // Hostile shapes: arrays where a string belongs, an oversized query.
      assert.equal((await search(alice, "q[]=a&q[]=b")).status, 422);
      const long = await search(alice, `q=${"x".repeat(100_000)}`);
      assert.ok(long.status === 200 || long.status === 414, String(long.status));
    });

    const pub = await postStatus(instance, bob, "A public pancake recipe");
    const unlisted = await postStatus(instance, bob, "An unlisted pancake", {
      visibility: "unlisted",
    });
    const priv = await postStatus(instance, bob, "A private pancake secret", {
      visibility: "private",
    });
    const direct = await postStatus(instance, bob, "@alice a direct pancake", {
      visibility: "direct",
    });
    const hidden = await postStatus(instance, carol, "Carol's unindexed pancake");

    await t.step("who finds what", async () => {
      // bob finds everything he wrote, whatever its visibility.
      assert.deepEqual(await found(bob, "pancake"), [direct.id, priv.id, unlisted.id, pub.id]);
      // An outsider: public statuses of indexable accounts only.
      assert.deepEqual(await found(dave, "pancake"), [pub.id]);
      // A follower of bob does not find his private status without having interacted with it.
      await ok(instance, dave, "POST", `/api/v1/accounts/${bob.id}/follow`);
      assert.deepEqual(await found(dave, "pancake"), [pub.id]);
      // alice is mentioned in the direct one.
      assert.deepEqual(await found(alice, "pancake"), [direct.id, pub.id]);
      // carol's public status: her own, and whoever favourites, bookmarks or boosts it.
      assert.deepEqual(await found(carol, "unindexed"), [hidden.id]);
      assert.deepEqual(await found(erin, "unindexed"), []);
      await ok(instance, erin, "POST", `/api/v1/statuses/${hidden.id}/favourite`);
      assert.deepEqual(await found(erin, "unindexed"), [hidden.id]);
      await ok(instance, dave, "POST", `/api/v1/statuses/${hidden.id}/bookmark`);
      assert.deepEqual(await found(dave, "unindexed"), [hidden.id]);
      await ok(instance, alice, "POST", `/api/v1/statuses/${hidden.id}/reblog`);
      assert.deepEqual(await found(alice, "unindexed"), [hidden.id]);
      // Interactions do not open what the visibility rules close: erin favourites
      // bob's private status by id (refused: she cannot see it), still finds nothing.
      const fav = await callJson(instance, erin, "POST", `/api/v1/statuses/${priv.id}/favourite`);
      assert.equal(fav.status, 404);
      assert.deepEqual(await found(erin, "secret"), []);
      // Anonymous callers search accounts and hashtags, never statuses.
      const anonymous = await search(null, "q=pancake");
      assert.equal(anonymous.status, 200);
      assert.deepEqual(anonymous.body.statuses, []);
    });

    await t.step("blocks and mutes hide authors, either way", async () => {
      // erin favourited carol's status above; bob's public one is the other.
      assert.deepEqual(await found(erin, "pancake"), [hidden.id, pub.id]);
      await ok(instance, erin, "POST", `/api/v1/accounts/${bob.id}/block`);
      assert.deepEqual(await found(erin, "pancake"), [hidden.id]);
      await ok(instance, erin, "POST", `/api/v1/accounts/${bob.id}/unblock`);
      await ok(instance, bob, "POST", `/api/v1/accounts/${erin.id}/block`);
      assert.deepEqual(await found(erin, "pancake"), [hidden.id]);
      await ok(instance, bob, "POST", `/api/v1/accounts/${erin.id}/unblock`);
      await ok(instance, erin, "POST", `/api/v1/accounts/${bob.id}/mute`);
      assert.deepEqual(await found(erin, "pancake"), [hidden.id]);
      await ok(instance, erin, "POST", `/api/v1/accounts/${bob.id}/unmute`);
      assert.deepEqual(await found(erin, "pancake"), [hidden.id, pub.id]);
    });

    await t.step("the index follows edits and deletes", async () => {
      const edited = await postStatus(instance, bob, "An original waffle");
      assert.deepEqual(await found(dave, "waffle"), [edited.id]);
      await ok(instance, bob, "PUT", `/api/v1/statuses/${edited.id}`, {
        status: "A revised crumpet",
        spoiler_text: "breakfast talk",
      });
      assert.deepEqual(await found(dave, "waffle"), []);
      assert.deepEqual(await found(dave, "crumpet"), [edited.id]);
      assert.deepEqual(await found(dave, "breakfast"), [edited.id], "the content warning counts");
      await ok(instance, bob, "DELETE", `/api/v1/statuses/${edited.id}`);
      assert.deepEqual(await found(dave, "crumpet"), []);
      assert.deepEqual(await found(bob, "crumpet"), []);
      const rows = await db.select().from(statusSearch).where(eq(statusSearch.statusId, edited.id));
      assert.equal(rows.length, 0, "a deleted status leaves the index");
      // Boosts are not indexed (their original is).
      const boosts = await db.select().from(statusSearch).where(
        eq(statusSearch.accountId, alice.id),
      );
      assert.deepEqual(boosts, []);
    });

    // Statuses for the operators, all by alice unless said otherwise.
    const fox = await postStatus(instance, alice, "The quick red fox");
    const foxReversed = await postStatus(instance, alice, "A fox, red and quick");
    const media = await postStatus(instance, alice, "fox photo");
    await db.insert(mediaAttachments).values({
      id: newId(),
      accountId: alice.id,
      statusId: media.id,
      type: "image",
      remoteUrl: "https://example.com/fox.png",
    });
    const video = await postStatus(instance, alice, "fox video");
    await db.insert(mediaAttachments).values({
      id: newId(),
      accountId: alice.id,
      statusId: video.id,
      type: "video",
      remoteUrl: "https://example.com/fox.mp4",
    });
    const poll = await postStatus(instance, alice, {
      status: "fox poll",
      poll: { options: ["yes", "no"], expires_in: 3600 },
    });
    // The card is stored (fresh) before the post, so posting links it in its own
    // transaction: no link_card job runs later and unlinks it when example.com
    // cannot be fetched (that race failed CI once).
    await db.insert(previewCards).values({ id: newId(), url: "https://example.com/fox" });
    const link = await postStatus(instance, alice, "fox link https://example.com/fox");
    const reply = await postStatus(instance, alice, "fox reply", { in_reply_to_id: pub.id });
    const sensitive = await postStatus(instance, alice, "fox sensitive", { sensitive: true });
    const french = await postStatus(instance, alice, "fox en français", { language: "fr" });
    const bobFox = await postStatus(instance, bob, "bob's fox");
    const allFoxes = [
      bobFox,
      french,
      sensitive,
      reply,
      link,
      poll,
      video,
      media,
      foxReversed,
      fox,
    ].map((s) => s.id);
    const aliceFoxes = allFoxes.slice(1);

    await t.step("words, phrases, exclusions", async () => {
      assert.deepEqual(await found(alice, "fox"), allFoxes);
      assert.deepEqual(await found(alice, "FOX quick"), [foxReversed.id, fox.id]);
      assert.deepEqual(await found(alice, '"red fox"'), [fox.id]);
      assert.deepEqual(await found(alice, '"fox red"'), [foxReversed.id]);
      assert.deepEqual(
        await found(alice, "fox -red"),
        allFoxes.filter((id) => id !== fox.id && id !== foxReversed.id),
      );
      assert.deepEqual(await found(alice, 'quick -"red fox"'), [foxReversed.id]);
      assert.deepEqual(await found(alice, "français"), [french.id]);
      assert.deepEqual(await found(alice, "nothing-like-this"), []);
      // A query that asks nothing finds nothing (not every status).
      for (const q of ['"', '""', "-", "!!!", "- + -"]) {
        assert.deepEqual(await found(alice, q), [], q);
      }
    });

    await t.step("from:, has:, is:, language:", async () => {
      assert.deepEqual(await found(alice, "fox from:bob"), [bobFox.id]);
      assert.deepEqual(await found(alice, "fox from:@bob@localhost:8080"), [bobFox.id]);
      // An operator alone is not a handle: statuses are searched. bob's unlisted and
      // followers-only posts are not alice's to find; the direct one mentions her.
      assert.deepEqual(await found(alice, "from:bob@localhost:8080"), [
        bobFox.id,
        direct.id,
        pub.id,
      ]);
      assert.deepEqual(await found(alice, "fox -from:bob"), aliceFoxes);
      assert.deepEqual(await found(alice, "fox from:me"), aliceFoxes);
      assert.deepEqual(await found(alice, "fox from:nobody"), []);
      assert.deepEqual(await found(alice, "fox has:media"), [video.id, media.id]);
      assert.deepEqual(await found(alice, "fox has:image"), [media.id]);
      assert.deepEqual(await found(alice, "fox has:video"), [video.id]);
      assert.deepEqual(await found(alice, "fox has:poll"), [poll.id]);
      assert.deepEqual(await found(alice, "fox has:link"), [link.id]);
      assert.deepEqual(
        await found(alice, "fox -has:media -has:poll -has:link from:me"),
        [french.id, sensitive.id, reply.id, foxReversed.id, fox.id],
      );
      assert.deepEqual(await found(alice, "fox is:reply"), [reply.id]);
      assert.deepEqual(await found(alice, "fox is:sensitive"), [sensitive.id]);
      assert.deepEqual(await found(alice, "fox -is:reply -is:sensitive from:me"), [
        french.id,
        link.id,
        poll.id,
        video.id,
        media.id,
        foxReversed.id,
        fox.id,
      ]);
      assert.deepEqual(await found(alice, "fox language:fr"), [french.id]);
      assert.deepEqual(await found(alice, "fox language:FR"), [french.id]);
      assert.ok(!(await found(alice, "fox -language:fr")).includes(french.id));
      // The other kinds of has:.
      const audio = await postStatus(instance, alice, "owl song");
      await db.insert(mediaAttachments).values({
        id: newId(),
        accountId: alice.id,
        statusId: audio.id,
        type: "audio",
        remoteUrl: "https://example.com/owl.mp3",
      });
      // Stored first, as the fox link above: linked in the posting transaction.
      await db.insert(previewCards).values({
        id: newId(),
        url: "https://video.example/owl",
        type: "video",
      });
      const embed = await postStatus(instance, alice, "owl clip https://video.example/owl");
      assert.deepEqual(await found(alice, "owl has:audio"), [audio.id]);
      assert.deepEqual(await found(alice, "owl has:embed"), [embed.id]);
      assert.deepEqual(await found(alice, "owl has:link"), [embed.id]);
      assert.deepEqual(await found(alice, "owl -has:embed"), [audio.id]);
      // Operators alone, without words.
      assert.deepEqual(await found(alice, "has:poll"), [poll.id]);
      // An unknown operator is searched as words.
      assert.deepEqual(await found(alice, "quick:red"), [foxReversed.id, fox.id]);
    });

    await t.step("before:, after:, during:, in:", async () => {
      assert.deepEqual(await found(alice, `fox during:${day(0)}`), allFoxes);
      assert.deepEqual(await found(alice, `fox before:${day(0)}`), []);
      assert.deepEqual(await found(alice, `fox before:${day(1)}`), allFoxes);
      assert.deepEqual(await found(alice, `fox after:${day(-1)}`), allFoxes);
      assert.deepEqual(await found(alice, `fox after:${day(0)}`), []);
      assert.deepEqual(await found(alice, `fox during:${day(-1)}`), []);
      // in:library: what alice wrote or interacted with; in:public: public + indexable.
      assert.deepEqual(await found(alice, "fox in:library"), aliceFoxes);
      assert.deepEqual(await found(alice, "pancake in:library"), [hidden.id, direct.id]);
      assert.deepEqual(await found(alice, "pancake in:public"), [pub.id]);
      assert.deepEqual(await found(alice, "unindexed in:public"), []);
      assert.deepEqual(await found(alice, "unindexed in:library"), [hidden.id]);
      assert.deepEqual(await found(alice, "pancake"), [hidden.id, direct.id, pub.id]);
    });

    await t.step("account_id, limit, offset, max_id, min_id", async () => {
      assert.deepEqual(await found(alice, "fox", `&account_id=${bob.id}`), [bobFox.id]);
      assert.deepEqual(await found(alice, "fox", "&account_id=junk"), []);
      assert.deepEqual(await found(alice, "fox", "&limit=3"), allFoxes.slice(0, 3));
      assert.deepEqual(await found(alice, "fox", "&limit=3&offset=3"), allFoxes.slice(3, 6));
      assert.deepEqual(
        await found(alice, "fox", `&limit=2&max_id=${allFoxes[3]}`),
        allFoxes.slice(4, 6),
      );
      assert.deepEqual(
        await found(alice, "fox", `&limit=2&min_id=${allFoxes[6]}`),
        allFoxes.slice(4, 6),
      );
      assert.deepEqual(await found(alice, "fox", "&limit=-3"), allFoxes.slice(0, 3));
      assert.deepEqual(await found(alice, "fox", "&offset=-5&limit=2"), allFoxes.slice(0, 2));
      assert.deepEqual(
        await found(alice, "fox", "&max_id=not-an-id&limit=1"),
        allFoxes.slice(0, 1),
      );
    });

    await t.step("the GIN step finds what the newest rows do not hold", async () => {
      // Each part reads its newest rows first and turns to the GIN index for
      // the rest; with a window of one or a few rows, every query must find
      // what it finds with the default windows. (The windows are compared
      // with `ginFirst` off: on this small table PostgreSQL estimates every
      // word rare, so by default the GIN index would be asked first.)
      const queries = [
        "fox",
        "pancake",
        '"red fox"',
        "fox -red",
        "fox from:bob",
        "fox has:media",
        "unindexed",
        "quick",
        "nothing-like-this",
        "has:poll",
        "-red",
        "from:bob",
      ];
      const viewers = [alice, dave];
      for (const viewer of viewers) {
        for (const q of queries) {
          for (const page of [{}, { maxId: allFoxes[2] }, { minId: allFoxes[8] }]) {
            const run = async (recentWindow?: number, ginFirst = false) => {
              const parsed = parseSearch(q);
              return await searchStatuses(instance.rookery.ctx.database, {
                parsed,
                fromIds: parsed.from.map((f) => ({ value: bob.id, negated: f.negated })),
                accountId: null,
                viewerId: viewer.id,
                maxId: null,
                minId: null,
                ...page,
                limit: 3,
                offset: 0,
                recentWindow,
                libraryWindow: recentWindow,
                ginFirst,
              });
            };
            const expected = await run();
            // Asking the GIN index first (what a query whose words PostgreSQL
            // estimates rare does) finds the same.
            assert.deepEqual(
              await run(undefined, true),
              expected,
              `${q} ${JSON.stringify(page)} gin`,
            );
            for (const window of [1, 2, 5]) {
              assert.deepEqual(
                await run(window),
                expected,
                `${q} ${JSON.stringify(page)} ${window}`,
              );
            }
          }
        }
      }
    });

    await t.step("limit defaults to 20 and stops at 40", async () => {
      for (let i = 0; i < 41; i++) await postStatus(instance, erin, `heron number ${i}`);
      assert.equal((await found(erin, "heron")).length, 20);
      assert.equal((await found(erin, "heron", "&limit=1000")).length, 40);
    });

    await t.step("the answer's shape; accounts; v1", async () => {
      const all = await search(alice, "q=fox&limit=2");
      assert.equal(all.status, 200);
      assert.deepEqual(Object.keys(all.body).sort(), ["accounts", "hashtags", "statuses"]);
      assert.equal(all.body.statuses.length, 2);
      assert.equal(all.body.statuses[0].account.username, "bob");
      assert.equal(all.body.statuses[0].content, "<p>bob&#39;s fox</p>");
      const people = await search(alice, "q=bo&type=accounts");
      assert.deepEqual(people.body.accounts.map((a: { id: string }) => a.id), [bob.id]);
      assert.deepEqual(people.body.statuses, []);
      assert.deepEqual(people.body.hashtags, []);
      // An anonymous caller finds accounts.
      const anonymous = await search(null, "q=carol");
      assert.deepEqual(anonymous.body.accounts.map((a: { id: string }) => a.id), [carol.id]);
      // `following` keeps followed accounts only.
      await ok(instance, alice, "POST", `/api/v1/accounts/${carol.id}/follow`);
      const followed = await search(alice, "q=c&type=accounts&following=true");
      assert.deepEqual(followed.body.accounts.map((a: { id: string }) => a.id), [carol.id]);
      // A bare handle does not search statuses.
      const handle = await search(alice, `q=${encodeURIComponent("@bob@localhost:8080")}`);
      assert.deepEqual(handle.body.statuses, []);
      assert.deepEqual(handle.body.accounts.map((a: { id: string }) => a.id), [bob.id]);
      // A trailing slash is the same route.
      const slash = await callJson(instance, alice, "GET", "/api/v2/search/?q=fox&limit=1");
      assert.deepEqual(slash.body.statuses.map((s: { id: string }) => s.id), [bobFox.id]);
      // v1: the same search, hashtags as names.
      const v1 = await callJson(instance, alice, "GET", "/api/v1/search?q=fox&limit=1");
      assert.equal(v1.status, 200);
      assert.deepEqual(v1.body.statuses.map((s: { id: string }) => s.id), [bobFox.id]);
    });

    await t.step("hashtags by prefix, shortest first; exclude_unreviewed", async () => {
      await postStatus(instance, bob, "#Pancakes and #pancakemix and #pan");
      const tags = await search(alice, "q=%23panc&type=hashtags");
      assert.equal(tags.status, 200);
      assert.deepEqual(tags.body.hashtags.map((h: { name: string }) => h.name), [
        "Pancakes",
        "pancakemix",
      ]);
      const tag = tags.body.hashtags[0];
      assert.equal(tag.url, `${instance.origin}/tags/Pancakes`);
      assert.equal(tag.history.length, 7);
      assert.equal(tag.history[0].uses, "1");
      assert.equal(tag.following, false);
      const exact = await search(alice, "q=pancakes&type=hashtags&exclude_unreviewed=true");
      assert.deepEqual(exact.body.hashtags.map((h: { name: string }) => h.name), ["Pancakes"]);
      const v1 = await callJson(instance, alice, "GET", "/api/v1/search?q=pan&type=hashtags");
      assert.deepEqual(v1.body.hashtags, ["pan", "Pancakes", "pancakemix"]);
      const wildcard = await search(alice, "q=p%25&type=hashtags");
      assert.deepEqual(wildcard.body.hashtags, [], "LIKE wildcards match literally");
    });

    await t.step("resolve=true with our own URLs answers from the database", async () => {
      const byUrl = async (who: TestUser, url: string) =>
        (await search(who, `resolve=true&q=${encodeURIComponent(url)}`)).body;
      const page = await byUrl(dave, pub.url);
      assert.deepEqual(page.statuses.map((s: { id: string }) => s.id), [pub.id]);
      assert.deepEqual(page.accounts, []);
      const iri = await byUrl(dave, pub.uri);
      assert.deepEqual(iri.statuses.map((s: { id: string }) => s.id), [pub.id]);
      const profile = await byUrl(dave, `${instance.origin}/@bob`);
      assert.deepEqual(profile.accounts.map((a: { id: string }) => a.id), [bob.id]);
      assert.deepEqual(profile.statuses, []);
      // A private status by URL: only for those who may see it.
      assert.deepEqual((await byUrl(erin, priv.url)).statuses, []);
      assert.deepEqual((await byUrl(bob, priv.url)).statuses.map((s: { id: string }) => s.id), [
        priv.id,
      ]);
      // A URL of ours that names nothing, and type that does not match.
      assert.deepEqual((await byUrl(dave, `${instance.origin}/@nobody/1`)).statuses, []);
      const typed = await search(
        dave,
        `resolve=true&type=accounts&q=${encodeURIComponent(pub.url)}`,
      );
      assert.deepEqual(typed.body.statuses, []);
      assert.deepEqual(typed.body.accounts, []);
    });
  } finally {
    await instance.close({ destroy: true });
  }
});
