/**
 * Translating statuses (POST /api/v1/statuses/:id/translate), the languages
 * on offer (/api/v1/instance/translation_languages) and the instance's
 * `configuration.translation`, against fake LibreTranslate and DeepL
 * servers on loopback (translate_fakes.ts).
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { mediaAttachments, users } from "../../db/schema/mod.ts";
import { ConfigError, loadConfig } from "../../config.ts";
import { startInstance, test } from "../harness.ts";
import { type Caller, callJson, ok, postStatus } from "../fixtures/api.ts";
import { mediaRow } from "../fixtures/media.ts";
import { createUser } from "../fixtures/users.ts";
import { deeplBackend } from "../../actors/translation/deepl.ts";
import { TranslationUnavailableError } from "../../actors/translation/backend.ts";
import { pickLanguages } from "../../actors/translation/service.ts";
import { createAccessToken, createApplication } from "../../actors/oauth/tokens.ts";
import {
  assembleTranslation,
  sourceTexts,
  type TranslationSource,
} from "../../actors/translation/source.ts";
import { fakeGerman, startFakeDeepL, startFakeLibreTranslate } from "./translate_fakes.ts";

const NOT_ALLOWED = { error: "This action is not allowed" };
const UNAVAILABLE = { error: "Service Unavailable" };

test("translation through a LibreTranslate server, and without one", async (t) => {
  const fake = await startFakeLibreTranslate();
  const a = await startInstance({
    env: { TRANSLATION_URL: `${fake.url}/`, TRANSLATION_API_KEY: "sekrit" },
  });
  const off = await startInstance();
  try {
    const alice = await createUser(a, "alice");
    const bob = await createUser(a, "bob");
    const translate = (who: Caller, id: string, lang?: string) =>
      callJson(
        a,
        who,
        "POST",
        `/api/v1/statuses/${id}/translate`,
        lang ? { lang } : undefined,
      );

    await t.step("the instance offers the backend's languages", async () => {
      const v2 = await ok(a, null, "GET", "/api/v2/instance");
      assert.deepEqual(v2.configuration.translation, { enabled: true });
      const languages = await ok(a, null, "GET", "/api/v1/instance/translation_languages");
      assert.deepEqual(languages, {
        en: ["de", "es", "fr", "pt"],
        de: ["en"],
        und: ["de", "en", "es", "fr", "pt"],
      });
      // Kept: a second look asks the backend nothing.
      await ok(a, null, "GET", "/api/v1/instance/translation_languages");
      assert.equal(fake.count("/languages"), 1);
    });

    const poll = await postStatus(a, alice, {
      status: "Hello world @bob #cat",
      spoiler_text: "warning",
      language: "en",
      poll: { options: ["Yes", "No"], expires_in: 3600 },
    });

    await t.step("content, content warning and poll options are translated", async () => {
      const res = await translate(bob, poll.id, "de");
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const body = res.body;
      assert.deepEqual(Object.keys(body).sort(), [
        "content",
        "detected_source_language",
        "language",
        "media_attachments",
        "poll",
        "provider",
        "spoiler_text",
      ]);
      assert.match(body.content, /^<p>Hallo Welt /);
      // The mention and the hashtag are left alone.
      assert.match(body.content, /@<span>bob<\/span><\/a>/);
      assert.match(body.content, /#<span>cat<\/span><\/a>/);
      assert.equal(body.spoiler_text, "Warnung");
      assert.deepEqual(body.poll, {
        id: poll.poll.id,
        options: [{ title: "Ja" }, { title: "Nein" }],
      });
      assert.deepEqual(body.media_attachments, []);
      assert.equal(body.detected_source_language, "en");
      assert.equal(body.language, "de");
      assert.equal(body.provider, "LibreTranslate");

      // What the backend got: Mastodon's call, all texts at once.
      const [call] = fake.calls.filter((c) => c.path === "/translate");
      assert.equal(call.method, "POST");
      assert.deepEqual(
        { ...call.body, q: undefined },
        { q: undefined, source: "en", target: "de", format: "html", api_key: "sekrit" },
      );
      assert.equal(call.body.q.length, 4);
      assert.match(call.body.q[0], /class="mention hashtag"[^>]* translate="no"/);
      assert.deepEqual(call.body.q.slice(1), ["warning", "Yes", "No"]);
      assert.equal(call.headers.get("user-agent")?.startsWith("Rookery/"), false);
    });

    await t.step("a translation is kept per status and language", async () => {
      const before = fake.count("/translate");
      const again = await translate(bob, poll.id, "de");
      assert.equal(again.status, 200);
      assert.equal(again.body.spoiler_text, "Warnung");
      // Another reader, same language: still no request.
      assert.equal((await translate(alice, poll.id, "de")).status, 200);
      assert.equal(fake.count("/translate"), before);
      // Another language is another translation.
      const french = await translate(bob, poll.id, "fr");
      assert.equal(french.body.language, "fr");
      assert.equal(fake.count("/translate"), before + 1);
    });

    const mediaId = await mediaRow(a, alice);
    await a.rookery.ctx.database.db.update(mediaAttachments)
      .set({ description: "a cat <3 & world" }).where(eq(mediaAttachments.id, mediaId));
    const withMedia = await postStatus(a, alice, {
      status: "Hello cat",
      language: "en",
      media_ids: [mediaId],
    });

    await t.step("media descriptions are translated; an edit translates again", async () => {
      const first = await translate(bob, withMedia.id, "de");
      assert.equal(first.status, 200);
      assert.equal(first.body.content, "<p>Hallo Katze</p>");
      // Sent as escaped text, back as plain text.
      assert.deepEqual(first.body.media_attachments, [
        { id: mediaId, description: "a Katze <3 & Welt" },
      ]);
      assert.equal(first.body.poll, null);
      const sent = fake.calls.filter((c) => c.path === "/translate").at(-1)!;
      assert.deepEqual(sent.body.q, ["<p>Hello cat</p>", "a cat &lt;3 &amp; world"]);
      const before = fake.count("/translate");
      await translate(bob, withMedia.id, "de");
      assert.equal(fake.count("/translate"), before);

      await ok(a, alice, "PUT", `/api/v1/statuses/${withMedia.id}`, {
        status: "Hello world again",
        language: "en",
        media_ids: [mediaId],
      });
      const edited = await translate(bob, withMedia.id, "de");
      assert.equal(edited.status, 200);
      assert.equal(edited.body.content, "<p>Hallo Welt wieder</p>");
      assert.equal(fake.count("/translate"), before + 1);
    });

    await t.step(
      "the target language: lang, else the user's locale; regions fall back",
      async () => {
        // English into English: nothing to do, as Mastodon answers.
        assert.deepEqual((await translate(bob, withMedia.id, "en")).body, NOT_ALLOWED);
        assert.equal((await translate(bob, withMedia.id, "en")).status, 403);
        // Not a language the backend offers for English.
        assert.equal((await translate(bob, withMedia.id, "ja")).status, 403);
        // pt-BR is not listed, pt is.
        const pt = await translate(bob, withMedia.id, "pt-BR");
        assert.equal(pt.status, 200);
        assert.equal(pt.body.language, "pt");
        // No lang (or junk): the user's locale.
        await a.rookery.ctx.database.db.update(users).set({ locale: "es" })
          .where(eq(users.id, bob.userId));
        const spanish = await translate(bob, withMedia.id, "<script>");
        assert.equal(spanish.status, 200);
        assert.equal(spanish.body.language, "es");
        assert.equal((await translate(bob, withMedia.id)).body.language, "es");
      },
    );

    await t.step("private, direct, hidden and unknown statuses", async () => {
      const priv = await postStatus(a, alice, {
        status: "Hello private",
        visibility: "private",
        language: "en",
      });
      const dm = await postStatus(a, alice, {
        status: "Hello @bob",
        visibility: "direct",
        language: "en",
      });
      const before = fake.count("/translate");
      // The author sees her private status, but it is not translated.
      const own = await translate(alice, priv.id, "de");
      assert.equal(own.status, 403);
      assert.deepEqual(own.body, NOT_ALLOWED);
      const direct = await translate(bob, dm.id, "de");
      assert.equal(direct.status, 403);
      assert.deepEqual(direct.body, NOT_ALLOWED);
      // Bob does not follow alice: her private status is not there for him.
      const hidden = await translate(bob, priv.id, "de");
      assert.equal(hidden.status, 404);
      assert.deepEqual(hidden.body, { error: "Record not found" });
      assert.equal((await translate(bob, "99999999", "de")).status, 404);
      assert.equal((await translate(bob, "junk", "de")).status, 404);
      assert.equal(fake.count("/translate"), before);
      // A user's token is needed, with read:statuses.
      assert.equal((await translate(null, poll.id, "de")).status, 401);
      const writeOnly = await createUser(a, "writer", { scopes: ["write"] });
      assert.equal((await translate(writeOnly, poll.id, "de")).status, 403);
      // An app's own token (no user) is refused, as Mastodon's require_user!.
      const { db } = a.rookery.ctx.database;
      const { application } = await createApplication(db, {
        name: "app only",
        redirectUris: ["urn:ietf:wg:oauth:2.0:oob"],
        scopes: ["read"],
      });
      const appToken = await createAccessToken(db, {
        applicationId: application.id,
        userId: null,
        scopes: ["read"],
      });
      const appOnly = await translate(appToken.token, poll.id, "de");
      assert.equal(appOnly.status, 422);
      assert.deepEqual(appOnly.body, { error: "This method requires an authenticated user" });
    });

    await t.step("a boost is translated as the status it boosts", async () => {
      const boost = await ok(a, bob, "POST", `/api/v1/statuses/${poll.id}/reblog`);
      const res = await translate(bob, boost.id, "de");
      assert.equal(res.status, 200);
      assert.equal(res.body.spoiler_text, "Warnung");
    });

    await t.step("a backend that fails is 503; what was kept is still served", async () => {
      const fresh = await postStatus(a, alice, { status: "Hello", language: "en" });
      fake.mode = 500;
      assert.deepEqual((await translate(bob, fresh.id, "de")).body, UNAVAILABLE);
      // LibreTranslate's 403 and 429: Mastodon's own words.
      fake.mode = 403;
      const quota = await translate(bob, fresh.id, "de");
      assert.equal(quota.status, 503);
      assert.deepEqual(quota.body, {
        error: "The server-wide usage quota for the translation service has been exceeded.",
      });
      fake.mode = 429;
      assert.deepEqual((await translate(bob, fresh.id, "de")).body, {
        error: "There have been too many requests to the translation service recently.",
      });
      fake.mode = "garbage";
      const garbage = await translate(bob, fresh.id, "de");
      assert.equal(garbage.status, 503);
      assert.deepEqual(garbage.body, UNAVAILABLE);
      fake.mode = "ok";
      await fake.close();
      const down = await translate(bob, fresh.id, "de");
      assert.equal(down.status, 503);
      assert.deepEqual(down.body, UNAVAILABLE);
      assert.equal((await translate(bob, poll.id, "de")).status, 200);
    });

    await t.step("without a backend, translation is disabled", async () => {
      const v2 = await ok(off, null, "GET", "/api/v2/instance");
      assert.deepEqual(v2.configuration.translation, { enabled: false });
      assert.deepEqual(await ok(off, null, "GET", "/api/v1/instance/translation_languages"), {});
      const carol = await createUser(off, "carol");
      const status = await postStatus(off, carol, { status: "Hello", language: "en" });
      const res = await callJson(off, carol, "POST", `/api/v1/statuses/${status.id}/translate`, {
        lang: "de",
      });
      assert.equal(res.status, 403);
      assert.deepEqual(res.body, NOT_ALLOWED);
    });
  } finally {
    await fake.close().catch(() => {});
    await a.close({ destroy: true });
    await off.close({ destroy: true });
  }
});

test("a backend that is down: the languages are 503 too", async () => {
  // A port that was listening a moment ago and is closed now.
  const gone = await startFakeLibreTranslate();
  await gone.close();
  const a = await startInstance({ env: { TRANSLATION_URL: gone.url }, worker: false });
  try {
    const v2 = await ok(a, null, "GET", "/api/v2/instance");
    assert.deepEqual(v2.configuration.translation, { enabled: true });
    const res = await callJson(a, null, "GET", "/api/v1/instance/translation_languages");
    assert.equal(res.status, 503);
    assert.deepEqual(res.body, UNAVAILABLE);
    const alice = await createUser(a, "alice");
    const status = await postStatus(a, alice, { status: "Hello", language: "en" });
    const translated = await callJson(
      a,
      alice,
      "POST",
      `/api/v1/statuses/${status.id}/translate`,
      { lang: "de" },
    );
    assert.equal(translated.status, 503);
    assert.deepEqual(translated.body, UNAVAILABLE);
  } finally {
    await a.close({ destroy: true });
  }
});

test("DeepL: Mastodon's calls and language list", async () => {
  const fake = await startFakeDeepL();
  try {
    const deepl = deeplBackend({ apiKey: "k3y", baseUrl: fake.url, timeoutMs: 5000 });
    const languages = await deepl.languages();
    assert.deepEqual(languages.get("en"), ["pt", "de", "en-GB", "pt-BR"]);
    assert.deepEqual(languages.get("de"), ["en", "pt", "en-GB", "pt-BR"]);
    assert.deepEqual(languages.get(null), ["en", "pt", "de", "en-GB", "pt-BR"]);
    const answers = await deepl.translate(["<p>Hello world</p>", "cat"], "en", "de");
    assert.deepEqual(answers.map((a) => a.text), ["<p>Hallo Welt</p>", "Katze"]);
    assert.equal(answers[0].detectedSourceLanguage, "en");
    assert.equal(answers[0].provider, "DeepL.com");
    const call = fake.calls.find((c) => c.path === "/v2/translate")!;
    assert.equal(call.headers.get("authorization"), "DeepL-Auth-Key k3y");
    assert.deepEqual(call.body, {
      text: ["<p>Hello world</p>", "cat"],
      source_lang: ["EN"],
      target_lang: ["de"],
      tag_handling: ["html"],
    });
    fake.mode = 456;
    await assert.rejects(
      deepl.translate(["x"], null, "de"),
      (error) => error instanceof TranslationUnavailableError && error.reason === "quota",
    );
  } finally {
    await fake.close();
  }
});

test("custom emoji shortcodes are kept out of translation, in text only", () => {
  const source: TranslationSource = {
    statusId: "1",
    visibility: "public",
    language: "en",
    content: '<p>Hello :blobcat: <a href="https://x.example/:blobcat:/">cat</a> :unknown:</p>',
    spoilerText: "cat :blobcat:",
    pollOptions: null,
    media: [{ id: "7", description: null }],
    emojiShortcodes: ["blobcat"],
  };
  const prepared = sourceTexts(source);
  assert.deepEqual(prepared.texts, [
    '<p>Hello <span translate="no">:blobcat:</span> <a href="https://x.example/:blobcat:/">cat</a> :unknown:</p>',
    'cat <span translate="no">:blobcat:</span>',
  ]);
  const answers = prepared.texts.map((text) => ({
    text: fakeGerman(text),
    detectedSourceLanguage: "en",
    provider: "LibreTranslate",
  }));
  const translation = assembleTranslation(source, prepared, answers, "LibreTranslate");
  assert.equal(
    translation.content,
    '<p>Hallo :blobcat: <a href="https://x.example/:blobcat:/" rel="nofollow noopener" target="_blank">Katze</a> :unknown:</p>',
  );
  assert.equal(translation.spoilerText, "Katze :blobcat:");
  // An attachment without a description is listed, with nothing translated.
  assert.deepEqual(translation.media, [{ id: "7", description: "" }]);
});

test("configuration: TRANSLATION_URL, Mastodon's names, DeepL first, bad values refused", () => {
  assert.equal(loadConfig({}).translation, null);
  assert.deepEqual(
    loadConfig({ TRANSLATION_URL: "http://127.0.0.1:5000//", TRANSLATION_API_KEY: "k" })
      .translation,
    { kind: "libretranslate", url: "http://127.0.0.1:5000", apiKey: "k", timeoutMs: 15_000 },
  );
  assert.deepEqual(
    loadConfig({
      LIBRE_TRANSLATE_ENDPOINT: "https://lt.example",
      LIBRE_TRANSLATE_API_KEY: "m",
      TRANSLATION_TIMEOUT: "3",
    }).translation,
    { kind: "libretranslate", url: "https://lt.example", apiKey: "m", timeoutMs: 3_000 },
  );
  assert.deepEqual(
    loadConfig({ TRANSLATION_URL: "https://lt.example", DEEPL_API_KEY: "d", DEEPL_PLAN: "pro" })
      .translation,
    { kind: "deepl", apiKey: "d", plan: "pro", timeoutMs: 15_000 },
  );
  for (
    const bad of [
      { TRANSLATION_URL: "not a url" },
      { TRANSLATION_URL: "ftp://lt.example" },
      { DEEPL_API_KEY: "d", DEEPL_PLAN: "gold" },
      { TRANSLATION_TIMEOUT: "0" },
    ]
  ) {
    assert.throws(() => loadConfig(bad), ConfigError, JSON.stringify(bad));
  }
});

test("languages: a regional source or target falls back to its language", () => {
  const map = new Map<string | null, string[]>([
    ["en", ["de", "pt", "en-GB"]],
    ["pt", ["en"]],
    [null, ["de", "en", "pt"]],
  ]);
  assert.deepEqual(pickLanguages(map, "pt-BR", "en"), { source: "pt", target: "en" });
  assert.deepEqual(pickLanguages(map, "en", "pt-BR"), { source: "en", target: "pt" });
  assert.deepEqual(pickLanguages(map, "en", "en-GB"), { source: "en", target: "en-GB" });
  assert.deepEqual(pickLanguages(map, null, "en"), { source: null, target: "en" });
  assert.equal(pickLanguages(map, "en", "en"), null);
  assert.equal(pickLanguages(map, "ja", "en"), null);
  assert.equal(pickLanguages(map, "en", "ja"), null);
});
