/**
 * Collections (Mastodon 4.6, "starter packs"): curated public lists of up to
 * 25 accounts. Every route answers under `/api/v1` and, for the clients
 * written against the pre-release, under `/api/v1_alpha` with
 * `Deprecation: @1781049600` (Mastodon's `deprecate_api '2026-06-10'`).
 *
 * - POST /collections (write:collections): name, description, language,
 *   tag_name, sensitive, discoverable, account_ids[] → WrappedCollection
 * - GET /collections/:id (public; a token needs read:collections) → CollectionWithAccounts
 * - PUT, PATCH /collections/:id (write:collections) → WrappedCollection
 * - DELETE /collections/:id (write:collections) → {}
 * - POST /collections/:collection_id/items (write:collections): account_id → WrappedCollectionItem
 * - DELETE /collections/:collection_id/items/:id (write:collections) → {}
 * - POST /collections/:collection_id/items/:id/revoke (write:collections) → {}
 * - GET /accounts/:account_id/collections (public; read:collections) → Collections
 * - GET /accounts/:account_id/in_collections (read:collections, the caller's own) → Collections
 *
 * Decisions (Mastodon's controllers):
 * - A create or update that breaks a field rule is 422 with the error
 *   nested one level (`{"error": {"error": "Validation failed: …",
 *   "details": …}}`), as Mastodon's collections controller renders it; the
 *   items routes answer the usual flat shape.
 * - Someone else's collection is 403 "This action is not allowed" for every
 *   write, a collection whose owner is suspended or gone 404; a collection
 *   whose owner blocks the viewer is 403 to show and absent from lists.
 * - Lists are paged by `offset` (40, at most 80), newest first, with a
 *   `Link` header; the owner's list shows the owner's undiscoverable
 *   collections too.
 */
import { type Context, Hono, type MiddlewareHandler } from "hono";
import type { ApiEnv } from "../env.ts";
import { ApiError } from "../errors.ts";
import { type Params, params } from "../params.ts";
import { readBoolean, readString, readStringArray } from "../readers.ts";
import { requireUser } from "../middleware/scopes.ts";
import { validationErrorResponse, withValidation } from "../validation_errors.ts";
import { clampLimit, PAGE_SIZES } from "../pagination.ts";
import { readOffset, setOffsetLinks } from "../offset_pagination.ts";
import {
  collectionItemEntity,
  serializeCollections,
  serializeCollectionWithAccounts,
} from "../entities/collection.ts";
import { withFeatureApproval } from "../entities/feature_approval.ts";
import { isId } from "../../db/ids.ts";
import { findViewableAccount, isBlocking } from "../../db/queries/accounts.ts";
import {
  type CollectionRow,
  collectionsFeaturing,
  collectionsOf,
  findCollection,
} from "../../db/queries/collections.ts";
import type { CollectionInput } from "../../actors/collections/fields.ts";
import { createCollection } from "../../actors/collections/create.ts";
import { updateCollection } from "../../actors/collections/update.ts";
import { deleteCollection } from "../../actors/collections/delete.ts";
import {
  addCollectionItem,
  removeCollectionItem,
  revokeCollectionItem,
} from "../../actors/collections/items.ts";
import { NotPermittedError } from "../../actors/relationships/follow_rows.ts";
import { NotFoundError, ValidationError } from "../../model/errors.ts";
import { NOT_FOUND, scopesIfToken, viewerAccountId } from "./accounts_access.ts";

/** When `/api/v1_alpha/collections…` stops being served (Mastodon's date, as an RFC 9745 header). */
export const ALPHA_DEPRECATION = "@1781049600";

const NOT_ALLOWED = "This action is not allowed";

/** A path id, or 404. */
function idParam(c: Context<ApiEnv>, name: string): string {
  const id = c.req.param(name);
  if (!id || !isId(id)) throw new ApiError(404, NOT_FOUND);
  return id;
}

/**
 * Runs a command, answering its refusals as Mastodon does; `nested` leaves
 * a ValidationError to {@link runNested}.
 */
async function run<T>(fn: () => Promise<T>, nested = false): Promise<T> {
  try {
    return await (nested ? fn() : withValidation(fn));
  } catch (error) {
    if (error instanceof NotFoundError) throw new ApiError(404, NOT_FOUND);
    if (error instanceof NotPermittedError) throw new ApiError(403, NOT_ALLOWED);
    throw error;
  }
}

/**
 * Runs a create or an update: a broken field rule is answered with the
 * validation error nested under `error`, as Mastodon's collections
 * controller renders it.
 */
async function runNested(c: Context<ApiEnv>, fn: () => Promise<Response>): Promise<Response> {
  try {
    return await fn();
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    const flat = validationErrorResponse(error);
    return c.json({ error: { error: flat.message, ...flat.extra } }, 422);
  }
}

/** Adds the `Deprecation` header of the pre-release prefix. */
const deprecated: MiddlewareHandler<ApiEnv> = async (c, next) => {
  await next();
  c.res.headers.set("Deprecation", ALPHA_DEPRECATION);
};

const passThrough: MiddlewareHandler<ApiEnv> = async (_c, next) => await next();

function collectionInput(p: Params): CollectionInput {
  return {
    name: readString(p, "name", { allowBlank: true }),
    description: readString(p, "description", { allowBlank: true }),
    language: readString(p, "language", { allowBlank: true }),
    tagName: readString(p, "tag_name", { allowBlank: true }),
    sensitive: readBoolean(p, "sensitive"),
    discoverable: readBoolean(p, "discoverable"),
  };
}

/** A collection the viewer may look at (404 unknown or owner gone, 403 owner blocks viewer). */
async function visibleCollection(c: Context<ApiEnv>, id: string): Promise<CollectionRow> {
  const { database } = c.get("ctx");
  const row = await findCollection(database.db, id);
  if (!row || row.ownerUnavailable) throw new ApiError(404, NOT_FOUND);
  const viewer = viewerAccountId(c);
  if (viewer && viewer !== row.accountId && await isBlocking(database, row.accountId, viewer)) {
    throw new ApiError(403, NOT_ALLOWED);
  }
  return row;
}

/** The collection answer of a write: the collection as its owner now sees it. */
async function wrapped(c: Context<ApiEnv>, id: string) {
  const { config, database } = c.get("ctx");
  const row = await findCollection(database.db, id);
  if (!row) throw new ApiError(404, NOT_FOUND);
  const [collection] = await serializeCollections(database.db, config, [row], viewerAccountId(c));
  return { collection };
}

/** The collection routes under one prefix (`/api/v1` or `/api/v1_alpha`). */
function collectionRoutesAt(prefix: string, alpha: boolean): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const mark = alpha ? deprecated : passThrough;
  const read = [mark, scopesIfToken("read:collections")] as const;
  const write = [mark, requireUser("write:collections")] as const;
  const base = `${prefix}/collections`;

  app.post(base, ...write, async (c) => {
    const p = await params(c);
    const accountIds = readStringArray(p, "account_ids") ?? [];
    if (!accountIds.every((id) => isId(id))) throw new ApiError(404, NOT_FOUND);
    const input = { ...collectionInput(p), accountIds };
    return await runNested(c, async () => {
      const id = await run(() => createCollection(c.get("ctx"), viewerAccountId(c)!, input), true);
      return c.json(await wrapped(c, id));
    });
  });

  app.get(`${base}/:id{[0-9]+}`, ...read, async (c) => {
    const { database, mediaUrls } = c.get("ctx");
    const viewer = viewerAccountId(c);
    const row = await visibleCollection(c, idParam(c, "id"));
    const answer = await serializeCollectionWithAccounts(database.db, mediaUrls, row, viewer);
    answer.accounts = await withFeatureApproval(database.db, viewer, answer.accounts);
    return c.json(answer);
  });

  app.on(["PUT", "PATCH"], `${base}/:id{[0-9]+}`, ...write, async (c) => {
    const id = idParam(c, "id");
    const input = collectionInput(await params(c));
    return await runNested(c, async () => {
      await run(() => updateCollection(c.get("ctx"), viewerAccountId(c)!, id, input), true);
      return c.json(await wrapped(c, id));
    });
  });

  app.delete(`${base}/:id{[0-9]+}`, ...write, async (c) => {
    const id = idParam(c, "id");
    await run(() => deleteCollection(c.get("ctx"), viewerAccountId(c)!, id));
    return c.json({});
  });

  app.post(`${base}/:collection_id{[0-9]+}/items`, ...write, async (c) => {
    const collectionId = idParam(c, "collection_id");
    const accountId = readString(await params(c), "account_id");
    if (!accountId) throw new ApiError(422, "`account_id` parameter is missing");
    if (!isId(accountId)) throw new ApiError(404, NOT_FOUND);
    const item = await run(() =>
      addCollectionItem(c.get("ctx"), viewerAccountId(c)!, collectionId, accountId)
    );
    return c.json({ collection_item: collectionItemEntity(item) });
  });

  app.delete(`${base}/:collection_id{[0-9]+}/items/:id{[0-9]+}`, ...write, async (c) => {
    const [collectionId, itemId] = [idParam(c, "collection_id"), idParam(c, "id")];
    await run(() => removeCollectionItem(c.get("ctx"), viewerAccountId(c)!, collectionId, itemId));
    return c.json({});
  });

  app.post(`${base}/:collection_id{[0-9]+}/items/:id{[0-9]+}/revoke`, ...write, async (c) => {
    const [collectionId, itemId] = [idParam(c, "collection_id"), idParam(c, "id")];
    await run(() => revokeCollectionItem(c.get("ctx"), viewerAccountId(c)!, collectionId, itemId));
    return c.json({});
  });

  app.get(`${prefix}/accounts/:account_id{[0-9]+}/collections`, ...read, async (c) => {
    const { config, database } = c.get("ctx");
    const account = await findViewableAccount(database, idParam(c, "account_id"));
    if (!account || account.suspended) throw new ApiError(404, NOT_FOUND);
    const viewer = viewerAccountId(c);
    if (viewer && viewer !== account.id && await isBlocking(database, account.id, viewer)) {
      return c.json({ collections: [] });
    }
    const p = await params(c);
    const page = { offset: readOffset(p), limit: clampLimit(p.limit, PAGE_SIZES.accounts) };
    const rows = await collectionsOf(database.db, account.id, viewer, page);
    setOffsetLinks(c, page.offset, page.limit, rows.length);
    return c.json({ collections: await serializeCollections(database.db, config, rows, viewer) });
  });

  app.get(
    `${prefix}/accounts/:account_id{[0-9]+}/in_collections`,
    mark,
    requireUser("read:collections"),
    async (c) => {
      const { config, database } = c.get("ctx");
      const viewer = viewerAccountId(c)!;
      if (idParam(c, "account_id") !== viewer) throw new ApiError(403, NOT_ALLOWED);
      const p = await params(c);
      const page = { offset: readOffset(p), limit: clampLimit(p.limit, PAGE_SIZES.accounts) };
      const rows = await collectionsFeaturing(database.db, viewer, page);
      setOffsetLinks(c, page.offset, page.limit, rows.length);
      return c.json({
        collections: await serializeCollections(database.db, config, rows, viewer),
      });
    },
  );
  return app;
}

/** The collection routes, mounted at the root of the app (both prefixes). */
export function collectionRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.route("/", collectionRoutesAt("/api/v1", false));
  app.route("/", collectionRoutesAt("/api/v1_alpha", true));
  return app;
}
