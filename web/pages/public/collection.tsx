/**
 * The page of one of our collections at `/@:username/collections/:id`: its
 * name, description, hashtag and the accounts in it (the accepted ones),
 * each linking to its profile. The description of a local collection is
 * plain text (Hono escapes it); remote collections have no page here.
 */
import type { FC } from "hono/jsx";
import type { Account } from "../../../api/entities/account.ts";
import type { Collection } from "../../../api/entities/collection.ts";
import { DisplayName } from "./status_card.tsx";
import { PublicLayout, type PublicViewer } from "./layout.tsx";

export interface CollectionPageProps {
  collection: Collection;
  owner: Account;
  /** The accepted members, in the collection's order. */
  members: Account[];
  /** The collection's ActivityPub id (the page's `alternate`). */
  activityPub: string;
  instanceTitle: string;
  viewer: PublicViewer | null;
}

const MemberCard: FC<{ account: Account }> = ({ account }) => (
  <li class="account-card">
    <a href={account.url ?? account.uri}>
      <img src={account.avatar_static} alt="" width={48} height={48} loading="lazy" />
      <span class="display-name">
        <DisplayName account={account} />
      </span>{" "}
      <span class="acct">@{account.acct}</span>
    </a>
  </li>
);

export const CollectionPage: FC<CollectionPageProps> = (
  { collection, owner, members, activityPub, instanceTitle, viewer },
) => (
  <PublicLayout
    title={collection.name}
    instanceTitle={instanceTitle}
    viewer={viewer}
    meta={{
      description: collection.description ||
        `A collection of ${collection.item_count} accounts by @${owner.acct}`,
      url: collection.url ?? undefined,
      activityPub,
    }}
  >
    <h1>{collection.name}</h1>
    <p>
      A collection by{" "}
      <a href={owner.url ?? owner.uri}>
        <DisplayName account={owner} /> (@{owner.acct})
      </a>
    </p>
    {collection.sensitive ? <p class="notice">This collection is marked as sensitive.</p> : null}
    {collection.description ? <p class="description">{collection.description}</p> : null}
    {collection.tag
      ? (
        <p>
          <a href={collection.tag.url}>#{collection.tag.name}</a>
        </p>
      )
      : null}
    {members.length === 0
      ? <p class="muted">No accounts in this collection yet.</p>
      : (
        <ul class="account-list">
          {members.map((a) => <MemberCard key={a.id} account={a} />)}
        </ul>
      )}
  </PublicLayout>
);
