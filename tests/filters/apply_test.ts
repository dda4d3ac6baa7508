/**
 * Filters at work: each action (warn, hide, blur) in each context (home and
 * list timelines, public timelines, notifications v1 and grouped, threads,
 * account statuses), what text is read (content, content warning, poll
 * options, media descriptions), whole words, expiry, status filters,
 * boosts, the viewer's own statuses, paging past hidden statuses, and the
 * cache of compiled filters following every change.
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { callJson, links, ok, postStatus } from "../fixtures/api.ts";
import { createUser, type TestUser } from "../fixtures/users.ts";
import { mediaRow } from "../fixtures/media.ts";
import { eventually } from "../fixtures/wait.ts";

/** Statuses by their plain text (`<p>…</p>` stripped), for readable assertions. */
function byText(statuses: any[]): Map<string, any> {
  return new Map(
    statuses.map((s) => [(s.reblog ?? s).content.replace(/<[^>]+>/g, "").trim(), s]),
  );
}

/** What a FilterResult list says, in short: `title:action:keywords:statuses`. */
function summary(filtered: any[] | undefined): string[] {
  assert.ok(Array.isArray(filtered), "filtered is present for a signed-in viewer");
  return filtered.map((r) => {
    assert.deepEqual(Object.keys(r), ["filter", "keyword_matches", "status_matches"]);
    assert.deepEqual(
      Object.keys(r.filter),
      ["id", "title", "context", "expires_at", "filter_action"],
      "a FilterResult's filter leaves out keywords and statuses",
    );
    return `${r.filter.title}:${r.filter.filter_action}:${r.keyword_matches ?? "-"}:${
      r.status_matches ?? "-"
    }`;
  });
}

test("filters apply per action and context", async (t) => {
  const a = await startInstance();
  try {
    const alice = await createUser(a, "alice");
    const bob = await createUser(a, "bob");
    const carol = await createUser(a, "carol");
    const dave = await createUser(a, "dave");
    for (const who of [bob, carol]) await ok(a, alice, "POST", `/api/v1/accounts/${who.id}/follow`);

    const filter = async (
      title: string,
      context: string[],
      action: string,
      keywords: (string | [string, boolean])[],
      extra: Record<string, unknown> = {},
    ) =>
      await ok(a, alice, "POST", "/api/v2/filters", {
        title,
        context,
        filter_action: action,
        keywords_attributes: keywords.map((k) =>
          typeof k === "string" ? { keyword: k } : { keyword: k[0], whole_word: k[1] }
        ),
        ...extra,
      });
    const homeWarn = await filter("home warn", ["home"], "warn", ["kiwi", "picture"]);
    await filter("home hide", ["home"], "hide", ["durian"]);
    await filter("blur", ["home", "public", "notifications", "thread"], "blur", ["mango"]);
    await filter("public warn", ["public"], "warn", ["papaya"]);
    await filter("public hide", ["public"], "hide", ["lychee"]);
    await filter("notif warn", ["notifications"], "warn", ["plum"]);
    await filter("notif hide", ["notifications"], "hide", ["prune"]);
    await filter("thread warn", ["thread"], "warn", ["fig"]);
    await filter("thread hide", ["thread"], "hide", ["guava"]);
    await filter("account warn", ["account"], "warn", ["lime"]);
    await filter("account hide", ["account"], "hide", ["quince"]);
    await filter("pets", ["home"], "warn", [["cat", true], ["dog", false], ["C++", true]]);
    await filter("expired", ["home"], "hide", ["melon"], { expires_in: 0 });

    const home = async (who: TestUser = alice, query = "") =>
      await ok<any[]>(a, who, "GET", `/api/v1/timelines/home?limit=40${query}`);

    await t.step("home: warn, hide and blur; what text is read; whole words; expiry", async () => {
      for (
        const text of [
          "I like kiwi",
          "durian smells",
          "mango time",
          "Concatenate strings",
          "hotdogs for all",
          "A cat, finally",
          "Writing C++ today",
          "melon season",
          "papaya for lunch",
          "Kiwi in capitals",
        ]
      ) await postStatus(a, bob, text);
      await postStatus(a, bob, { status: "hidden behind a warning", spoiler_text: "kiwi inside" });
      await postStatus(a, bob, {
        status: "which fruit?",
        poll: { options: ["durian", "apple"], expires_in: 3600 },
      });
      await postStatus(a, bob, { status: "look at this", media_ids: [await mediaRow(a, bob)] });

      const shown = byText(await home());
      const f = (text: string) => {
        assert.ok(shown.has(text), `${text} is shown`);
        return summary(shown.get(text).filtered);
      };
      assert.deepEqual(f("I like kiwi"), ["home warn:warn:kiwi:-"]);
      assert.deepEqual(f("Kiwi in capitals"), ["home warn:warn:kiwi:-"], "case-insensitive");
      assert.ok(!shown.has("durian smells"), "hide leaves the status out");
      assert.deepEqual(f("mango time"), ["blur:blur:mango:-"]);
      assert.deepEqual(f("Concatenate strings"), [], "whole word: cat is not in concatenate");
      assert.deepEqual(f("hotdogs for all"), ["pets:warn:dog:-"], "not whole word: a substring");
      assert.deepEqual(f("A cat, finally"), ["pets:warn:cat:-"]);
      assert.deepEqual(f("Writing C++ today"), ["pets:warn:C++:-"], "escaped, bounded at C only");
      assert.deepEqual(f("melon season"), [], "an expired filter no longer applies");
      assert.deepEqual(f("papaya for lunch"), [], "a public filter does not apply at home");
      assert.deepEqual(f("hidden behind a warning"), ["home warn:warn:kiwi:-"], "content warning");
      assert.ok(!shown.has("which fruit?"), "poll options are read");
      assert.deepEqual(f("look at this"), ["home warn:warn:picture:-"], "media descriptions");
    });

    await t.step("home: boosts are filtered by what they boost; own statuses never", async () => {
      const boosted = await postStatus(a, dave, "kiwi from afar");
      const hiddenBoost = await postStatus(a, dave, "durian from afar");
      const boost = await ok(a, carol, "POST", `/api/v1/statuses/${boosted.id}/reblog`);
      await ok(a, carol, "POST", `/api/v1/statuses/${hiddenBoost.id}/reblog`);
      await postStatus(a, alice, "my own kiwi and durian");
      const page = await home();
      const wrapper = page.find((s) => s.id === boost.id);
      assert.ok(wrapper, "the boost is shown");
      assert.deepEqual(summary(wrapper.filtered), ["home warn:warn:kiwi:-"]);
      assert.deepEqual(summary(wrapper.reblog.filtered), ["home warn:warn:kiwi:-"]);
      assert.ok(!page.some((s) => s.reblog?.id === hiddenBoost.id), "a hidden boost is left out");
      const own = byText(page).get("my own kiwi and durian");
      assert.ok(own, "own statuses are never hidden");
      assert.deepEqual(own.filtered, []);
    });

    await t.step("home: paging is by the rows read, hidden ones included", async () => {
      const last = await postStatus(a, bob, "durian at the top");
      const res = await callJson<any[]>(a, alice, "GET", "/api/v1/timelines/home?limit=1");
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, [], "the one status of the page is hidden");
      const next = links(res.headers.get("link")).next;
      assert.equal(next.searchParams.get("max_id"), last.id, "next continues below it");
      const after = await ok<any[]>(a, alice, "GET", next.pathname + next.search);
      assert.equal(after.length, 1);
    });

    await t.step("list timelines use the home context", async () => {
      const list = await ok(a, alice, "POST", "/api/v1/lists", { title: "Bob" });
      await ok(a, alice, "POST", `/api/v1/lists/${list.id}/accounts`, { account_ids: [bob.id] });
      const shown = byText(await ok<any[]>(a, alice, "GET", `/api/v1/timelines/list/${list.id}`));
      assert.deepEqual(summary(shown.get("I like kiwi").filtered), ["home warn:warn:kiwi:-"]);
      assert.ok(!shown.has("durian smells"));
      assert.ok(shown.has("papaya for lunch"));
    });

    await t.step("public timelines: the public context only", async () => {
      await postStatus(a, bob, "lychee on the shelf");
      for (
        const path of [
          "/api/v1/timelines/public?limit=40",
          "/api/v1/timelines/public?local=true&limit=40",
        ]
      ) {
        const shown = byText(await ok<any[]>(a, alice, "GET", path));
        assert.deepEqual(summary(shown.get("papaya for lunch").filtered), [
          "public warn:warn:papaya:-",
        ]);
        assert.ok(!shown.has("lychee on the shelf"), "public hide");
        assert.deepEqual(summary(shown.get("mango time").filtered), ["blur:blur:mango:-"]);
        assert.deepEqual(shown.get("I like kiwi").filtered, [], "a home filter does not apply");
        assert.ok(shown.has("durian smells"), "nor does a home hide");
      }
      const anonymous = byText(
        await ok<any[]>(a, null, "GET", "/api/v1/timelines/public?limit=40"),
      );
      assert.ok(anonymous.has("lychee on the shelf"));
      assert.equal("filtered" in anonymous.get("papaya for lunch"), false);
    });

    await t.step("notifications (v1 and grouped): the notifications context", async () => {
      const warned = await postStatus(a, bob, "@alice plum pudding");
      const hidden = await postStatus(a, bob, "@alice prune juice");
      const blurred = await postStatus(a, bob, "@alice mango lassi");
      const other = await postStatus(a, bob, "@alice kiwi and papaya");
      const v1 = await eventually("the mentions", async () => {
        const list = await ok<any[]>(a, alice, "GET", "/api/v1/notifications?types[]=mention");
        return list.some((n) => n.status.id === other.id) && list;
      });
      const byStatus = new Map(v1.map((n) => [n.status.id, n]));
      assert.deepEqual(summary(byStatus.get(warned.id).status.filtered), [
        "notif warn:warn:plum:-",
      ]);
      assert.equal(byStatus.has(hidden.id), false, "hide leaves the notification out");
      assert.deepEqual(summary(byStatus.get(blurred.id).status.filtered), ["blur:blur:mango:-"]);
      assert.deepEqual(byStatus.get(other.id).status.filtered, [], "other contexts do not count");

      const grouped = await ok(a, alice, "GET", "/api/v2/notifications?types[]=mention");
      const statuses = new Map(grouped.statuses.map((s: any) => [s.id, s]));
      assert.deepEqual(summary((statuses.get(warned.id) as any).filtered), [
        "notif warn:warn:plum:-",
      ]);
      assert.equal(statuses.has(hidden.id), false);
      assert.deepEqual(summary((statuses.get(blurred.id) as any).filtered), ["blur:blur:mango:-"]);
      assert.ok(
        !grouped.notification_groups.some((g: any) => g.status_id === hidden.id),
        "nor any group of it",
      );

      // Asked for by id, the notification is shown, with its match.
      const all = await ok<any[]>(a, alice, "GET", "/api/v1/notifications?include_filtered=true");
      assert.ok(!all.some((n) => n.status?.id === hidden.id));
      const rows = await a.rookery.ctx.database.rows<{ id: string }>(
        (await import("drizzle-orm")).sql`SELECT id::text FROM notifications
          WHERE status_id = ${hidden.id}::bigint`,
      );
      const one = await ok(a, alice, "GET", `/api/v1/notifications/${rows[0].id}`);
      assert.deepEqual(summary(one.status.filtered), ["notif hide:hide:prune:-"]);
      const group = await ok(a, alice, "GET", `/api/v2/notifications/${one.group_key}`);
      assert.deepEqual(summary(group.statuses[0].filtered), ["notif hide:hide:prune:-"]);
    });

    await t.step("threads: hide removes from the context, not the status asked for", async () => {
      const root = await postStatus(a, bob, "a thread of fruit");
      const guava = await postStatus(a, dave, "guava reply", { in_reply_to_id: root.id });
      const fig = await postStatus(a, dave, "fig reply", { in_reply_to_id: root.id });
      const kiwi = await postStatus(a, dave, "kiwi reply", { in_reply_to_id: guava.id });
      await postStatus(a, dave, "mango reply", { in_reply_to_id: root.id });
      const context = await ok(a, alice, "GET", `/api/v1/statuses/${root.id}/context`);
      const ids = context.descendants.map((s: any) => s.id);
      assert.ok(!ids.includes(guava.id), "thread hide");
      assert.ok(ids.includes(fig.id) && ids.includes(kiwi.id));
      const down = byText(context.descendants);
      assert.deepEqual(summary(down.get("fig reply").filtered), ["thread warn:warn:fig:-"]);
      assert.deepEqual(down.get("kiwi reply").filtered, [], "a home filter does not apply");
      assert.deepEqual(summary(down.get("mango reply").filtered), ["blur:blur:mango:-"]);

      const asked = await ok(a, alice, "GET", `/api/v1/statuses/${guava.id}`);
      assert.deepEqual(summary(asked.filtered), ["thread hide:hide:guava:-"]);
      const up = await ok(a, alice, "GET", `/api/v1/statuses/${kiwi.id}/context`);
      assert.deepEqual(up.ancestors.map((s: any) => s.id), [root.id], "hidden ancestors go too");
      assert.deepEqual(up.descendants, []);
    });

    await t.step("account statuses: the account context", async () => {
      await postStatus(a, bob, "lime and soda");
      await postStatus(a, bob, "quince jelly");
      const shown = byText(
        await ok<any[]>(a, alice, "GET", `/api/v1/accounts/${bob.id}/statuses?limit=40`),
      );
      assert.deepEqual(summary(shown.get("lime and soda").filtered), ["account warn:warn:lime:-"]);
      assert.ok(!shown.has("quince jelly"), "account hide");
      assert.ok(shown.has("durian smells"), "a home hide does not apply");
      assert.deepEqual(shown.get("durian smells").filtered, []);
    });

    await t.step("status filters match by id (and by the boosted id)", async () => {
      const plain = await postStatus(a, dave, "nothing to see");
      await ok(a, alice, "POST", `/api/v2/filters/${homeWarn.id}/statuses`, {
        status_id: plain.id,
      });
      const boost = await ok(a, carol, "POST", `/api/v1/statuses/${plain.id}/reblog`);
      const wrapper = (await home()).find((s) => s.id === boost.id);
      assert.deepEqual(summary(wrapper.filtered), [`home warn:warn:-:${plain.id}`]);
    });

    await t.step("a quoted status lists its own matches and is never left out", async () => {
      const quoted = await postStatus(a, dave, "durian, quoted");
      const quote = await postStatus(a, bob, {
        status: "look at that",
        quoted_status_id: quoted.id,
      });
      const shown = (await home()).find((s) => s.id === quote.id);
      assert.ok(shown, "the quoting status is shown");
      assert.deepEqual(shown.filtered, []);
      assert.equal(shown.quote.quoted_status.id, quoted.id);
      assert.deepEqual(summary(shown.quote.quoted_status.filtered), ["home hide:hide:durian:-"]);
    });

    await t.step("outside any context every match is listed and nothing hidden", async () => {
      const durian = byText(
        await ok<any[]>(a, alice, "GET", `/api/v1/accounts/${bob.id}/statuses?limit=40`),
      )
        .get("durian smells");
      await ok(a, alice, "POST", `/api/v1/statuses/${durian.id}/favourite`);
      const favourites = await ok<any[]>(a, alice, "GET", "/api/v1/favourites");
      assert.deepEqual(summary(favourites[0].filtered), ["home hide:hide:durian:-"]);
      const many = await ok<any[]>(a, alice, "GET", `/api/v1/statuses?id[]=${durian.id}`);
      assert.deepEqual(summary(many[0].filtered), ["home hide:hide:durian:-"]);
    });

    await t.step("changes to filters show at the next request", async () => {
      const filters = await ok<any[]>(a, alice, "GET", "/api/v2/filters");
      const hide = filters.find((f) => f.title === "home hide");
      await ok(a, alice, "PUT", `/api/v2/filters/${hide.id}`, { filter_action: "warn" });
      assert.deepEqual(summary(byText(await home()).get("durian smells").filtered), [
        "home hide:warn:durian:-",
      ]);
      await ok(a, alice, "PUT", `/api/v2/filters/${hide.id}`, { expires_in: 0 });
      assert.deepEqual(byText(await home()).get("durian smells").filtered, [], "expired");
      await ok(a, alice, "POST", `/api/v2/filters/${hide.id}/keywords`, { keyword: "smells" });
      await ok(a, alice, "PUT", `/api/v2/filters/${hide.id}`, { expires_in: "" });
      assert.deepEqual(summary(byText(await home()).get("durian smells").filtered), [
        "home hide:warn:durian,smells:-",
      ]);
      await ok(a, alice, "DELETE", `/api/v2/filters/${homeWarn.id}`);
      assert.deepEqual(byText(await home()).get("I like kiwi").filtered, []);
      // A v1 filter is a filter too.
      await ok(a, alice, "POST", "/api/v1/filters", {
        phrase: "concatenate",
        context: ["home"],
        irreversible: true,
      });
      assert.ok(!byText(await home()).has("Concatenate strings"));
      // Another viewer is untouched by alice's filters.
      const path = `/api/v1/accounts/${bob.id}/statuses?limit=40`;
      const carols = byText(await ok<any[]>(a, carol, "GET", path));
      assert.ok(carols.has("Concatenate strings"));
      assert.deepEqual(carols.get("durian smells").filtered, []);
      assert.ok(!byText(await ok<any[]>(a, alice, "GET", path)).has("quince jelly"));
      assert.ok(carols.has("quince jelly"));
    });
  } finally {
    await a.close({ destroy: true });
  }
});
