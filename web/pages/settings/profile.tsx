/**
 * The profile settings page: display name, bio, profile fields (with the
 * verified-link mark), avatar and header (upload and removal), and the
 * account's switches (locked, bot, discoverable, indexable, hide
 * collections, and the user's search-engine opt-out). A refused save shows each problem next to its field and
 * keeps what was typed. Hono JSX escapes every value; no script.
 */
import type { FC } from "hono/jsx";
import { CsrfField, type FieldErrors, fieldName } from "../auth/layout.tsx";
import { SettingsLayout, type SettingsViewer } from "./layout.tsx";
import { localUris } from "../../../model/uris.ts";

/** What the form shows: the stored profile, or what was just typed. */
export interface ProfileForm {
  displayName: string;
  note: string;
  /** Always as many rows as the server allows (empty ones to fill in). */
  fields: { name: string; value: string; verifiedAt: string | null }[];
  locked: boolean;
  bot: boolean;
  discoverable: boolean;
  indexable: boolean;
  hideCollections: boolean;
  /** Ask search engines to leave the profile and post pages out. */
  noindex: boolean;
}

/** The images as they are now (null: the default picture). */
export interface ProfileImages {
  avatar: string | null;
  header: string | null;
}

export interface ProfileLimits {
  displayName: number;
  note: number;
  fieldName: number;
  fieldValue: number;
  imageMb: number;
}

const SWITCHES: {
  key:
    & keyof ProfileForm
    & (
      "locked" | "bot" | "discoverable" | "indexable" | "hideCollections" | "noindex"
    );
  name: string;
  label: string;
  hint: string;
}[] = [
  {
    key: "locked",
    name: "locked",
    label: "Require follow requests",
    hint: "You approve each new follower by hand.",
  },
  {
    key: "bot",
    name: "bot",
    label: "This is a bot account",
    hint: "It acts automatically and may not be watched by a person.",
  },
  {
    key: "discoverable",
    name: "discoverable",
    label: "Feature profile and posts in discovery",
    hint: "Your account may be suggested to others and appear in the directory and trends.",
  },
  {
    key: "indexable",
    name: "indexable",
    label: "Include public posts in search results",
    hint: "People who do not follow you can find your public posts by searching.",
  },
  {
    key: "noindex",
    name: "noindex",
    label: "Exclude my profile from search engines",
    hint: "Your profile and post pages ask search engines such as Google not to list them.",
  },
  {
    key: "hideCollections",
    name: "hide_collections",
    label: "Hide who you follow and who follows you",
    hint: "Your profile does not list your follows and followers.",
  },
];

/** The problems of one field as a sentence ("Display name is too long…"). */
function problemText(errors: FieldErrors | undefined, key: string): string | null {
  const problems = errors?.[key];
  if (!problems?.length) return null;
  return problems.map((p) => `${fieldName(key)} ${p.description}`).join("; ");
}

const FieldError: FC<{ id: string; text: string | null }> = ({ id, text }) =>
  text ? <p class="field-error" id={id}>{text}</p> : null;

/** ids for aria-describedby, or undefined when there are none. */
const describedBy = (...ids: (string | false | null)[]) =>
  ids.filter(Boolean).join(" ") || undefined;

const ImageInput: FC<{
  kind: "avatar" | "header";
  label: string;
  hint: string;
  current: string | null;
  error: string | null;
}> = ({ kind, label, hint, current, error }) => (
  <div class="image-field">
    <label for={kind}>{label}</label>
    {current
      ? (
        <img
          src={current}
          alt={`Your current ${kind}`}
          class={`current-${kind}`}
        />
      )
      : <p class="hint">You have no {kind}: the default picture is shown.</p>}
    <input
      id={kind}
      name={kind}
      type="file"
      accept="image/png,image/jpeg,image/gif,image/webp"
      aria-invalid={error ? "true" : undefined}
      aria-describedby={describedBy(`${kind}-hint`, error && `${kind}-error`)}
    />
    <p class="hint" id={`${kind}-hint`}>{hint}</p>
    <FieldError id={`${kind}-error`} text={error} />
  </div>
);

/** The extra fields: label and content pairs. */
const FieldInputs: FC<{ form: ProfileForm; limits: ProfileLimits; error: string | null }> = (
  { form, limits, error },
) => (
  <fieldset class="profile-fields" aria-describedby={describedBy("fields-hint")}>
    <legend>Extra fields</legend>
    <p class="hint" id="fields-hint">
      Up to {form.fields.length}{" "}
      label and content pairs on your profile. A link whose page links back to your profile with
      rel="me" is marked verified.
    </p>
    <FieldError id="fields-error" text={error} />
    {form.fields.map((field, i) => (
      <div class="profile-field" data-field={i}>
        <label for={`field-${i}-name`}>Label {i + 1}</label>
        <input
          id={`field-${i}-name`}
          name={`fields_attributes[${i}][name]`}
          type="text"
          value={field.name}
          maxlength={limits.fieldName * 4}
          aria-invalid={error ? "true" : undefined}
        />
        <label for={`field-${i}-value`}>Content {i + 1}</label>
        <input
          id={`field-${i}-value`}
          name={`fields_attributes[${i}][value]`}
          type="text"
          value={field.value}
          maxlength={limits.fieldValue * 4}
          aria-invalid={error ? "true" : undefined}
          aria-describedby={field.verifiedAt ? `field-${i}-verified` : undefined}
        />
        {field.verifiedAt
          ? (
            <p class="verified" id={`field-${i}-verified`}>
              <span aria-hidden="true">✓</span> Verified link (checked{" "}
              {field.verifiedAt.slice(0, 10)})
            </p>
          )
          : null}
      </div>
    ))}
  </fieldset>
);

/** Display name and bio. */
const TextInputs: FC<{ form: ProfileForm; limits: ProfileLimits; errors?: FieldErrors }> = (
  { form, limits, errors },
) => {
  const nameError = problemText(errors, "display_name");
  const noteError = problemText(errors, "note");
  return (
    <>
      <label for="display_name">Display name</label>
      <input
        id="display_name"
        name="display_name"
        type="text"
        value={form.displayName}
        maxlength={limits.displayName * 4}
        aria-invalid={nameError ? "true" : undefined}
        aria-describedby={describedBy("display_name-hint", nameError && "display_name-error")}
      />
      <p class="hint" id="display_name-hint">At most {limits.displayName} characters.</p>
      <FieldError id="display_name-error" text={nameError} />

      <label for="note">Bio</label>
      <textarea
        id="note"
        name="note"
        rows={5}
        aria-invalid={noteError ? "true" : undefined}
        aria-describedby={describedBy("note-hint", noteError && "note-error")}
      >
        {form.note}
      </textarea>
      <p class="hint" id="note-hint">
        At most {limits.note} characters. Links, @mentions and #hashtags work as in posts.
      </p>
      <FieldError id="note-error" text={noteError} />
    </>
  );
};

/** The reach and approval switches. */
const Switches: FC<{ form: ProfileForm }> = ({ form }) => (
  <fieldset class="switches">
    <legend>Reach and approval</legend>
    {SWITCHES.map((s) => (
      <div>
        <label class="check" for={s.name}>
          <input
            id={s.name}
            name={s.name}
            type="checkbox"
            value="1"
            checked={form[s.key]}
            aria-describedby={`${s.name}-hint`}
          />
          <span>{s.label}</span>
        </label>
        <p class="hint" id={`${s.name}-hint`}>{s.hint}</p>
      </div>
    ))}
  </fieldset>
);

/** A form per picture the profile has, to remove it. */
const RemoveImages: FC<{ images: ProfileImages; csrfToken: string }> = ({ images, csrfToken }) => (
  <section aria-labelledby="remove-images">
    <h2 id="remove-images">Remove pictures</h2>
    {(["avatar", "header"] as const).filter((k) => images[k]).map((kind) => (
      <form method="post" action={`/settings/profile/${kind}/remove`} class="remove-image">
        <CsrfField token={csrfToken} />
        <button type="submit">Remove the {kind}</button>
      </form>
    ))}
  </section>
);

export const ProfilePage: FC<{
  instanceTitle: string;
  viewer: SettingsViewer;
  form: ProfileForm;
  images: ProfileImages;
  limits: ProfileLimits;
  errors?: FieldErrors;
  alert?: string;
  notice?: string;
}> = ({ instanceTitle, viewer, form, images, limits, errors, alert, notice }) => (
  <SettingsLayout title="Profile" instanceTitle={instanceTitle} viewer={viewer} section="profile">
    {notice ? <p class="notice" role="status">{notice}</p> : null}
    {alert || errors
      ? (
        <p class="alert" role="alert">
          {alert ?? "The profile was not saved: see the problems below."}
        </p>
      )
      : null}
    <p>
      This is how others see you, on your{" "}
      <a href={localUris("").profile(viewer.username)}>public profile</a> and on other servers.
    </p>
    <form
      method="post"
      action="/settings/profile"
      enctype="multipart/form-data"
      class="profile-form"
    >
      <CsrfField token={viewer.csrfToken} />
      <TextInputs form={form} limits={limits} errors={errors} />
      <FieldInputs form={form} limits={limits} error={problemText(errors, "fields")} />
      <ImageInput
        kind="avatar"
        label="Avatar"
        hint={`PNG, JPEG, GIF or WebP, at most ${limits.imageMb} MB; shown at 400×400 pixels.`}
        current={images.avatar}
        error={problemText(errors, "avatar")}
      />
      <ImageInput
        kind="header"
        label="Header"
        hint={`PNG, JPEG, GIF or WebP, at most ${limits.imageMb} MB; shown at 1500×500 pixels.`}
        current={images.header}
        error={problemText(errors, "header")}
      />
      {errors ? <p class="hint">Choose the images again: a refused form keeps no files.</p> : null}
      <Switches form={form} />
      <button type="submit">Save profile</button>
    </form>
    {images.avatar || images.header
      ? <RemoveImages images={images} csrfToken={viewer.csrfToken} />
      : null}
  </SettingsLayout>
);
