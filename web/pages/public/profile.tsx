/**
 * The public profile at `/@username`: header, avatar, display name with
 * custom emoji, bio, fields (verified links marked, every link `rel="me"`,
 * which is how other sites verify back), counts, and the account's posts
 * with Mastodon's tabs: posts, posts and replies, media.
 */
import type { FC } from "hono/jsx";
import { raw } from "hono/html";
import type { Account } from "../../../api/entities/account.ts";
import type { StatusJson } from "../../../api/entities/status.ts";
import { DisplayName, emojifyHtml, emojifyText, StatusCard } from "./status_card.tsx";
import { PublicLayout, type PublicViewer } from "./layout.tsx";
import { localUris } from "../../../model/uris.ts";
import { htmlToText } from "../../../actors/formatting/html_to_text.ts";

export type ProfileTab = "posts" | "with_replies" | "media";

const TABS: { key: ProfileTab; label: string; suffix: string }[] = [
  { key: "posts", label: "Posts", suffix: "" },
  { key: "with_replies", label: "Posts and replies", suffix: "/with_replies" },
  { key: "media", label: "Media", suffix: "/media" },
];

/** Links in a profile field point back at their owner: `rel="me"`. */
function withRelMe(html: string): string {
  return html.replace(/<a\b([^>]*)>/gi, (_all, attrs: string) => {
    if (/\srel="/i.test(attrs)) return `<a${attrs.replace(/\srel="/i, ' rel="me ')}>`;
    return `<a${attrs} rel="me">`;
  });
}

export interface ProfilePageProps {
  account: Account;
  statuses: StatusJson[];
  /** The account's pinned posts (first page of the posts tab only). */
  pinned: StatusJson[];
  /** Its discoverable collections, when it shows them (first page of the posts tab only). */
  collections?: { name: string; url: string; count: number }[];
  tab: ProfileTab;
  /** The next (older) page, when there may be one. */
  older: string | null;
  /** Whether this is a later page (a link back to the newest). */
  paged: boolean;
  instanceTitle: string;
  origin: string;
  viewer: PublicViewer | null;
  /** The e-mail subscription form, when the account takes subscriptions (Mastodon 4.7). */
  emailSubscription?: EmailSubscriptionForm | null;
}

/** Where the subscription form posts, and the visitor's form token. */
export interface EmailSubscriptionForm {
  action: string;
  csrfToken: string;
}

/** The profile's fields, verified links marked. */
const ProfileFields: FC<{ account: Account }> = ({ account }) => (
  <dl class="fields">
    {account.fields.map((f) => (
      <>
        <dt>{raw(emojifyText(f.name, account.emojis))}</dt>
        <dd class={f.verified_at ? "verified" : undefined}>
          {raw(withRelMe(emojifyHtml(f.value, account.emojis)))}
          {f.verified_at
            ? <span class="muted">{` (verified ${f.verified_at.slice(0, 10)})`}</span>
            : null}
        </dd>
      </>
    ))}
  </dl>
);

/** The profile card: header, avatar, names, bio, fields, counts and links. */
const ProfileCard: FC<{ account: Account; handle: string; base: string }> = (
  { account, handle, base },
) => (
  <section class="card profile h-card" aria-labelledby="profile-name">
    <img class="banner" src={account.header_static} alt="" />
    <div class="head">
      <img class="avatar u-photo" src={account.avatar_static} alt="" width="80" height="80" />
      <div>
        <h1 id="profile-name" class="p-name">
          <DisplayName account={account} />
        </h1>
        <p class="muted p-nickname">{handle}</p>
      </div>
    </div>
    {account.locked ? <p class="muted">This account approves its followers.</p> : null}
    {account.bot ? <p class="muted">This account is automated.</p> : null}
    <div class="p-note">{raw(emojifyHtml(account.note, account.emojis))}</div>
    {account.fields.length ? <ProfileFields account={account} /> : null}
    <ul class="counts">
      <li>
        <strong>{account.statuses_count}</strong> posts
      </li>
      {
        // Mastodon hides who follows whom, and how many, when the account asks.
        account.hide_collections ? null : (
          <>
            <li>
              <strong>{account.following_count}</strong> following
            </li>
            <li>
              <strong>{account.followers_count}</strong> followers
            </li>
          </>
        )
      }
    </ul>
    <p>
      <a class="u-url u-uid" rel="me" href={account.url ?? account.uri}>{handle}</a>
      {" · "}
      <a href={`${base}.rss`}>RSS feed</a>
    </p>
  </section>
);

/** The account's collections, when it shows them (Mastodon 4.7). */
const ProfileCollections: FC<{ collections?: ProfilePageProps["collections"] }> = (
  { collections },
) =>
  collections?.length
    ? (
      <section class="collections" aria-labelledby="collections">
        <h2 id="collections">Collections</h2>
        <ul>
          {collections.map((c) => (
            <li>
              <a href={c.url}>{c.name}</a> <span class="muted">({c.count} accounts)</span>
            </li>
          ))}
        </ul>
      </section>
    )
    : null;

/** "Get new posts by e-mail": an address, posted with the visitor's form token. */
const EmailSubscriptionBox: FC<{ form?: EmailSubscriptionForm | null }> = ({ form }) =>
  form
    ? (
      <section class="card email-subscription" aria-labelledby="email-subscription">
        <h2 id="email-subscription">Get new posts by e-mail</h2>
        <form method="post" action={form.action}>
          <input type="hidden" name="authenticity_token" value={form.csrfToken} />
          <label for="subscription-email">E-mail address</label>
          <input
            id="subscription-email"
            type="email"
            name="email"
            required
            maxlength={320}
            autocomplete="email"
          />
          <button type="submit" class="button primary">Subscribe</button>
        </form>
      </section>
    )
    : null;

export const ProfilePage: FC<ProfilePageProps> = (
  {
    account,
    statuses,
    pinned,
    collections,
    tab,
    older,
    paged,
    instanceTitle,
    origin,
    viewer,
    emailSubscription,
  },
) => {
  const handle = `@${account.acct}@${new URL(origin).host}`;
  const base = localUris("").profile(account.username);
  const name = account.display_name || account.username;
  const current = TABS.find((t) => t.key === tab)!;
  return (
    <PublicLayout
      title={`${name} (${handle})`}
      instanceTitle={instanceTitle}
      viewer={viewer}
      meta={{
        description: htmlToText(account.note, { oneLine: true }) || `Posts by ${name}`,
        url: `${origin}${base}${current.suffix}`,
        type: "profile",
        image: account.avatar_static,
        activityPub: account.uri,
        rss: `${origin}${base}.rss`,
        noindex: account.noindex === true,
      }}
    >
      <ProfileCard account={account} handle={handle} base={base} />
      <EmailSubscriptionBox form={emailSubscription} />
      <ProfileCollections collections={collections} />
      <nav class="tabs" aria-label="Posts">
        {TABS.map((t) => (
          <a href={`${base}${t.suffix}`} aria-current={t.key === tab ? "page" : undefined}>
            {t.label}
          </a>
        ))}
      </nav>
      <h2 class="skip">{current.label}</h2>
      {pinned.length
        ? (
          <section class="pinned" aria-labelledby="pinned">
            <h3 id="pinned" class="muted">Pinned</h3>
            {pinned.map((s) => <StatusCard key={s.id} status={s} />)}
          </section>
        )
        : null}
      {statuses.length === 0 ? <p class="muted">No posts here.</p> : null}
      <div class="feed">
        {statuses.map((s) => <StatusCard key={s.id} status={s} />)}
      </div>
      <nav class="pagination" aria-label="Pages">
        {paged ? <a href={`${base}${current.suffix}`}>Newest</a> : <span />}
        {older ? <a href={older} rel="next">Older posts</a> : null}
      </nav>
    </PublicLayout>
  );
};
