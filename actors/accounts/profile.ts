/**
 * Updating one's own profile (`update_credentials`) and removing its images,
 * as Mastodon's UpdateAccountService with the user's posting settings.
 *
 * All or nothing: every value is checked and every image processed before
 * anything is written; the account and its settings change in one
 * transaction; images written for a change that then fails are deleted, and
 * replaced or removed images are discarded in that transaction and deleted
 * from the media store only after the commit (actors/media/discarded.ts). Followers' servers get
 * an Update of the actor, recorded in the same transaction (actors/outbox/deliveries.ts).
 */
import { quoteWordChanged } from "./interaction_defaults.ts";
import { eq } from "drizzle-orm";
import ISO6391 from "iso-639-1";
import type { AppContext } from "../../context.ts";
import { accounts, users } from "../../db/schema/mod.ts";
import { NotFoundError, Problems } from "../../model/errors.ts";
import { recordDelivery } from "../outbox/deliveries.ts";
import { newId } from "../../db/ids.ts";
import { mentionTargets, resolveMentionAccounts } from "../formatting/mentions.ts";
import { linkLocalEmojis } from "../emoji/links.ts";
import { CHARACTERS_PER_URL, type ParsedText, parseText } from "../formatting/parsed_text.ts";
import { type MentionTarget, textToHtml } from "../formatting/text_to_html.ts";
import {
  ImageRejected,
  type ProcessedImage,
  processProfileImage,
  type ProfileImageKind,
  storeProfileImage,
} from "../media/profile_media.ts";
import { ownProfileImageKey } from "../media/store/keys.ts";
import { discardMediaFiles, flushDiscardedMedia } from "../media/discarded.ts";
import { type FieldSource, PRIVACY_VALUES, type UserSettings } from "../../model/user_settings.ts";
import { QUOTE_POLICIES } from "../../model/quote_policy.ts";
import {
  checkProfileDisplay,
  descriptionColumnOf,
  profileDisplayChanges,
  type ProfileDisplayUpdate,
} from "./profile_display.ts";

/** Mastodon's limits on profile text. */
export const PROFILE_LIMITS = {
  displayName: 30,
  note: 500,
  fieldName: 255,
  fieldValue: 255,
  attributionDomains: 10,
} as const;

/** What `update_credentials` may change; absent members stay as they are. */
export interface ProfileUpdate extends ProfileDisplayUpdate {
  displayName?: string;
  note?: string;
  avatar?: Blob;
  header?: Blob;
  locked?: boolean;
  bot?: boolean;
  discoverable?: boolean;
  hideCollections?: boolean;
  indexable?: boolean;
  attributionDomains?: string[];
  /** Replaces all fields, in order; entries with neither name nor value are dropped. */
  fields?: FieldSource[];
  privacy?: string;
  sensitive?: boolean;
  language?: string;
  quotePolicy?: string;
  /**
   * The user's search-engine opt-out (Mastodon's `noindex` setting): only the
   * settings page changes it, as Mastodon's update_credentials does not.
   */
  noindex?: boolean;
}

type AccountRow = typeof accounts.$inferSelect;

/**
 * Normalizes an attribution domain as Mastodon does (scheme and `*.`
 * dropped, lower case) and returns null when it is not a host name.
 */
export function normalizeAttributionDomain(raw: string): string | null {
  const value = raw.trim().toLowerCase().replace(/^https?:\/\//, "").replace(/^\*\./, "");
  if (value === "" || value.length > 253 || /[\s/?#@:]/.test(value)) return null;
  let host: string;
  try {
    host = new URL(`http://${value}/`).hostname;
  } catch {
    return null;
  }
  const labels = host.split(".");
  const valid = labels.every((label) => /^(?!-)[a-z0-9-]{1,63}(?<!-)$/.test(label));
  return valid && !/^\d+$/.test(labels[labels.length - 1]) ? host : null;
}

/** The fields as typed (trimmed, empty pairs dropped), checked against Mastodon's limits. */
function checkFields(input: FieldSource[], maxFields: number, problems: Problems): FieldSource[] {
  const fields = input.map((f) => ({ name: f.name.trim(), value: f.value.trim() }))
    .filter((f) => f.name !== "" || f.value !== "");
  if (fields.length > maxFields) {
    problems.add("fields", "ERR_TOO_LONG", `is too long (maximum is ${maxFields} fields)`);
  }
  if (fields.some((f) => [...f.name].length > PROFILE_LIMITS.fieldName)) {
    problems.add(
      "fields",
      "ERR_TOO_LONG",
      `name is too long (maximum is ${PROFILE_LIMITS.fieldName} characters)`,
    );
  }
  if (fields.some((f) => [...f.value].length > PROFILE_LIMITS.fieldValue)) {
    problems.add(
      "fields",
      "ERR_TOO_LONG",
      `value is too long (maximum is ${PROFILE_LIMITS.fieldValue} characters)`,
    );
  }
  if (fields.some((f) => f.name === "" && f.value !== "")) {
    problems.add(
      "fields",
      "ERR_FIELDS_WITH_VALUES_MISSING_LABELS",
      "contains values with missing labels",
    );
  }
  return fields;
}

/** The attribution domains normalized and deduplicated; invalid ones and too many are problems. */
function checkAttributionDomains(input: string[], problems: Problems): string[] {
  const cleaned = input.map((d) => d.trim()).filter((d) => d !== "");
  const normalized = cleaned.map(normalizeAttributionDomain);
  const invalid = cleaned.filter((_, i) => normalized[i] == null);
  const domains = [...new Set(normalized.filter((d): d is string => d != null))];
  if (invalid.length > 0) {
    problems.add(
      "attribution_domains",
      "ERR_INVALID",
      `contains invalid domains: ${invalid.join(", ")}`,
    );
  }
  if (domains.length > PROFILE_LIMITS.attributionDomains) {
    problems.add(
      "attribution_domains",
      "ERR_TOO_LONG",
      `is too long (maximum is ${PROFILE_LIMITS.attributionDomains} domains)`,
    );
  }
  return domains;
}

/** Checks every scalar value; returns the normalized ones. */
function checkValues(ctx: AppContext, input: ProfileUpdate, problems: Problems) {
  const displayName = input.displayName?.trim();
  if (displayName != null && [...displayName].length > PROFILE_LIMITS.displayName) {
    problems.add(
      "display_name",
      "ERR_TOO_LONG",
      `is too long (maximum is ${PROFILE_LIMITS.displayName} characters)`,
    );
  }
  const note = input.note?.trim();
  // Parsed once: counted here, its mentions resolved and rendered later.
  const parsedNote = note == null ? undefined : parseText(note);
  const noteLimit = PROFILE_LIMITS.note;
  if (parsedNote && parsedNote.countableLength(CHARACTERS_PER_URL, noteLimit) > noteLimit) {
    problems.add(
      "note",
      "ERR_TOO_LONG",
      `is too long (maximum is ${PROFILE_LIMITS.note} characters)`,
    );
  }
  const fields = input.fields &&
    checkFields(input.fields, ctx.config.limits.maxProfileFields, problems);
  const attributionDomains = input.attributionDomains &&
    checkAttributionDomains(input.attributionDomains, problems);
  const included = (key: string, values: readonly string[], value: string | undefined) => {
    if (value != null && !values.includes(value)) {
      problems.add(key, "ERR_INCLUSION", "is not included in the list");
    }
  };
  included("source[privacy]", PRIVACY_VALUES, input.privacy);
  included("source[quote_policy]", QUOTE_POLICIES, input.quotePolicy);
  if (input.language != null && !ISO6391.validate(input.language)) {
    problems.add("source[language]", "ERR_INCLUSION", "is not included in the list");
  }
  return { displayName, note, parsedNote, fields, attributionDomains };
}

/** Processes the uploads; refusals become problems. */
async function processImages(
  ctx: AppContext,
  input: ProfileUpdate,
  problems: Problems,
): Promise<ProcessedImage[]> {
  const images: ProcessedImage[] = [];
  for (const kind of ["avatar", "header"] as const) {
    const file = input[kind];
    if (!file) continue;
    try {
      images.push(await processProfileImage(kind, file, ctx.config.limits.imageSizeLimit));
    } catch (error) {
      if (!(error instanceof ImageRejected)) throw error;
      const limitMb = Math.floor(ctx.config.limits.imageSizeLimit / 1024 / 1024);
      const description = error.reason === "size"
        ? `file size must be less than ${limitMb} MB`
        : error.message;
      problems.add(kind, "ERR_INVALID", description);
    }
  }
  return images;
}

/** Field values as HTML, keeping verification times of values that did not change. */
function renderFields(
  ctx: AppContext,
  fields: FieldSource[],
  previous: AccountRow["fields"],
  previousSources: FieldSource[],
  parsedValues: readonly ParsedText[],
  mentions: ReadonlyMap<string, MentionTarget>,
): AccountRow["fields"] {
  return fields.map((field, i) => {
    const index = previousSources.findIndex((p) => p.value === field.value);
    return {
      name: field.name,
      value: textToHtml(parsedValues[i], { origin: ctx.config.origin, relMe: true, mentions }),
      verified_at: index >= 0 ? previous[index]?.verified_at ?? null : null,
    };
  });
}

type CheckedValues = ReturnType<typeof checkValues>;
type Mentions = ReadonlyMap<string, MentionTarget>;
/** The update as checked, with what its texts mention and the parsed field values. */
type CheckedUpdate = {
  input: ProfileUpdate;
  values: CheckedValues;
  mentions: Mentions;
  fieldValues: readonly ParsedText[];
};
type Settings = UserSettings & Record<string, unknown>;

/** The accounts columns the update changes; the note and fields sources go into `settings`. */
function accountChanges(
  ctx: AppContext,
  account: AccountRow,
  update: CheckedUpdate,
  settings: Settings,
): Partial<typeof accounts.$inferInsert> {
  const { input, values, mentions } = update;
  const changes: Partial<typeof accounts.$inferInsert> = {};
  if (values.displayName != null) changes.displayName = values.displayName;
  if (values.parsedNote) {
    changes.note = textToHtml(values.parsedNote, {
      origin: ctx.config.origin,
      multiline: true,
      mentions,
    });
    settings.note_source = values.note;
  }
  if (values.fields) {
    const previousSources = Array.isArray(settings.fields_source) ? settings.fields_source : [];
    changes.fields = renderFields(
      ctx,
      values.fields,
      account.fields,
      previousSources,
      update.fieldValues,
      mentions,
    );
    settings.fields_source = values.fields;
  }
  if (input.locked != null) changes.locked = input.locked;
  if (input.bot != null) changes.actorType = input.bot ? "Service" : "Person";
  if (input.discoverable != null) changes.discoverable = input.discoverable;
  if (input.hideCollections != null) changes.hideCollections = input.hideCollections;
  if (input.indexable != null) changes.indexable = input.indexable;
  if (values.attributionDomains) changes.attributionDomains = values.attributionDomains;
  return changes;
}

/** The posting settings the update changes, in `settings`. */
function changeSettings(settings: Settings, input: ProfileUpdate): void {
  if (input.privacy != null) {
    settings.default_privacy = input.privacy as UserSettings["default_privacy"];
  }
  if (input.sensitive != null) settings.default_sensitive = input.sensitive;
  if (input.noindex != null) settings.noindex = input.noindex;
  if (input.language != null) settings.default_language = input.language;
  if (input.quotePolicy != null) {
    if (settings.default_quote_policy !== input.quotePolicy) quoteWordChanged(settings);
    settings.default_quote_policy = input.quotePolicy as UserSettings["default_quote_policy"];
  }
}

/** Writes the checked update in one transaction (see {@link updateProfile}). */
async function writeProfile(
  ctx: AppContext,
  accountId: string,
  update: CheckedUpdate,
  stored: Partial<Record<ProfileImageKind, { key: string; size: number }>>,
): Promise<void> {
  const { values } = update;
  await ctx.database.db.transaction(async (tx) => {
    const [row] = await tx.select({ account: accounts, settings: users.settings })
      .from(accounts).innerJoin(users, eq(users.accountId, accounts.id))
      .where(eq(accounts.id, accountId)).limit(1).for("update");
    if (!row || row.account.domain != null) throw new NotFoundError();
    const { account } = row;
    const settings = { ...(row.settings ?? {}) } as Settings;
    const changes = accountChanges(ctx, account, update, settings);
    if (stored.avatar) {
      Object.assign(changes, { avatarKey: stored.avatar.key, avatarFileSize: stored.avatar.size });
    }
    if (stored.header) {
      Object.assign(changes, { headerKey: stored.header.key, headerFileSize: stored.header.size });
    }
    Object.assign(
      changes,
      profileDisplayChanges(update.input, { avatar: !!stored.avatar, header: !!stored.header }),
    );
    changeSettings(settings, update.input);
    if (Object.keys(changes).length > 0) {
      await tx.update(accounts).set({ ...changes, updatedAt: new Date() })
        .where(eq(accounts.id, accountId));
      await recordDelivery(tx, "accountUpdated", accountId, newId());
    }
    if (values.displayName != null || values.note != null || values.fields) {
      // The custom emoji of the profile as it now reads (display name, note, fields).
      const fields = values.fields ?? account.fields;
      await linkLocalEmojis(tx, { accountId }, [
        values.displayName ?? account.displayName,
        values.parsedNote ?? account.note,
        ...fields.flatMap((f) => [f.name, f.value]),
      ], { replace: true });
    }
    await tx.update(users).set({ settings }).where(eq(users.accountId, accountId));
    await discardMediaFiles(tx, [
      stored.avatar ? ownProfileImageKey(accountId, account.avatarKey) : null,
      stored.header ? ownProfileImageKey(accountId, account.headerKey) : null,
    ]);
  });
}

/**
 * Applies a profile update to a local account. Throws ValidationError (all
 * problems at once) when anything is refused; nothing changes then.
 */
export async function updateProfile(
  ctx: AppContext,
  accountId: string,
  input: ProfileUpdate,
): Promise<void> {
  const problems = new Problems();
  const values = checkValues(ctx, input, problems);
  checkProfileDisplay(input, problems);
  const images = await processImages(ctx, input, problems);
  problems.throwIfAny();

  const { config, database } = ctx;
  const fieldValues = (values.fields ?? []).map((f) => parseText(f.value));
  const texts = values.parsedNote ? [values.parsedNote, ...fieldValues] : fieldValues;
  const mentions = mentionTargets(
    await resolveMentionAccounts(database.db, config.domain, texts),
  );
  const store = ctx.media;
  const stored: Partial<Record<ProfileImageKind, { key: string; size: number }>> = {};
  try {
    for (const image of images) {
      stored[image.kind] = await storeProfileImage(store, accountId, image);
    }
  } catch (error) {
    await store.delete(Object.values(stored).map((file) => file.key));
    throw error;
  }
  try {
    await writeProfile(ctx, accountId, { input, values, mentions, fieldValues }, stored);
  } catch (error) {
    await store.delete(Object.values(stored).map((file) => file.key));
    throw error;
  }
  if (images.length) await flushDiscardedMedia(database.db, store);
}

/** Removes the avatar or header (`DELETE /api/v1/profile/{avatar,header}`); idempotent. */
export async function removeProfileImage(
  ctx: AppContext,
  accountId: string,
  kind: ProfileImageKind,
): Promise<void> {
  const { database } = ctx;
  const [key, size] = kind === "avatar"
    ? ["avatarKey", "avatarFileSize"] as const
    : ["headerKey", "headerFileSize"] as const;
  const previous = await database.db.transaction(async (tx) => {
    const [account] = await tx.select().from(accounts).where(eq(accounts.id, accountId))
      .limit(1).for("update");
    if (!account || account.domain != null) throw new NotFoundError();
    const current = account[key];
    if (current == null) return null;
    await tx.update(accounts).set({
      [key]: null,
      [size]: null,
      [descriptionColumnOf(kind)]: "",
      updatedAt: new Date(),
    })
      .where(eq(accounts.id, accountId));
    await recordDelivery(tx, "accountUpdated", accountId, newId());
    await discardMediaFiles(tx, [ownProfileImageKey(accountId, current)]);
    return current;
  });
  if (previous != null) await flushDiscardedMedia(database.db, ctx.media);
}
