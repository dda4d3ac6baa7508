/**
 * The web app's lists (design 35 §2.5; the list timeline is in
 * timelines.tsx): GET /lists (the viewer's lists, a New list form), POST
 * /lists, GET /lists/:id/edit (settings, members, `?q=` finds people one
 * follows by the API's account search), POST /lists/:id/update,
 * /lists/:id/accounts and /lists/:id/accounts/remove (`account_ids[]`),
 * GET and POST /lists/:id/delete (a confirmation first). Adding and
 * removing members answer the script's request with the members part
 * (pages/app/lists.tsx ListMembers), the page's 303 otherwise. The API's commands
 * and readers (actors/timelines/lists.ts, api/routes/lists.ts): someone
 * else's list is not found, a refused title or policy comes back on the
 * form with its message (422).
 */
import { type Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ApiEnv } from "../../../api/env.ts";
import { type Params, params } from "../../../api/params.ts";
import { readString } from "../../../api/readers.ts";
import { accountIds, listInput } from "../../../api/routes/lists.ts";
import { findAccountIds } from "../../../api/routes/accounts_search.ts";
import { readListMembers } from "../../../api/reads/accounts.ts";
import { listEntity } from "../../../api/entities/list.ts";
import { loadAccountEntities } from "../../../api/entities/account.ts";
import { isId } from "../../../db/ids.ts";
import {
  addListAccounts,
  createList,
  deleteList,
  findOwnList,
  listsOf,
  removeListAccounts,
  updateList,
} from "../../../actors/timelines/lists.ts";
import { AppLayout } from "../../pages/app/layout.tsx";
import { ListEditPage, ListMembers, ListsPage } from "../../pages/app/lists.tsx";
import { ConfirmPage } from "../../pages/app/confirm.tsx";
import { attempt, type Refusal, refusalOf } from "../refusals.ts";
import { appPage, appViewer, sendAppNotFound, sendAppPage } from "./session.tsx";
import { redirectAfterPost, sendFragment, wantsFragment } from "./fragments.ts";

const NOT_FOUND = "This list does not exist.";

async function listsPage(c: Context<ApiEnv>, refusal?: Refusal): Promise<Response> {
  const ctx = c.get("ctx");
  const viewer = appViewer(c);
  const lists = (await listsOf(ctx.database.db, viewer.accountId)).map(listEntity);
  return await sendAppPage(
    c,
    <AppLayout
      title="Lists"
      instanceTitle={ctx.config.instance.title}
      viewer={viewer}
      current="lists"
      notice={c.req.query("notice")}
    >
      <ListsPage lists={lists} token={viewer.csrfToken} error={refusal?.message} />
    </AppLayout>,
    (refusal?.status ?? 200) as ContentfulStatusCode,
  );
}

/** The viewer's list of the `:id` path, or null. */
async function ownList(c: Context<ApiEnv>) {
  const id = c.req.param("id");
  if (!id || !isId(id)) return null;
  try {
    return await findOwnList(c.get("ctx").database.db, appViewer(c).accountId, id);
  } catch (error) {
    if (refusalOf(error)?.status === 404) return null;
    throw error;
  }
}

/** The members of a list and, for `q`, the people one follows who match (the API's search). */
async function membersOf(c: Context<ApiEnv>, listId: string, q: string) {
  const ctx = c.get("ctx");
  const members = await readListMembers(ctx, listId, { limit: "0" });
  const foundIds = q
    ? await findAccountIds(ctx, {
      q,
      limit: 10,
      offset: 0,
      resolve: false,
      following: true,
      viewerId: appViewer(c).accountId,
    })
    : [];
  const found = await loadAccountEntities(ctx.database.db, ctx.mediaUrls, foundIds);
  return { members: members.items, found };
}

/** The `q` of a request (the member search), trimmed; blank when absent. */
function queryOf(p: Params): string {
  return (readString(p, "q", { allowBlank: true, maxLength: 500 }) ?? "").trim();
}

async function editPage(c: Context<ApiEnv>, refusal?: Refusal): Promise<Response> {
  const ctx = c.get("ctx");
  const viewer = appViewer(c);
  const list = await ownList(c);
  if (!list) return await sendAppNotFound(c, NOT_FOUND);
  const q = queryOf(await params(c));
  return await sendAppPage(
    c,
    <AppLayout
      title={`Edit list: ${list.title}`}
      instanceTitle={ctx.config.instance.title}
      viewer={viewer}
      current="lists"
      notice={c.req.query("notice")}
    >
      <ListEditPage
        list={listEntity(list)}
        {...await membersOf(c, list.id, q)}
        q={q}
        token={viewer.csrfToken}
        error={refusal?.message}
      />
    </AppLayout>,
    (refusal?.status ?? 200) as ContentfulStatusCode,
  );
}

/**
 * A POST on one list: the command, then back to its edit page (or the
 * refusal on it). With `announce`, the script's request gets the members
 * part instead (a refusal stays the page, which the script then loads).
 */
function listCommand(
  command: (c: Context<ApiEnv>, listId: string, p: Params) => Promise<unknown>,
  notice: string,
  announce?: string,
) {
  return async (c: Context<ApiEnv>): Promise<Response> => {
    const list = await ownList(c);
    if (!list) return await sendAppNotFound(c, NOT_FOUND);
    const p = await params(c);
    const q = queryOf(p);
    const refusal = await attempt(() => command(c, list.id, p));
    if (refusal) return await editPage(c, refusal);
    if (announce && wantsFragment(c)) {
      return await sendFragment(
        c,
        <ListMembers
          list={listEntity(list)}
          {...await membersOf(c, list.id, q)}
          q={q}
          token={appViewer(c).csrfToken}
          announce={announce}
        />,
      );
    }
    const back = `/lists/${list.id}/edit${q ? `?q=${encodeURIComponent(q)}` : ""}`;
    return redirectAfterPost(c, back, notice);
  };
}

export function appListRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const db = (c: Context<ApiEnv>) => c.get("ctx").database.db;
  const me = (c: Context<ApiEnv>) => appViewer(c).accountId;

  app.get("/lists", appPage(), (c) => listsPage(c));
  app.post("/lists", appPage(), async (c) => {
    const input = listInput(await params(c));
    try {
      const created = await createList(db(c), me(c), input);
      return redirectAfterPost(c, `/lists/${created.id}/edit`, "saved");
    } catch (error) {
      const refusal = refusalOf(error);
      if (!refusal) throw error;
      return await listsPage(c, refusal);
    }
  });
  const one = "/lists/:id{[0-9]+}";
  app.get(`${one}/edit`, appPage(), (c) => editPage(c));
  app.post(
    `${one}/update`,
    appPage(),
    listCommand((c, id, p) => updateList(db(c), me(c), id, listInput(p)), "saved"),
  );
  app.post(
    `${one}/accounts`,
    appPage(),
    listCommand(
      (c, id, p) => addListAccounts(db(c), me(c), id, accountIds(p)),
      "saved",
      "Added to the list.",
    ),
  );
  app.post(
    `${one}/accounts/remove`,
    appPage(),
    listCommand(
      (c, id, p) => removeListAccounts(db(c), me(c), id, accountIds(p)),
      "saved",
      "Removed from the list.",
    ),
  );
  app.get(`${one}/delete`, appPage(), async (c) => {
    const list = await ownList(c);
    if (!list) return await sendAppNotFound(c, NOT_FOUND);
    const viewer = appViewer(c);
    return await sendAppPage(
      c,
      <AppLayout
        title={`Delete the list ${list.title}?`}
        instanceTitle={c.get("ctx").config.instance.title}
        viewer={viewer}
        current="lists"
      >
        <ConfirmPage
          action={`/lists/${list.id}/delete`}
          token={viewer.csrfToken}
          returnTo="/lists"
          button="Delete"
          cancel={`/lists/${list.id}/edit`}
          danger
        >
          <p>The list goes; the people on it are not told and stay followed.</p>
        </ConfirmPage>
      </AppLayout>,
    );
  });
  app.post(`${one}/delete`, appPage(), async (c) => {
    const list = await ownList(c);
    if (!list) return await sendAppNotFound(c, NOT_FOUND);
    await deleteList(db(c), me(c), list.id);
    return redirectAfterPost(c, "/lists", "list_deleted");
  });
  return app;
}
