import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { newId } from "../../db/ids.ts";
import { accounts, loginActivity, statuses, users } from "../../db/schema/mod.ts";
import { MASTODON_COMPAT_VERSION, ROOKERY_VERSION } from "../../version.ts";
import { json, startInstance, test, type TestInstance } from "../harness.ts";
import { createAccount } from "./helpers.ts";

const DAY = 24 * 3600 * 1000;
const SCHEMA = "http://nodeinfo.diaspora.software/ns/schema";

/** Monday 00:00 UTC of the week containing `date`, as login_activity stores it. */
function weekOf(date: Date): Date {
  const d = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
  d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7));
  return d;
}

async function seed(a: TestInstance) {
  const { db } = a.rookery.ctx.database;
  const now = Date.now();
  // alice: signed in 10 days ago (month and half year).
  const alice = await createAccount(a, "alice");
  await db.update(users).set({ lastSignInAt: new Date(now - 10 * DAY) })
    .where(eq(users.id, alice.user.id));
  // bob: a login week 100 days ago only (half year, not month).
  const bob = await createAccount(a, "bob");
  await db.insert(loginActivity).values({
    userId: bob.user.id,
    week: weekOf(new Date(now - 100 * DAY)),
  });
  // carol: last seen a year ago (counted in total only).
  const carol = await createAccount(a, "carol");
  await db.update(users).set({ lastSignInAt: new Date(now - 365 * DAY) })
    .where(eq(users.id, carol.user.id));
  await db.insert(loginActivity).values({
    userId: carol.user.id,
    week: weekOf(new Date(now - 300 * DAY)),
  });
  // dave: deleted, though active yesterday: counted nowhere.
  const dave = await createAccount(a, "dave", { deletedAt: new Date() });
  await db.update(users).set({ lastSignInAt: new Date(now - DAY) }).where(
    eq(users.id, dave.user.id),
  );
  // Two live local posts, one deleted local post, one remote post.
  const remote = (await db.insert(accounts).values({
    id: newId(),
    username: "remote",
    domain: "elsewhere.example",
    uri: "https://elsewhere.example/users/remote",
  }).returning())[0];
  const post = (accountId: string, local: boolean, deletedAt: Date | null = null) => ({
    id: newId(),
    uri: `https://${local ? a.domain : "elsewhere.example"}/statuses/${crypto.randomUUID()}`,
    accountId,
    local,
    deletedAt,
  });
  await db.insert(statuses).values([
    post(alice.account.id, true),
    post(bob.account.id, true),
    post(alice.account.id, true, new Date()),
    post(remote.id, false),
  ]);
}

test("NodeInfo 2.1 and 2.0 with real counts", async () => {
  const a = await startInstance({ env: { INSTANCE_TITLE: "Wonderland" } });
  try {
    await seed(a);
    const links = await json(await a.request("/.well-known/nodeinfo"));
    const hrefs = Object.fromEntries(
      links.links.map((l: { rel: string; href: string }) => [l.rel, l.href]),
    );
    assert.deepEqual(hrefs, {
      [`${SCHEMA}/2.0`]: `${a.origin}/nodeinfo/2.0`,
      [`${SCHEMA}/2.1`]: `${a.origin}/nodeinfo/2.1`,
    });
    const usage = {
      users: { total: 3, activeHalfyear: 2, activeMonth: 1 },
      localPosts: 2,
      localComments: 0,
    };

    const res21 = await a.request("/nodeinfo/2.1");
    assert.equal(res21.status, 200);
    assert.match(res21.headers.get("Content-Type") ?? "", /schema\/2\.1#/);
    assert.deepEqual(await json(res21), {
      $schema: `${SCHEMA}/2.1#`,
      version: "2.1",
      software: {
        name: "rookery",
        version: ROOKERY_VERSION,
        repository: "https://github.com/rookery-social/rookery",
        homepage: "https://github.com/rookery-social/rookery",
      },
      protocols: ["activitypub"],
      services: { inbound: [], outbound: [] },
      openRegistrations: true,
      usage,
      metadata: {
        nodeName: "Wonderland",
        upstream: { name: "Mastodon", version: MASTODON_COMPAT_VERSION },
      },
    });

    const res20 = await a.request("/nodeinfo/2.0");
    assert.equal(res20.status, 200);
    assert.match(res20.headers.get("Content-Type") ?? "", /schema\/2\.0#/);
    assert.deepEqual(await json(res20), {
      $schema: `${SCHEMA}/2.0#`,
      version: "2.0",
      software: { name: "rookery", version: ROOKERY_VERSION },
      protocols: ["activitypub"],
      services: { inbound: [], outbound: [] },
      openRegistrations: true,
      usage,
      metadata: {
        nodeName: "Wonderland",
        upstream: { name: "Mastodon", version: MASTODON_COMPAT_VERSION },
      },
    });
  } finally {
    await a.close({ destroy: true });
  }
});

test("NodeInfo openRegistrations follows REGISTRATIONS", async () => {
  for (const [mode, open] of [["closed", false], ["approval", true], ["open", true]] as const) {
    const a = await startInstance({ env: { REGISTRATIONS: mode } });
    try {
      for (const path of ["/nodeinfo/2.1", "/nodeinfo/2.0"]) {
        const doc = await json(await a.request(path));
        assert.equal(doc.openRegistrations, open, `${mode} ${path}`);
        assert.deepEqual(doc.usage.users, { total: 0, activeHalfyear: 0, activeMonth: 0 });
      }
    } finally {
      await a.close({ destroy: true });
    }
  }
});

/**
 * megalodon (Whalebird and the other apps built on it) picks its driver from
 * NodeInfo before anything else: the 2.0 or 2.1 link of
 * /.well-known/nodeinfo, then `software.name`, else
 * `metadata.upstream.name`; a name it does not know is "Unknown SNS" and
 * the app cannot sign in. These are its requests, in its order.
 */
test("NodeInfo names Mastodon as the upstream API, as megalodon's detector reads it", async () => {
  const a = await startInstance();
  try {
    const wellKnown = await json(await a.request("/.well-known/nodeinfo"));
    const link = wellKnown.links.find((l: { rel: string }) =>
      l.rel === `${SCHEMA}/2.0` || l.rel === `${SCHEMA}/2.1`
    );
    for (const href of [link.href, `${a.origin}/nodeinfo/2.1`]) {
      const doc = await json(await a.request(href));
      assert.equal(doc.software.name, "rookery", "our own name stays");
      assert.equal(doc.metadata.upstream?.name?.toLowerCase(), "mastodon", href);
      assert.equal(doc.metadata.upstream.version, MASTODON_COMPAT_VERSION, href);
    }
  } finally {
    await a.close({ destroy: true });
  }
});
