/**
 * The bundled build gives Fedify the runtime's Temporal where the sources
 * give it @js-temporal/polyfill (process/bundle.ts). Both must read what
 * peers send and write what peers read alike: Fedify's values here are the
 * polyfill's, compared with the runtime's on the same text.
 */
import assert from "node:assert/strict";
import { Note } from "@fedify/vocab";
import { test } from "../harness.ts";

const CONTEXT = "https://www.w3.org/ns/activitystreams";

/** xsd:dateTime as peers write it (Mastodon, Misskey, Pleroma, hand-written JSON). */
const DATES = [
  "2024-01-01T00:00:00Z",
  "2024-01-01T00:00:00.000Z",
  "2024-01-01T00:00:00.5Z",
  "2024-01-01T00:00:00.123456789Z",
  "2024-01-01T00:00:00.123456Z",
  "2024-01-01T09:00:00+09:00",
  "2024-01-01T09:00:00-03:30",
  "2024-01-01T09:00:00+0930",
  "2024-01-01T00:00:00", // no zone: Fedify reads it as UTC
  "2024-01-01T00:00:00.000",
  "2024-01-01t00:00:00z",
  "2024-12-31T23:59:60Z",
  "2024-01-01T00:00:00,5Z",
  "0001-01-01T00:00:00Z",
  "9999-12-31T23:59:59.999Z",
  "-000001-01-01T00:00:00Z",
  "2024-01-01T00:00:00+01:00[Europe/Paris]",
];
/** xsd:duration (as:duration, Fedify's TTLs and retry delays). */
const DURATIONS = [
  "PT1H",
  "PT0S",
  "P1D",
  "PT36H",
  "PT1.5S",
  "PT0.000000001S",
  "PT1.5H",
  "-PT1H",
  "P1DT2H3M4.005S",
];

/** What a value reads as: its text, or the error's kind. */
function text(make: () => { toString(): string }): string {
  try {
    return make().toString();
  } catch (error) {
    return `throws ${(error as Error).name}`;
  }
}

test("peers' dates read alike by the polyfill Fedify decodes with and the runtime's Temporal", async () => {
  const note = await Note.fromJsonLd({
    "@context": CONTEXT,
    type: "Note",
    id: "https://r.example/n/1",
    published: "2024-01-01T00:00:00Z",
  });
  const Polyfill = note.published!.constructor as typeof Temporal.Instant;
  assert.notEqual(Polyfill, Temporal.Instant, "the sources' Fedify runs on the polyfill");
  for (const form of DATES) {
    // What Fedify's xsd:dateTime decoder does (@fedify/vocab): UTC when no zone is given
    // (a lowercase "z" is not seen as one, and the text is refused by both).
    const zoned = /[Z+-]/.test(form.slice(19)) ? form : `${form}Z`;
    const native = text(() => Temporal.Instant.from(zoned));
    assert.equal(text(() => Polyfill.from(zoned)), native, form);
    if (native.startsWith("throws")) continue;
    const read = await Note.fromJsonLd({ "@context": CONTEXT, type: "Note", published: form });
    assert.equal(read.published?.toString(), native, `${form} through Fedify`);
    assert.equal(read.published?.epochNanoseconds, Temporal.Instant.from(zoned).epochNanoseconds);
  }
  for (const bad of ["2024-02-30T00:00:00Z", "2024-01-01T24:00:00Z", "2024-01-01 00:00:00"]) {
    assert.equal(text(() => Polyfill.from(bad)), text(() => Temporal.Instant.from(bad)), bad);
  }
});

test("durations and instants print alike, and Fedify writes a runtime instant as its own", async () => {
  const note = await Note.fromJsonLd({
    "@context": CONTEXT,
    type: "Note",
    duration: "PT1H",
  });
  const Polyfill = note.duration!.constructor as typeof Temporal.Duration;
  for (const form of DURATIONS) {
    assert.equal(text(() => Polyfill.from(form)), text(() => Temporal.Duration.from(form)), form);
    assert.equal(
      Polyfill.from(form).total("millisecond"),
      Temporal.Duration.from(form).total("millisecond"),
      form,
    );
  }
  for (const like of [{ minutes: 10 }, { milliseconds: 300 }, { seconds: 0 }, { days: 1 }]) {
    assert.equal(Polyfill.from(like).toString(), Temporal.Duration.from(like).toString());
  }
  const at = "2024-05-06T07:08:09.123Z";
  const PolyInstant = (await Note.fromJsonLd({ "@context": CONTEXT, published: at }))
    .published!.constructor as typeof Temporal.Instant;
  const fromPolyfill = new Note({
    published: PolyInstant.from(at),
    duration: Polyfill.from("PT90M"),
  });
  const fromRuntime = new Note({
    published: Temporal.Instant.from(at),
    duration: Temporal.Duration.from("PT90M"),
  });
  assert.deepEqual(await fromRuntime.toJsonLd(), await fromPolyfill.toJsonLd());
  assert.equal((await fromRuntime.toJsonLd() as { published: string }).published, at);
});
