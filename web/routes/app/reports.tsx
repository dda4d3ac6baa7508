/**
 * The web app's reports (design 35 §2.4, Mastodon's report flow):
 * - GET /reports/new?account_id=&status_ids[]=: the form (web/pages/app/report.tsx)
 *   for an account the viewer may see, with its 20 latest posts as the
 *   viewer sees them (the posts asked for ticked, and listed too when
 *   older), this server's rules and, for a remote account, the forward box.
 * - POST /reports: the API's reader (readReportInput) and command
 *   (fileReport), so the same rules hold: a post that is not the account's
 *   or not visible is a 404, a long comment or missing rules a 422 shown on
 *   the form with what was chosen. Rules count only with "It breaks the
 *   server's rules" (Mastodon's web asks for them only then); a report
 *   with rules is a violation whatever else was ticked, as the API's.
 *   Success: 303 to `return_to` (else the profile) with `?notice=reported`.
 */
import { type Context, Hono } from "hono";
import type { ApiEnv } from "../../../api/env.ts";
import { type Params, params } from "../../../api/params.ts";
import { readBoolean, readString, readStringArray } from "../../../api/readers.ts";
import { readReportInput } from "../../../api/routes/reports.ts";
import { loadRules } from "../../../api/routes/instance.ts";
import { readAccountStatuses } from "../../../api/reads/account_statuses.ts";
import { readStatus } from "../../../api/reads/statuses.ts";
import type { Account } from "../../../api/entities/account.ts";
import type { StatusJson } from "../../../api/entities/status.ts";
import { fileReport, REPORT_LIST_MAX } from "../../../actors/moderation/report_filing.ts";
import { AppLayout } from "../../pages/app/layout.tsx";
import { type ReportChoices, ReportForm } from "../../pages/app/report.tsx";
import { accountPath } from "../../pages/status/links.ts";
import { refusalOf } from "../refusals.ts";
import { appPage, appViewer, sendAppNotFound, sendAppPage } from "./session.tsx";
import { returnTo } from "./return_to.ts";
import { redirectAfterPost } from "./fragments.ts";
import { viewableAccount } from "./accounts.tsx";

const NOT_FOUND = "This account or post does not exist, or is not known here.";

/** The account's latest posts, and the asked-for ones of theirs not among them. */
async function postsToChoose(
  c: Context<ApiEnv>,
  account: Account,
  asked: string[],
): Promise<StatusJson[]> {
  const ctx = c.get("ctx");
  const viewer = { accountId: appViewer(c).accountId };
  const read = await readAccountStatuses(
    ctx,
    { id: account.id, suspended: !!account.suspended },
    viewer,
    {},
  );
  const posts = read.items.filter((s) => !s.reblog);
  for (const id of asked.slice(0, REPORT_LIST_MAX)) {
    if (posts.some((s) => s.id === id)) continue;
    const found = await readStatus(ctx, viewer, id);
    if (found && found.status.account.id === account.id) posts.push(found.status);
  }
  return posts;
}

/** The form page, first shown or shown again after a refusal (422). */
async function formPage(
  c: Context<ApiEnv>,
  account: Account,
  chosen: ReportChoices,
  back: string,
  error?: string,
): Promise<Response> {
  const ctx = c.get("ctx");
  const viewer = appViewer(c);
  const [posts, rules] = await Promise.all([
    postsToChoose(c, account, chosen.statusIds),
    loadRules(ctx.database),
  ]);
  return await sendAppPage(
    c,
    <AppLayout
      title={`Report @${account.acct}`}
      instanceTitle={ctx.config.instance.title}
      viewer={viewer}
    >
      <ReportForm
        account={account}
        posts={posts}
        rules={rules}
        chosen={chosen}
        token={viewer.csrfToken}
        returnTo={back}
        error={error}
      />
    </AppLayout>,
    error ? 422 : 200,
  );
}

/** What the request chose (the form's fields, or the query's post). */
function choicesOf(p: Params): ReportChoices {
  const list = { maxItems: REPORT_LIST_MAX };
  return {
    category: readString(p, "category", { maxLength: 64 }) ?? "",
    ruleIds: readStringArray(p, "rule_ids", list) ?? [],
    statusIds: readStringArray(p, "status_ids", list) ?? [],
    comment: readString(p, "comment", { allowBlank: true }) ?? "",
    forward: readBoolean(p, "forward") ?? false,
  };
}

async function newReport(c: Context<ApiEnv>): Promise<Response> {
  const p = await params(c);
  const viewer = appViewer(c);
  const account = await viewableAccount(
    c.get("ctx"),
    viewer.accountId,
    readString(p, "account_id", { maxLength: 64 }),
  );
  if (!account || account.id === viewer.accountId) return await sendAppNotFound(c, NOT_FOUND);
  return await formPage(c, account, choicesOf(p), returnTo(p, accountPath(account)));
}

async function sendReport(c: Context<ApiEnv>): Promise<Response> {
  const p = await params(c);
  const viewer = appViewer(c);
  const input = readReportInput(p);
  const account = input
    ? await viewableAccount(c.get("ctx"), viewer.accountId, input.targetAccountId)
    : null;
  if (!input || !account) return await sendAppNotFound(c, NOT_FOUND);
  const back = returnTo(p, accountPath(account));
  if (input.category !== "violation") input.ruleIds = [];
  try {
    await fileReport(c.get("ctx"), viewer.accountId, input);
  } catch (error) {
    const refusal = refusalOf(error);
    if (!refusal) throw error;
    if (refusal.status === 404) return await sendAppNotFound(c, NOT_FOUND);
    return await formPage(c, account, choicesOf(p), back, refusal.message);
  }
  return redirectAfterPost(c, back, "reported");
}

export function appReportRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get("/reports/new", appPage(), newReport);
  app.post("/reports", appPage(), sendReport);
  return app;
}
