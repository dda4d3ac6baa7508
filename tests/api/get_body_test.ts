/**
 * Parameters in the body of a GET, as Mastodon.py sends familiar_followers
 * (`requests.get(url, json={"id": [...]})`), read as Rails reads them.
 * Deno's fetch refuses a body on GET, so the requests are written by hand on
 * a TCP connection to the listening server, as a Python client writes them.
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { fixtures } from "../accounts_read/helpers.ts";

/** One HTTP/1.1 exchange on a fresh connection: status and parsed JSON body. */
async function rawGet(
  origin: string,
  path: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; body: any }> {
  const url = new URL(origin);
  const conn = await Deno.connect({ hostname: url.hostname, port: Number(url.port) });
  const bytes = new TextEncoder().encode(body);
  const head = [
    `GET ${path} HTTP/1.1`,
    `Host: ${url.host}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    `Content-Length: ${bytes.length}`,
    "Connection: close",
    "",
    "",
  ].join("\r\n");
  await conn.write(new TextEncoder().encode(head));
  await conn.write(bytes);
  const answer = new TextDecoder().decode(
    await new Response(conn.readable).arrayBuffer(),
  );
  const status = answer.slice(0, answer.indexOf("\r\n")).split(" ")[1];
  const raw = answer.slice(answer.indexOf("\r\n\r\n") + 4);
  // The server may answer chunked: take the JSON between the first { or [ and the last } or ].
  const start = raw.search(/[[{]/);
  const end = Math.max(raw.lastIndexOf("}"), raw.lastIndexOf("]"));
  return {
    status: Number(status),
    body: start === -1 ? null : JSON.parse(raw.slice(start, end + 1)),
  };
}

test("a GET's JSON or form body counts as its parameters (Mastodon.py's familiar_followers)", async (t) => {
  const instance = await startInstance({ listen: true, worker: false });
  try {
    const f = fixtures(instance);
    const me = await f.user("me");
    const friend = await f.user("friend");
    const target = await f.user("target");
    const other = await f.user("other");
    await f.follow(me.accountId, friend.accountId);
    await f.follow(friend.accountId, target.accountId);
    const token = await me.token(["read:follows"]);
    const auth = { authorization: `Bearer ${token}` };
    const path = "/api/v1/accounts/familiar_followers";
    const ids = (body: any[]) => body.map((e) => [e.id, e.accounts.map((a: any) => a.id)]);

    await t.step("a JSON body, exactly as Mastodon.py sends it", async () => {
      const got = await rawGet(instance.origin, path, {
        ...auth,
        "Content-Type": "application/json",
        "User-Agent": "python-requests/2.28.1",
      }, JSON.stringify({ id: [target.accountId] }));
      assert.equal(got.status, 200, JSON.stringify(got.body));
      assert.deepEqual(ids(got.body), [[target.accountId, [friend.accountId]]]);
    });

    await t.step("a form body; the body wins over the query string, as in Rails", async () => {
      const got = await rawGet(
        instance.origin,
        `${path}?id[]=${other.accountId}`,
        { ...auth, "Content-Type": "application/x-www-form-urlencoded" },
        `id[]=${target.accountId}`,
      );
      assert.equal(got.status, 200, JSON.stringify(got.body));
      assert.deepEqual(ids(got.body), [[target.accountId, [friend.accountId]]]);
    });

    await t.step("a body of another type is ignored, as Rails ignores it", async () => {
      const got = await rawGet(instance.origin, `${path}?id[]=${other.accountId}`, {
        ...auth,
        "Content-Type": "text/plain",
      }, `id[]=${target.accountId}`);
      assert.equal(got.status, 200);
      assert.deepEqual(ids(got.body), [[other.accountId, []]]);
    });

    await t.step("malformed JSON is a 400, as in a POST", async () => {
      const got = await rawGet(instance.origin, path, {
        ...auth,
        "Content-Type": "application/json",
      }, '{"id": [');
      assert.equal(got.status, 400);
      assert.match(got.body.error, /Error while parsing request/);
    });
  } finally {
    await instance.close({ destroy: true });
  }
});
