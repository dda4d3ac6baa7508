import assert from "node:assert/strict";
import { Hono } from "hono";
import type { AppContext } from "../../context.ts";
import type { ApiEnv } from "../../api/env.ts";
import { installErrorHandlers } from "../../api/errors.ts";
import { buildParams, params, parseQueryString } from "../../api/params.ts";
import {
  readBoolean,
  readFile,
  readInt,
  readObject,
  readObjectList,
  readString,
  readStringArray,
} from "../../api/readers.ts";
import { json, test } from "../harness.ts";

const MAX_BODY = 4096;

/** A bare app with one echo route, so the parser is tested without the product's routes. */
function echoApp(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  installErrorHandlers(app);
  app.use(async (c, next) => {
    c.set("ctx", { config: { limits: { maxBodyBytes: MAX_BODY } } } as unknown as AppContext);
    await next();
  });
  app.all("/echo", async (c) => {
    const p = await params(c);
    // A second call must come from the cache (the body stream is already used).
    assert.equal(await params(c), p);
    const files: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(p)) {
      if (v instanceof File) files[k] = { name: v.name, type: v.type, text: await v.text() };
    }
    return c.json({ params: p, files });
  });
  app.post("/typed", async (c) => {
    const p = await params(c);
    return c.json({
      status: readString(p, "status", { maxLength: 10 }) ?? null,
      sensitive: readBoolean(p, "sensitive") ?? null,
      limit: readInt(p, "limit", { min: 1, max: 40 }) ?? null,
      media_ids: readStringArray(p, "media_ids") ?? null,
      data: readObject(p, "data") ?? null,
      fields: readObjectList(p, "fields_attributes") ?? null,
    });
  });
  return app;
}

async function post(body: BodyInit, headers: Record<string, string> = {}, path = "/echo") {
  return await echoApp().request(path, { method: "POST", body, headers });
}

const FORM = { "content-type": "application/x-www-form-urlencoded" };

test("params: Rails-style keys in a urlencoded body become nested objects and arrays", async () => {
  const body = [
    "status=hello+world",
    "media_ids[]=1",
    "media_ids[]=2",
    "poll[options][]=yes",
    "poll[options][]=no",
    "poll[expires_in]=300",
    "fields_attributes[0][name]=Site",
    "fields_attributes[0][value]=https%3A%2F%2Fexample.com",
    "fields_attributes[1][name]=Pronouns",
    "data[alerts][mention]=true",
    "data[alerts][follow]=false",
    "data[policy]=all",
    "a[][b]=1",
    "a[][c]=2",
    "a[][b]=3",
  ].join("&");
  const res = await post(body, FORM);
  assert.equal(res.status, 200);
  assert.deepEqual((await json(res)).params, {
    status: "hello world",
    media_ids: ["1", "2"],
    poll: { options: ["yes", "no"], expires_in: "300" },
    fields_attributes: {
      "0": { name: "Site", value: "https://example.com" },
      "1": { name: "Pronouns" },
    },
    data: { alerts: { mention: "true", follow: "false" }, policy: "all" },
    a: [{ b: "1", c: "2" }, { b: "3" }],
  });
});

test("params: multipart bodies keep files as File objects next to nested fields", async () => {
  const form = new FormData();
  form.append("description", "a cat");
  form.append("focus[x]", "0.5");
  form.append("focus[y]", "-0.5");
  form.append("tags[]", "a");
  form.append("tags[]", "b");
  form.append("file", new File(["PNGDATA"], "cat.png", { type: "image/png" }));
  const res = await post(form);
  assert.equal(res.status, 200);
  const body = await json(res);
  assert.equal(body.params.description, "a cat");
  assert.deepEqual(body.params.focus, { x: "0.5", y: "-0.5" });
  assert.deepEqual(body.params.tags, ["a", "b"]);
  assert.deepEqual(body.files.file, { name: "cat.png", type: "image/png", text: "PNGDATA" });
});

test("params: JSON bodies keep their types; query strings merge and the body wins", async () => {
  const res = await echoApp().request("/echo?limit=5&types[]=mention&types[]=follow&x=query", {
    method: "POST",
    headers: { "content-type": "application/json; charset=utf-8" },
    body: JSON.stringify({ x: "body", poll: { options: ["a", "b"], multiple: true }, n: 3 }),
  });
  assert.equal(res.status, 200);
  assert.deepEqual((await json(res)).params, {
    limit: "5",
    types: ["mention", "follow"],
    x: "body",
    poll: { options: ["a", "b"], multiple: true },
    n: 3,
  });
});

test("params: GET query strings with nested keys; unknown body types are ignored", async () => {
  const get = await echoApp().request("/echo?exclude_types[]=favourite&data[alerts][poll]=1");
  assert.deepEqual((await json(get)).params, {
    exclude_types: ["favourite"],
    data: { alerts: { poll: "1" } },
  });
  // Rails has no parser for text/plain: the body is not params (and not an error).
  const plain = await post("status=hello", { "content-type": "text/plain" });
  assert.equal(plain.status, 200);
  assert.deepEqual((await json(plain)).params, {});
  // A JSON array is exposed as _json, as Rails does.
  const arr = await post("[1,2]", { "content-type": "application/json" });
  assert.deepEqual((await json(arr)).params, { _json: [1, 2] });
  // An empty JSON body is an empty object.
  const empty = await post("", { "content-type": "application/json" });
  assert.deepEqual((await json(empty)).params, {});
});

test("params: malformed JSON is a 400 in Mastodon's error shape", async () => {
  const res = await post("{not json", { "content-type": "application/json" });
  assert.equal(res.status, 400);
  const body = await json(res);
  assert.match(body.error, /^Error while parsing request/);
});

test("params: malformed multipart is a 400", async () => {
  const res = await post("garbage", { "content-type": "multipart/form-data; boundary=xyz" });
  assert.equal(res.status, 400);
  assert.ok((await json(res)).error);
});

test("params: a body over the limit is a 413, whether or not Content-Length says so", async () => {
  const big = "a=" + "x".repeat(MAX_BODY + 10);
  const declared = await post(big, FORM);
  assert.equal(declared.status, 413);
  assert.deepEqual(await json(declared), { error: "Request entity too large" });
  // A streamed body has no Content-Length: the reader counts.
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < 10; i++) controller.enqueue(new TextEncoder().encode("y".repeat(1000)));
      controller.close();
    },
  });
  const streamed = await echoApp().request("/echo", {
    method: "POST",
    body: stream,
    headers: FORM,
    duplex: "half",
  } as RequestInit);
  assert.equal(streamed.status, 413);
});

test("params: __proto__, constructor and prototype keys are ignored everywhere", async () => {
  const form = await post(
    "__proto__[admin]=1&a[__proto__][admin]=1&constructor[prototype][admin]=1&ok=1",
    FORM,
  );
  assert.equal(form.status, 200);
  assert.deepEqual((await json(form)).params, { ok: "1" });
  const body = await post('{"__proto__":{"admin":true},"a":{"constructor":{"x":1}},"ok":1}', {
    "content-type": "application/json",
  });
  assert.deepEqual((await json(body)).params, { a: {}, ok: 1 });
  assert.equal(({} as Record<string, unknown>).admin, undefined);
  const direct = buildParams([["__proto__[polluted]", "yes"]]);
  assert.equal(Object.getPrototypeOf(direct), Object.prototype);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test("params: excessive depth, key counts and shape conflicts are 400s, never 500s", async () => {
  const deep = "a" + "[b]".repeat(20) + "=1";
  const r1 = await post(deep, FORM);
  assert.equal(r1.status, 400);
  assert.deepEqual(await json(r1), { error: "Parameters are nested too deeply" });

  let nested = "1";
  for (let i = 0; i < 20; i++) nested = `{"a":${nested}}`;
  const r2 = await post(nested, { "content-type": "application/json" });
  assert.equal(r2.status, 400);

  const many = Array.from({ length: 1001 }, (_, i) => `k${i}=1`).join("&");
  const r3 = await echoApp().request(`/echo?${many}`);
  assert.equal(r3.status, 400);
  assert.deepEqual(await json(r3), { error: "Too many parameters" });

  const r4 = await echoApp().request("/echo?a=1&a[b]=2");
  assert.equal(r4.status, 400);

  const r5 = await echoApp().request("/echo?a[]=1&a[b]=2");
  assert.equal(r5.status, 400);

  // Odd keys are kept flat rather than crashing.
  assert.deepEqual(parseQueryString("a[b=1&[x]=2&c]=3"), { "a[b": "1", "c]": "3" });
});

test("readers: Rails truthiness, integers, arrays and 422s on wrong types", async () => {
  const ok = await post(
    "status=hi&sensitive=on&limit=20&media_ids[]=1&media_ids[]=2&data[alerts][mention]=1" +
      "&fields_attributes[1][name]=b&fields_attributes[0][name]=a",
    FORM,
    "/typed",
  );
  assert.equal(ok.status, 200);
  assert.deepEqual(await json(ok), {
    status: "hi",
    sensitive: true,
    limit: 20,
    media_ids: ["1", "2"],
    data: { alerts: { mention: "1" } },
    fields: [{ name: "a" }, { name: "b" }],
  });

  const jsonBody = await post(
    JSON.stringify({ sensitive: false, limit: 3, media_ids: ["9"], fields_attributes: [] }),
    { "content-type": "application/json" },
    "/typed",
  );
  assert.deepEqual(await json(jsonBody), {
    status: null,
    sensitive: false,
    limit: 3,
    media_ids: ["9"],
    data: null,
    fields: [],
  });

  for (const value of ["0", "false", "f", "off", "FALSE"]) {
    const p = parseQueryString(`sensitive=${value}`);
    assert.equal(readBoolean(p, "sensitive"), false, value);
  }
  for (const value of ["1", "true", "on", "t"]) {
    assert.equal(readBoolean(parseQueryString(`s=${value}`), "s"), true, value);
  }
  assert.equal(readBoolean(parseQueryString("s="), "s"), undefined);

  const cases: [string, string][] = [
    ["limit=abc", "Validation failed: Limit is not a number"],
    ["limit=0", "Validation failed: Limit must be greater than or equal to 1"],
    ["limit=41", "Validation failed: Limit must be less than or equal to 40"],
    ["status[x]=1", "Validation failed: Status is invalid"],
    ["status=01234567890", "Validation failed: Status is too long (maximum is 10 characters)"],
    ["sensitive[]=1", "Validation failed: Sensitive is invalid"],
    ["media_ids[][x]=1", "Validation failed: Media ids is invalid"],
    ["data=abc", "Validation failed: Data is invalid"],
  ];
  for (const [body, message] of cases) {
    const res = await post(body, FORM, "/typed");
    assert.equal(res.status, 422, body);
    assert.deepEqual(await json(res), { error: message }, body);
  }
  assert.throws(() => readFile(parseQueryString("file=abc"), "file"));
});

test("params: a NUL byte anywhere is a 400, not a database error later", async () => {
  const cases: [BodyInit, Record<string, string>][] = [
    ["name=a%00b", FORM],
    ["na%00me=x", FORM],
    ['{"name":"a\\u0000b"}', { "content-type": "application/json" }],
    ['{"list":["ok","\\u0000"]}', { "content-type": "application/json" }],
  ];
  for (const [body, headers] of cases) {
    const res = await post(body, headers);
    assert.equal(res.status, 400, `for ${body}`);
    assert.deepEqual(await json(res), { error: "Invalid parameters: null byte" });
  }
  const query = await post("ok=1", FORM, "/echo?q=%00");
  assert.equal(query.status, 400);
});

test("params: JSON integers past 2^53 keep their exact digits (ids sent as numbers)", async () => {
  // Mastodon.py sends ids as JSON numbers; as doubles they would name other statuses.
  const res = await post(
    '{"in_reply_to_id":113456789012345678,"home":{"last_read_id":113456789012345678},' +
      '"media_ids":[113456789012345679],"neg":-9007199254740993,"limit":40,"f":1.5,"e":1e300}',
    { "content-type": "application/json" },
  );
  assert.equal(res.status, 200);
  assert.deepEqual((await json(res)).params, {
    in_reply_to_id: "113456789012345678",
    home: { last_read_id: "113456789012345678" },
    media_ids: ["113456789012345679"],
    neg: "-9007199254740993",
    limit: 40,
    f: 1.5,
    e: 1e300,
  });
});

test("params: a multipart file part with an empty filename is no parameter, as in Rack", async () => {
  // What an app sends for a file field it leaves empty: filename="" and no bytes.
  const body = [
    "--X",
    'Content-Disposition: form-data; name="display_name"',
    "",
    "Name",
    "--X",
    'Content-Disposition: form-data; name="avatar"; filename=""',
    "Content-Type: application/octet-stream",
    "",
    "",
    "--X",
    'Content-Disposition: form-data; name="header"',
    "",
    "",
    "--X",
    'Content-Disposition: form-data; name="file"; filename="empty.txt"',
    "",
    "",
    "--X--",
    "",
  ].join("\r\n");
  const res = await post(body, { "content-type": "multipart/form-data; boundary=X" });
  assert.equal(res.status, 200);
  const out = await json(res);
  assert.deepEqual(Object.keys(out.params), ["display_name", "header", "file"]);
  assert.equal(out.params.header, "");
  // A named file stays a file, even empty: the route decides what an empty upload means.
  assert.deepEqual(out.files.file, {
    name: "empty.txt",
    type: "application/octet-stream",
    text: "",
  });
});
