/**
 * The policy's verdict as a pure function (no database): which types are
 * screened, drop over filter, accepted senders, staff who outrank the
 * recipient, and replies in a private conversation.
 */
import assert from "node:assert/strict";
import { test } from "../harness.ts";
import { decide, type PolicyFacts, type ScreenedCause } from "../../actors/notifications/policy.ts";

const stranger: PolicyFacts = {
  forNotFollowing: null,
  forNotFollowers: null,
  forNewAccounts: null,
  forPrivateMentions: null,
  forLimitedAccounts: null,
  permitted: false,
  following: false,
  followedLongEnough: false,
  senderIsNew: true,
  senderRole: "user",
  recipientRole: "user",
  senderLimited: false,
};
const dm: ScreenedCause = {
  type: "mention",
  fromAccountId: "1",
  status: { id: "2", visibility: "direct", inReplyToId: null },
};
const publicMention: ScreenedCause = { ...dm, status: { ...dm.status!, visibility: "public" } };

test("policy verdicts", () => {
  // Defaults: only a stranger's private mention is held.
  assert.equal(decide(dm, stranger, false), "filter");
  assert.equal(decide(publicMention, stranger, false), "accept");
  assert.equal(decide(dm, { ...stranger, following: true }, false), "accept");
  assert.equal(decide(dm, stranger, true), "accept", "an answer to the recipient");
  // Types Mastodon never screens.
  for (const type of ["status", "poll", "update", "quoted_update", "admin.sign_up"]) {
    assert.equal(
      decide({ type, fromAccountId: "1" }, { ...stranger, forNotFollowing: "drop" }, false),
      "accept",
      type,
    );
  }
  // Drop wins over filter, whichever condition asks for it.
  assert.equal(
    decide(dm, { ...stranger, forNotFollowing: "filter", forNewAccounts: "drop" }, false),
    "drop",
  );
  assert.equal(decide(publicMention, { ...stranger, forNotFollowers: "filter" }, false), "filter");
  assert.equal(
    decide(
      publicMention,
      { ...stranger, forNotFollowers: "filter", followedLongEnough: true },
      false,
    ),
    "accept",
  );
  // Limited senders (a silenced domain): filtered by default, unless followed.
  assert.equal(decide(publicMention, { ...stranger, senderLimited: true }, false), "filter");
  assert.equal(
    decide(publicMention, { ...stranger, senderLimited: true, following: true }, false),
    "accept",
  );
  assert.equal(
    decide(publicMention, { ...stranger, senderLimited: true, forLimitedAccounts: "drop" }, false),
    "drop",
  );
  // New accounts count only when not followed.
  const newOnly = { ...stranger, forNewAccounts: "filter", forPrivateMentions: "accept" };
  assert.equal(decide(publicMention, newOnly, false), "filter");
  assert.equal(decide(publicMention, { ...newOnly, senderIsNew: false }, false), "accept");
  assert.equal(decide(publicMention, { ...newOnly, following: true }, false), "accept");
  // Accepted senders and staff mentions pass; staff favourites do not bypass.
  assert.equal(
    decide(dm, { ...stranger, forNotFollowing: "drop", permitted: true }, false),
    "accept",
  );
  assert.equal(decide(dm, { ...stranger, senderRole: "moderator" }, false), "accept");
  assert.equal(
    decide(dm, { ...stranger, senderRole: "moderator", recipientRole: "admin" }, false),
    "filter",
  );
  assert.equal(
    decide({ type: "favourite", fromAccountId: "1" }, {
      ...stranger,
      senderRole: "admin",
      forNotFollowing: "filter",
    }, false),
    "filter",
  );
  // Unknown stored values read as the defaults; limited accounts never hold here.
  assert.equal(decide(dm, { ...stranger, forPrivateMentions: "bogus" }, false), "filter");
  assert.equal(decide(publicMention, { ...stranger, forLimitedAccounts: "drop" }, false), "accept");
});
