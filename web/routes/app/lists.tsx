/**
 * The web app's lists (design 35 §2.5; the list timeline is in
 * timelines.tsx): GET /lists (the viewer's lists, a New list form), POST
 * /lists, GET /lists/:id/edit (settings, members, `?q=` finds people one
 * follows by the API's account search), POST /lists/:id/update,
 * /lists/:id/accounts and /lists/:id/accounts/remove (`account_ids[]`),
 * GET and POST /lists/:id/delete (a confirmation first). The API's commands
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
import { ListEditPage, ListsPage } from "../../pages/app/lists.tsx";
import { ConfirmPage } from "../../pages/app/confirm.tsx";
import { attempt, type Refusal, refusalOf } from "../refusals.ts";
import { appPage, appViewer, sendAppNotFound, sendAppPage } from "./session.tsx";
import { redirectAfterPost } from "./fragments.ts";

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

async function editPage(c: Context<ApiEnv>, refusal?: Refusal): Promise<Response> {
  const ctx = c.get("ctx");
  const viewer = appViewer(c);
  const list = await ownList(c);
  if (!list) return await sendAppNotFound(c, NOT_FOUND);
  const p = await params(c);
  const members = await readListMembers(ctx, list.id, { limit: "0" });
  const q = (readString(p, "q", { allowBlank: true, maxLength: 500 }) ?? "").trim();
  const foundIds = q
    ? await findAccountIds(ctx, {
      q,
      limit: 10,
      offset: 0,
      resolve: false,
      following: true,
      viewerId: viewer.accountId,
    })
    : [];
  const found = await loadAccountEntities(ctx.database.db, ctx.mediaUrls, foundIds);
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
        members={members.items}
        q={q}
        found={found}
        token={viewer.csrfToken}
        error={refusal?.message}
      />
    </AppLayout>,
    (refusal?.status ?? 200) as ContentfulStatusCode,
  );
}

/** A POST on one list: the command, then back to its edit page (or the refusal on it). */
function listCommand(
  command: (c: Context<ApiEnv>, listId: string, p: Params) => Promise<unknown>,
  notice: string,
) {
  return async (c: Context<ApiEnv>): Promise<Response> => {
    const list = await ownList(c);
    if (!list) return await sendAppNotFound(c, NOT_FOUND);
    const p = await params(c);
    const refusal = await attempt(() => command(c, list.id, p));
    if (refusal) return await editPage(c, refusal);
    const q = readString(p, "q", { maxLength: 500 });
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
    listCommand((c, id, p) => addListAccounts(db(c), me(c), id, accountIds(p)), "saved"),
  );
  app.post(
    `${one}/accounts/remove`,
    appPage(),
    listCommand(
      (c, id, p) => removeListAccounts(db(c), me(c), id, accountIds(p)),
      "saved",
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
