/**
 * Hostile uploads: SVG and HTML dressed as PNG or JPEG (by declared type and
 * file name) are refused, as media and as avatars; an image with a script
 * appended is re-encoded, so none of it is served; file names with `../`
 * or NUL never shape a stored path. Every file we serve (attachments,
 * avatars, the server's own images) says `nosniff` and carries a sandboxing
 * Content-Security-Policy, so a browser never runs it as a document.
 */
import assert from "node:assert/strict";
import { json, startInstance, test, type TestInstance } from "../harness.ts";
import { callJson } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { form, image, upload } from "../media/helpers.ts";

const INVALID = "Validation failed: File content type is invalid, File is invalid";

const SVG = new TextEncoder().encode(
  '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)">' +
    "<script>alert(2)</script><rect width='10' height='10'/></svg>",
);
const HTML = new TextEncoder().encode(
  "<!doctype html><html><body><script>alert(document.cookie)</script></body></html>",
);

/** The answer for one of our file URLs, with the headers that keep it inert checked. */
async function served(a: TestInstance, url: string): Promise<Uint8Array> {
  const res = await a.request(url);
  assert.equal(res.status, 200, url);
  assert.equal(res.headers.get("x-content-type-options"), "nosniff", url);
  const csp = res.headers.get("content-security-policy") ?? "";
  assert.match(csp, /default-src 'none'/, url);
  assert.match(csp, /sandbox/, url);
  assert.match(res.headers.get("content-type") ?? "", /^image\//, url);
  return new Uint8Array(await res.arrayBuffer());
}

test("uploads: disguised documents refused, names ignored, files served inert", async (t) => {
  const a = await startInstance();
  try {
    const mallory = await createUser(a, "mallory");

    await t.step("SVG and HTML dressed as images are refused as media", async () => {
      for (
        const [bytes, type, name] of [
          [SVG, "image/png", "cat.png"],
          [SVG, "image/jpeg", "cat.jpg"],
          [SVG, "image/svg+xml", "cat.svg"],
          [HTML, "image/jpeg", "cat.jpg"],
          [HTML, "image/png", "cat.html"],
          [HTML, "text/html", "cat.png"],
        ] as const
      ) {
        const res = await upload(a, mallory.token, form({ bytes, type, name }));
        const body = await json(res);
        assert.equal(res.status, 422, `${type} ${name}: ${JSON.stringify(body)}`);
        assert.equal(body.error, INVALID);
      }
    });

    await t.step("and as avatars or headers", async () => {
      for (const field of ["avatar", "header"]) {
        for (const [bytes, type] of [[SVG, "image/png"], [HTML, "image/jpeg"]] as const) {
          const body = new FormData();
          body.append(field, new File([bytes], "me.png", { type }));
          const res = await a.request("/api/v1/accounts/update_credentials", {
            method: "PATCH",
            headers: { Authorization: `Bearer ${mallory.token}` },
            body,
          });
          const out = await json(res);
          assert.equal(res.status, 422, `${field} ${type}: ${JSON.stringify(out)}`);
        }
      }
      const me = await callJson(a, mallory, "GET", "/api/v1/accounts/verify_credentials");
      assert.match(me.body.avatar, /missing\.png$/);
    });

    await t.step("a script appended to a real image is not served back", async () => {
      const png = await image("png", 20, 20);
      const polyglot = new Uint8Array([...png, ...HTML]);
      const res = await upload(
        a,
        mallory.token,
        form({ bytes: polyglot, type: "image/png", name: "../../x.html.png" }),
      );
      const media = await json(res);
      assert.equal(res.status, 200, JSON.stringify(media));
      for (const url of [media.url, media.preview_url]) {
        assert.match(url, /\/system\/media_attachments\/files\/(\d{3}\/){7}\w+-[0-9a-f]{16}\.png$/);
        const bytes = await served(a, url);
        assert.ok(!new TextDecoder("latin1").decode(bytes).includes("<script"), url);
      }
    });

    await t.step("file names with ../ or NUL never shape the stored path", async () => {
      for (
        const name of [
          "../../../etc/passwd",
          "a\u0000b.png",
          "x.png\u0000.html",
          "..\\..\\boot.ini",
          "%2e%2e%2fx",
        ]
      ) {
        const res = await upload(
          a,
          mallory.token,
          form({ bytes: await image("jpeg", 8, 8), type: "image/jpeg", name }),
        );
        const media = await json(res);
        if (res.status === 400) {
          // The multipart parser refuses a NUL in a file name outright: fine too.
          assert.ok(name.includes("\u0000"), name);
          assert.match(media.error, /malformed multipart/);
          continue;
        }
        assert.equal(res.status, 200, `${JSON.stringify(name)}: ${JSON.stringify(media)}`);
        assert.match(
          media.url,
          /\/system\/media_attachments\/files\/(\d{3}\/){7}original-[0-9a-f]{16}\.jpe?g$/,
        );
        await served(a, media.url);
      }
    });

    await t.step("avatars and the server's own images are served inert too", async () => {
      const body = new FormData();
      body.append(
        "avatar",
        new File([await image("png", 64, 64)], "../a.png", { type: "image/png" }),
      );
      const res = await a.request("/api/v1/accounts/update_credentials", {
        method: "PATCH",
        headers: { Authorization: `Bearer ${mallory.token}` },
        body,
      });
      const me = await json(res);
      assert.equal(res.status, 200, JSON.stringify(me));
      await served(a, me.avatar);
      for (const path of ["/avatars/original/missing.png", "/headers/original/missing.png"]) {
        await served(a, new URL(path, a.origin).href);
      }
    });
  } finally {
    await a.close({ destroy: true });
  }
});
