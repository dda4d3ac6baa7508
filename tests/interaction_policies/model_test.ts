/**
 * The interaction policy engine (model/interaction_policy.ts) without an
 * instance: every rule of `decide`, normalisation, feasibility, the
 * built-in defaults (a contract: NULL in the database means them) and what
 * a NULL policy means for local and remote statuses.
 */
import assert from "node:assert/strict";
import {
  builtInDefaults,
  checkPolicy,
  decide,
  type DecisionTarget,
  effectivePolicy,
  type Facts,
  feasible,
  isActorIri,
  normalize,
  type PolicyRules,
  storedDifference,
  toMastodonQuoteWord,
} from "../../model/interaction_policy.ts";

const BOB = "https://b.example/users/bob";

const stranger: Facts = {
  isAuthor: false,
  mentionedOrRepliedTo: false,
  followsAuthor: false,
  followedByAuthor: false,
  actorUri: BOB,
  startedThread: false,
};

function target(rules: PolicyRules | null, visibility = "public", pending = false): DecisionTarget {
  return { visibility, rules, pending };
}

const rules = (automatic: string[], manual: string[] = []): PolicyRules => ({ automatic, manual });

Deno.test("decide: a direct status is never boosted or quoted, not even by its author", () => {
  const author = { ...stranger, isAuthor: true };
  for (const interaction of ["reblog", "quote"] as const) {
    assert.deepEqual(decide(interaction, target(rules(["public"]), "direct"), author), {
      permission: "forbidden",
    });
  }
  assert.equal(
    decide("favourite", target(rules(["author"]), "direct"), author).permission,
    "automatic",
  );
});

Deno.test("decide: the author may do anything, a private boost included", () => {
  const author = { ...stranger, isAuthor: true };
  assert.deepEqual(decide("reblog", target(rules(["author"]), "private"), author), {
    permission: "automatic",
    proof: false,
  });
  assert.deepEqual(decide("reply", target(rules([])), author), {
    permission: "automatic",
    proof: false,
  });
});

Deno.test("decide: the mentioned and the replied-to may always reply, not like", () => {
  const mentioned = { ...stranger, mentionedOrRepliedTo: true };
  assert.deepEqual(decide("reply", target(rules(["author"])), mentioned), {
    permission: "automatic",
    proof: false,
  });
  assert.equal(decide("favourite", target(rules(["author"])), mentioned).permission, "forbidden");
});

Deno.test("decide: a reply to a pending status waits unless its author started the thread", () => {
  const open = target(rules(["public"]), "public", true);
  assert.deepEqual(decide("reply", open, stranger), { permission: "manual" });
  assert.deepEqual(decide("reply", open, { ...stranger, isAuthor: true }), {
    permission: "manual",
  });
  assert.equal(decide("reply", open, { ...stranger, startedThread: true }).permission, "automatic");
  assert.equal(decide("favourite", open, stranger).permission, "automatic");
});

Deno.test("decide: a policy-unaware remote status allows all but a private boost", () => {
  assert.equal(decide("reply", target(null, "private"), stranger).permission, "automatic");
  assert.equal(decide("favourite", target(null, "private"), stranger).permission, "automatic");
  assert.equal(decide("reblog", target(null, "private"), stranger).permission, "forbidden");
  assert.deepEqual(decide("reblog", target(null), stranger), {
    permission: "automatic",
    proof: false,
  });
});

Deno.test("decide: an explicit match wins over a collection", () => {
  const follower = { ...stranger, followsAuthor: true };
  // Bob is listed for approval though followers are automatic: he asks.
  assert.deepEqual(decide("favourite", target(rules(["followers"], [BOB])), follower), {
    permission: "manual",
  });
  // Listed automatic though anyone else must ask.
  assert.deepEqual(decide("favourite", target(rules([BOB], ["public"])), stranger), {
    permission: "automatic",
    proof: false,
  });
  // `mentioned` is explicit too.
  assert.deepEqual(
    decide("favourite", target(rules(["author"], ["mentioned"])), {
      ...stranger,
      mentionedOrRepliedTo: true,
    }),
    { permission: "manual" },
  );
});

Deno.test("decide: the same IRI in both lists is automatic", () => {
  assert.equal(decide("reblog", target(rules([BOB], [BOB])), stranger).permission, "automatic");
});

Deno.test("decide: collections need proof, public does not, manual asks, the rest is forbidden", () => {
  const followers = target(rules(["followers"], ["public"]));
  assert.deepEqual(decide("reply", followers, { ...stranger, followsAuthor: true }), {
    permission: "automatic",
    proof: true,
  });
  assert.deepEqual(decide("reply", followers, stranger), { permission: "manual" });
  assert.deepEqual(
    decide("reply", target(rules(["following"])), { ...stranger, followedByAuthor: true }),
    {
      permission: "automatic",
      proof: true,
    },
  );
  assert.deepEqual(decide("reply", target(rules(["public"])), stranger), {
    permission: "automatic",
    proof: false,
  });
  assert.deepEqual(decide("reply", target(rules(["followers"])), stranger), {
    permission: "forbidden",
  });
  assert.deepEqual(
    decide("reply", target(rules(["author"], ["followers"])), { ...stranger, followsAuthor: true }),
    {
      permission: "manual",
    },
  );
});

Deno.test("normalize: author and mentioned added unless public, duplicates and manual repeats dropped", () => {
  assert.deepEqual(normalize("reply", rules(["followers", "followers"], ["public", "followers"])), {
    automatic: ["followers", "author", "mentioned"],
    manual: ["public"],
  });
  assert.deepEqual(normalize("favourite", rules([], [])), { automatic: ["author"], manual: [] });
  assert.deepEqual(normalize("reply", rules(["public"], ["public"])), {
    automatic: ["public"],
    manual: [],
  });
});

Deno.test("feasible: public only for public and unlisted, collections not for direct", () => {
  assert.equal(feasible("public", "unlisted"), true);
  assert.equal(feasible("public", "private"), false);
  assert.equal(feasible("followers", "private"), true);
  assert.equal(feasible("following", "direct"), false);
  for (const value of ["author", "mentioned", BOB]) assert.equal(feasible(value, "direct"), true);
});

Deno.test("isActorIri: http(s) URLs of at most 2,048 characters", () => {
  assert.equal(isActorIri(BOB), true);
  assert.equal(isActorIri("mailto:bob@b.example"), false);
  assert.equal(isActorIri("bob"), false);
  assert.equal(isActorIri(`https://b.example/${"x".repeat(2048)}`), false);
});

Deno.test("builtInDefaults: the contract NULL stands for", () => {
  const everyone = { automatic: ["public"], manual: [] };
  assert.deepEqual(builtInDefaults("public", "followers"), {
    can_favourite: everyone,
    can_reply: everyone,
    can_reblog: everyone,
    can_quote: { automatic: ["followers", "author"], manual: [] },
  });
  assert.deepEqual(builtInDefaults("unlisted", "nobody").can_quote, {
    automatic: ["author"],
    manual: [],
  });
  assert.deepEqual(builtInDefaults("private", "public"), {
    can_favourite: { automatic: ["author", "followers", "mentioned"], manual: [] },
    can_reply: { automatic: ["author", "followers", "mentioned"], manual: [] },
    can_reblog: { automatic: ["author"], manual: [] },
    can_quote: { automatic: ["author"], manual: [] },
  });
  assert.deepEqual(builtInDefaults("direct", "public"), {
    can_favourite: { automatic: ["author", "mentioned"], manual: [] },
    can_reply: { automatic: ["author", "mentioned"], manual: [] },
    can_reblog: { automatic: ["author"], manual: [] },
    can_quote: { automatic: ["author"], manual: [] },
  });
});

Deno.test("toMastodonQuoteWord: public, followers, else nobody", () => {
  assert.equal(toMastodonQuoteWord(rules(["public"])), "public");
  assert.equal(toMastodonQuoteWord(rules(["followers", "author"], ["public"])), "followers");
  assert.equal(toMastodonQuoteWord(rules(["author", BOB])), "nobody");
});

Deno.test("effectivePolicy: NULL is the defaults locally, unaware remotely (but for quotes)", () => {
  const base = { visibility: "public", interactionPolicy: null, quoteApprovalPolicy: "followers" };
  const local = effectivePolicy({ ...base, local: true });
  assert.deepEqual(local.can_reply, { automatic: ["public"], manual: [] });
  assert.deepEqual(local.can_quote, { automatic: ["followers", "author"], manual: [] });
  const remote = effectivePolicy({ ...base, local: false });
  assert.equal(remote.can_reply, null);
  assert.equal(remote.can_favourite, null);
  assert.deepEqual(remote.can_quote, { automatic: ["followers", "author"], manual: [] });
  const stated = effectivePolicy({
    ...base,
    local: false,
    interactionPolicy: { can_reply: rules(["author"], ["public"]) },
  });
  assert.deepEqual(stated.can_reply, rules(["author"], ["public"]));
  assert.equal(stated.can_reblog, null);
});

Deno.test("checkPolicy: fills from the defaults, normalises, refuses with a sentence", () => {
  const defaults = builtInDefaults("public", "public");
  const ok = checkPolicy({ can_reply: rules(["followers"], ["public"]) }, "public", defaults);
  assert.deepEqual(ok, {
    policy: { ...defaults, can_reply: rules(["followers", "author", "mentioned"], ["public"]) },
  });
  const empty = checkPolicy({ can_favourite: rules([], []) }, "public", defaults);
  assert.ok("policy" in empty && empty.policy.can_favourite.automatic[0] === "author");
  const problem = (
    input: Parameters<typeof checkPolicy>[0],
    visibility: "public" | "private" | "direct",
  ) =>
    (checkPolicy(input, visibility, builtInDefaults(visibility, "public")) as { problem: string })
      .problem;
  assert.equal(
    problem({ can_reply: rules(["me"]) }, "public"),
    'can_reply.automatic_approval: unknown value "me"',
  );
  assert.equal(
    problem({ can_reblog: rules([], ["public"]) }, "private"),
    'can_reblog.manual_approval: "public" is not possible for private posts',
  );
  assert.equal(
    problem({ can_favourite: rules(["followers"]) }, "direct"),
    'can_favourite.automatic_approval: "followers" is not possible for direct posts',
  );
  assert.equal(
    problem({ can_reply: rules(["ftp://x.example/bob"]) }, "public"),
    "can_reply.automatic_approval: not an account IRI",
  );
  assert.equal(
    problem(
      { can_reply: rules(Array.from({ length: 101 }, (_, i) => `https://x.example/${i}`)) },
      "public",
    ),
    "can_reply.automatic_approval: at most 100 values",
  );
  assert.equal(
    problem({ can_quote: rules([], ["public"]) }, "public"),
    "can_quote.manual_approval: not supported",
  );
});

Deno.test("storedDifference: only what differs from the built-in defaults, else NULL", () => {
  const defaults = builtInDefaults("public", "followers");
  assert.equal(storedDifference(defaults, "public", "followers"), null);
  const changed = { ...defaults, can_reply: rules(["author", "mentioned"], ["public"]) };
  assert.deepEqual(storedDifference(changed, "public", "followers"), {
    can_reply: changed.can_reply,
  });
});
