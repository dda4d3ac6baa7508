/**
 * Fake machine translation servers on loopback for the translation tests:
 * a LibreTranslate and a DeepL that translate a few English words into
 * German, leave what is marked `translate="no"` alone (as the real ones do),
 * and record every request.
 */

/** Words the fakes know. */
const GERMAN: Record<string, string> = {
  Hello: "Hallo",
  world: "Welt",
  cat: "Katze",
  warning: "Warnung",
  Yes: "Ja",
  No: "Nein",
  again: "wieder",
};

const VOID_TAGS = new Set(["br", "img", "hr"]);

/** Translates the text of `html` word by word, outside elements marked translate="no". */
export function fakeGerman(html: string): string {
  const stack: boolean[] = [];
  return html.split(/(<[^>]*>)/).map((part) => {
    if (part.startsWith("</")) {
      stack.pop();
      return part;
    }
    if (part.startsWith("<")) {
      const name = /^<([a-z0-9]+)/i.exec(part)?.[1].toLowerCase() ?? "";
      if (!VOID_TAGS.has(name) && !part.endsWith("/>")) {
        stack.push((stack.at(-1) ?? false) || /\btranslate="no"/.test(part));
      }
      return part;
    }
    if (stack.at(-1)) return part;
    return part.replace(/[A-Za-z]+/g, (word) => GERMAN[word] ?? word);
  }).join("");
}

/** A recorded request. */
export interface Recorded {
  method: string;
  path: string;
  headers: Headers;
  /** The JSON body, or the form's fields (every value a list). */
  body: any;
}

/**
 * A running fake, its URL and what it received; `mode` changes how it
 * answers: normally, with a body that is not JSON, or with that HTTP status.
 */
export interface FakeTranslator {
  url: string;
  calls: Recorded[];
  mode: "ok" | "garbage" | number;
  /** Calls to `path` so far. */
  count(path: string): number;
  close(): Promise<void>;
}

async function start(
  handle: (request: Request, recorded: Recorded) => Response | Promise<Response>,
): Promise<FakeTranslator> {
  const { promise, resolve } = Promise.withResolvers<number>();
  let closing: Promise<void> | null = null;
  const fake: FakeTranslator = {
    url: "",
    calls: [],
    mode: "ok",
    count: (path) => fake.calls.filter((c) => c.path === path).length,
    close: () => closing ??= server.shutdown(),
  };
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen: ({ port }) => resolve(port) },
    async (request) => {
      const url = new URL(request.url);
      const type = request.headers.get("content-type") ?? "";
      const text = await request.text();
      let body: any = null;
      if (type.includes("json") && text) body = JSON.parse(text);
      if (type.includes("x-www-form-urlencoded")) {
        body = {};
        for (const [k, v] of new URLSearchParams(text)) (body[k] ??= []).push(v);
      }
      const recorded = {
        method: request.method,
        path: url.pathname,
        headers: request.headers,
        body,
      };
      fake.calls.push(recorded);
      if (typeof fake.mode === "number") return new Response("no", { status: fake.mode });
      if (fake.mode === "garbage") return new Response("<html>not json</html>");
      return await handle(request, recorded);
    },
  );
  fake.url = `http://127.0.0.1:${await promise}`;
  return fake;
}

/** A LibreTranslate: English → de, es, fr, pt; German → English. */
export function startFakeLibreTranslate(): Promise<FakeTranslator> {
  return start((request, recorded) => {
    const path = new URL(request.url).pathname;
    if (path === "/languages") {
      return Response.json([
        { code: "en", name: "English", targets: ["de", "en", "es", "fr", "pt"] },
        { code: "de", name: "German", targets: ["de", "en"] },
      ]);
    }
    if (path === "/translate" && request.method === "POST") {
      const q: string[] = recorded.body.q;
      return Response.json({
        translatedText: q.map(fakeGerman),
        ...(recorded.body.source === "auto"
          ? { detectedLanguage: q.map(() => ({ confidence: 90, language: "en" })) }
          : {}),
      });
    }
    return new Response("not found", { status: 404 });
  });
}

/** A DeepL v2 API. */
export function startFakeDeepL(): Promise<FakeTranslator> {
  return start((request, recorded) => {
    const url = new URL(request.url);
    if (url.pathname === "/v2/languages") {
      return Response.json(
        url.searchParams.get("type") === "source"
          ? [{ language: "EN", name: "English" }, { language: "DE", name: "German" }]
          : [
            { language: "DE", name: "German" },
            { language: "EN-GB", name: "English (British)" },
            { language: "PT-BR", name: "Portuguese (Brazilian)" },
          ],
      );
    }
    if (url.pathname === "/v2/translate") {
      return Response.json({
        translations: (recorded.body.text as string[]).map((t) => ({
          detected_source_language: "EN",
          text: fakeGerman(t),
        })),
      });
    }
    return new Response("not found", { status: 404 });
  });
}
