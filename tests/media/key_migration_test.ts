/**
 * Migration 0049 (object storage and the remote media cache) on a database
 * written by the previous version: accounts' image URLs become store keys
 * (our own files only) or remote URLs, archives' file names become store
 * keys, card images keep their URL under the new column, and the server
 * then serves what it served before.
 */
import assert from "node:assert/strict";
import { dirname } from "node:path";
import postgres from "postgres";
import { PGlite } from "@electric-sql/pglite";
import { sql } from "drizzle-orm";
import { createTestDatabase, startInstance, test, TEST_DATABASE_URL } from "../harness.ts";
import { storedFile } from "../fixtures/media.ts";
import { image } from "./helpers.ts";

const MIGRATIONS = new URL("../../db/migrations/", import.meta.url);
const THIS_ONE = "0049_object_storage_media_cache";

/** The migrations before this one, as a previous version applied them. */
async function earlierMigrations(): Promise<{ tag: string; text: string }[]> {
  const journal = JSON.parse(
    await Deno.readTextFile(new URL("meta/_journal.json", MIGRATIONS)),
  ) as { entries: { idx: number; tag: string }[] };
  const index = journal.entries.find((e) => e.tag === THIS_ONE)!.idx;
  const earlier = journal.entries.filter((e) => e.idx < index).sort((a, b) => a.idx - b.idx);
  return await Promise.all(earlier.map(async ({ tag }) => ({
    tag,
    text: await Deno.readTextFile(new URL(`${tag}.sql`, MIGRATIONS)),
  })));
}

/** Runs SQL statements on a database of the previous version (PGlite dir or PostgreSQL URL). */
async function withOldDatabase(
  target: { dir: string } | { url: string },
  run: (exec: (statement: string) => Promise<void>) => Promise<void>,
): Promise<void> {
  if ("dir" in target) {
    const pglite = await PGlite.create(target.dir);
    try {
      await run(async (statement) => void await pglite.exec(statement));
    } finally {
      await pglite.close();
    }
  } else {
    const client = postgres(target.url, { max: 1, onnotice: () => {} });
    try {
      await run(async (statement) => void await client.unsafe(statement));
    } finally {
      await client.end();
    }
  }
}

const HEX = "0123456789abcdef".repeat(2);

test("migration 0049: accounts, archives and cards of a previous version", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "rookery-migration-" });
  const database = TEST_DATABASE_URL ? await createTestDatabase() : null;
  const origin = "http://localhost:8080";
  const avatar = `accounts/avatars/100/${HEX}.png`;
  const header = `accounts/headers/100/${HEX}.jpg`;
  const archive = `archive-20260101000000-${HEX}.zip`;
  try {
    await withOldDatabase(
      database ? { url: database.url } : { dir: `${dataDir}/db` },
      async (exec) => {
        await exec(`CREATE TABLE rookery_migrations (
        tag text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
        for (const { tag, text } of await earlierMigrations()) {
          for (const statement of text.split("--> statement-breakpoint")) {
            if (statement.trim()) await exec(statement);
          }
          await exec(`INSERT INTO rookery_migrations (tag) VALUES ('${tag}')`);
        }
        await exec(`INSERT INTO accounts (id, username, domain, uri, avatar_url, header_url) VALUES
        (100, 'alice', NULL, '${origin}/users/alice',
          '${origin}/system/${avatar}', '${origin}/system/${header}'),
        (101, 'bob', NULL, '${origin}/users/bob',
          '${origin}/system/${avatar}', 'https://elsewhere.example/h.png'),
        (200, 'carol', 'remote.example', 'https://remote.example/users/carol',
          'https://cdn.remote.example/a.png', NULL)`);
        await exec(`INSERT INTO users (id, account_id, email, password_hash, confirmed_at)
        VALUES (100, 100, 'alice@example.com', 'x', now())`);
        await exec(`INSERT INTO backups (id, user_id, state, file_key, size)
        VALUES (1, 100, 'done', '${archive}', 3), (2, 100, 'failed', NULL, NULL)`);
        await exec(`INSERT INTO preview_cards (id, url, title, image_url)
        VALUES (300, 'https://page.example/', 'A page', 'https://page.example/og.png')`);
      },
    );
    // The files the previous version wrote, where it wrote them.
    const png = await image("png", 4, 4);
    const zip = new Uint8Array([1, 2, 3]);
    for (const [key, bytes] of [[avatar, png], [`archives/${archive}`, zip]] as const) {
      const file = storedFile(dataDir, key);
      await Deno.mkdir(dirname(file), { recursive: true });
      await Deno.writeFile(file, bytes);
    }

    const instance = await startInstance({
      dataDir,
      memory: false,
      ...(database ? { databaseUrl: database.url } : {}),
    });
    try {
      const { database: db } = instance.rookery.ctx;
      const accounts = await db.rows<Record<string, string | null>>(sql`SELECT id, avatar_key,
        header_key, avatar_remote_url, header_remote_url FROM accounts
        WHERE id IN (100, 101, 200) ORDER BY id`);
      assert.deepEqual(accounts, [
        {
          id: "100",
          avatar_key: avatar,
          header_key: header,
          avatar_remote_url: null,
          header_remote_url: null,
        },
        // Another account's file, or a foreign URL, was never this one's own.
        {
          id: "101",
          avatar_key: null,
          header_key: null,
          avatar_remote_url: null,
          header_remote_url: null,
        },
        {
          id: "200",
          avatar_key: null,
          header_key: null,
          avatar_remote_url: "https://cdn.remote.example/a.png",
          header_remote_url: null,
        },
      ]);
      const archives = await db.rows<{ id: string; file_key: string | null }>(
        sql`SELECT id, file_key FROM backups ORDER BY id`,
      );
      assert.deepEqual(archives, [
        { id: "1", file_key: `archives/${archive}` },
        { id: "2", file_key: null },
      ]);
      const [card] = await db.rows(sql`SELECT image_remote_url, image_key FROM preview_cards`);
      assert.deepEqual(card, { image_remote_url: "https://page.example/og.png", image_key: null });

      // What was served before is served now: the avatar at the same URL, the archive's file.
      const alice = await (await instance.request("/api/v1/accounts/100")).json();
      assert.equal(alice.avatar, `${instance.origin}/system/${avatar}`);
      const res = await instance.request(alice.avatar);
      assert.equal(res.status, 200);
      assert.deepEqual(new Uint8Array(await res.arrayBuffer()), png);
      const stored = await instance.rookery.ctx.media.get(`archives/${archive}`);
      assert.deepEqual(new Uint8Array(await new Response(stored!.body).arrayBuffer()), zip);
      const carol = await (await instance.request("/api/v1/accounts/200")).json();
      // The remote avatar kept its URL: clients get the media proxy's for it.
      assert.equal(
        carol.avatar,
        instance.rookery.ctx.mediaUrls.proxy({ kind: "account", variant: "avatar" }, "200"),
      );
      assert.equal(carol.header, `${instance.origin}/headers/original/missing.png`);
    } finally {
      await instance.close();
    }
  } finally {
    await database?.drop();
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
});
