/**
 * The staff domain block pages (permission manage_federation: admins and
 * the owner):
 * - GET /admin/domain_blocks: the federation mode, the blocks (newest
 *   first, paged by id), the form to add one, and in allowlist mode the
 *   domains allowed with a form to add one.
 * - POST /admin/domain_blocks: block a domain; GET and POST
 *   /admin/domain_blocks/:id: edit a block; POST …/:id/delete: lift it.
 * - POST /admin/domain_allows and /admin/domain_allows/:id/delete.
 * Every command is actors/moderation/instance_domain_blocks.ts, called as the admin
 * API calls it (audit row, the process's rules forgotten at once). A
 * refusal re-renders the form as sent with the reason (422; Mastodon's
 * "already imposed stricter limits" for an existing block).
 */
import { type Context, Hono } from "hono";
import type { ApiEnv } from "../../../api/env.ts";
import { type Params, params } from "../../../api/params.ts";
import { readBoolean, readString } from "../../../api/readers.ts";
import { readPageParams } from "../../../api/pagination.ts";
import { isId } from "../../../db/ids.ts";
import {
  COMMENT_MAX,
  createDomainAllow,
  createDomainBlock,
  type DomainBlockInput,
  type DomainBlockRow,
  ExistingDomainBlockError,
  findDomainBlock,
  listDomainAllows,
  listDomainBlocks,
  removeDomainAllow,
  removeDomainBlock,
  type Target,
  updateDomainBlock,
} from "../../../actors/moderation/instance_domain_blocks.ts";
import { NotFoundError } from "../../../model/errors.ts";
import { registerNotices } from "../../pages/admin/layout.tsx";
import {
  type BlockFormState,
  DomainBlocksPage,
  EditBlockPage,
  formOfBlock,
} from "../../pages/admin/domain_blocks.tsx";
import { staffModerator, staffPage } from "./session.ts";
import {
  attempt,
  pageLinks,
  redirectWithNotice,
  type Refusal,
  refusalOf,
  sendFramed,
  sendNotFound,
} from "./page_frame.tsx";

registerNotices({
  domain_block_created: "The domain is blocked.",
  domain_block_updated: "The domain block was changed.",
  domain_block_removed: "The domain block was lifted.",
  domain_allow_created: "The domain is allowed.",
  domain_allow_removed: "The domain is no longer allowed.",
});

const GATE = staffPage("manage_federation");
const LIST_PAGE = { default: 50, max: 200 } as const;
/** The allow-list is shown whole up to this many (allowlist instances allow few). */
const ALLOWS_SHOWN = 200;

function target(c: Context<ApiEnv>): Target {
  const { database, core } = c.get("ctx");
  return { db: database.db, rules: core.domainRules };
}

/** The form's raw values, to show again after a refusal. */
function formOf(p: Params): BlockFormState {
  const raw = (key: string) => (typeof p[key] === "string" ? (p[key] as string) : undefined);
  return {
    domain: raw("domain")?.slice(0, 300),
    severity: raw("severity"),
    rejectMedia: raw("reject_media") !== undefined,
    rejectReports: raw("reject_reports") !== undefined,
    obfuscate: raw("obfuscate") !== undefined,
    privateComment: raw("private_comment"),
    publicComment: raw("public_comment"),
  };
}

/**
 * The block's fields from the form, as the admin API reads them: every
 * field is on the form, so an unticked box (absent) means false.
 */
function readInput(p: Params): DomainBlockInput {
  const comment = (key: string) => {
    const value = readString(p, key, { allowBlank: true, maxLength: COMMENT_MAX });
    return value === undefined || value.trim() === "" ? null : value;
  };
  return {
    severity: readString(p, "severity", { maxLength: 32 }),
    rejectMedia: readBoolean(p, "reject_media") ?? false,
    rejectReports: readBoolean(p, "reject_reports") ?? false,
    privateComment: comment("private_comment"),
    publicComment: comment("public_comment"),
    obfuscate: readBoolean(p, "obfuscate") ?? false,
  };
}

/** The list page, with a refused form's values and reason when there is one. */
async function listPage(
  c: Context<ApiEnv>,
  refused?: {
    refusal: Refusal;
    form?: BlockFormState;
    allowDomain?: string;
    existing?: DomainBlockRow;
  },
): Promise<Response> {
  const { config, database } = c.get("ctx");
  const p = await params(c);
  // A refused post re-renders the first page, whatever its body held.
  const page = refused
    ? { maxId: null, sinceId: null, minId: null, limit: LIST_PAGE.default }
    : readPageParams(p, LIST_PAGE);
  const allowlist = config.federationMode === "allowlist";
  const [blocks, allows] = await Promise.all([
    listDomainBlocks(database.db, page),
    allowlist
      ? listDomainAllows(database.db, {
        maxId: null,
        sinceId: null,
        minId: null,
        limit: ALLOWS_SHOWN,
      })
      : Promise.resolve(null),
  ]);
  const { newer, older } = pageLinks(
    page,
    LIST_PAGE,
    blocks.map((b) => b.id),
    (cursor) => `/admin/domain_blocks?${new URLSearchParams(cursor)}`,
  );
  return await sendFramed(c, {
    title: "Domain blocks",
    section: "domain_blocks",
    alert: refused?.refusal.message,
    status: refused?.refusal.status,
    body: (
      <DomainBlocksPage
        mode={config.federationMode}
        blocks={blocks}
        allows={allows}
        token={c.get("staff")!.csrfToken}
        form={refused?.form ?? {}}
        allowDomain={refused?.allowDomain}
        existing={refused?.existing}
        newer={newer}
        older={older}
      />
    ),
  });
}

async function editPage(
  c: Context<ApiEnv>,
  refused?: { refusal: Refusal; form: BlockFormState },
): Promise<Response> {
  const id = c.req.param("id") ?? "";
  let row;
  try {
    row = await findDomainBlock(c.get("ctx").database.db, id);
  } catch (error) {
    if (error instanceof NotFoundError) return await sendNotFound(c, "domain_blocks");
    throw error;
  }
  return await sendFramed(c, {
    title: `Domain block: ${row.domain}`,
    section: "domain_blocks",
    alert: refused?.refusal.message,
    status: refused?.refusal.status,
    body: (
      <EditBlockPage
        row={row}
        token={c.get("staff")!.csrfToken}
        form={refused ? { ...refused.form, domain: row.domain } : formOfBlock(row)}
      />
    ),
  });
}

export function domainBlockPages(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get("/admin/domain_blocks", GATE, (c) => listPage(c));

  app.post("/admin/domain_blocks", GATE, async (c) => {
    const p = await params(c);
    try {
      const domain = readString(p, "domain", { allowBlank: true, maxLength: 300 }) ?? "";
      await createDomainBlock(target(c), staffModerator(c).accountId, domain, readInput(p));
    } catch (error) {
      const refusal: Refusal | null = error instanceof ExistingDomainBlockError
        ? { status: 422, message: error.message }
        : refusalOf(error);
      if (!refusal) throw error;
      const existing = error instanceof ExistingDomainBlockError ? error.existing : undefined;
      return await listPage(c, { refusal, form: formOf(p), existing });
    }
    return redirectWithNotice(c, "/admin/domain_blocks", "domain_block_created");
  });

  app.get("/admin/domain_blocks/:id", GATE, (c) => editPage(c));

  app.post("/admin/domain_blocks/:id", GATE, async (c) => {
    const p = await params(c);
    const id = c.req.param("id");
    const refusal = await attempt(() =>
      updateDomainBlock(target(c), staffModerator(c).accountId, id, readInput(p))
    );
    if (refusal?.status === 404) return await sendNotFound(c, "domain_blocks");
    if (refusal) return await editPage(c, { refusal, form: formOf(p) });
    return redirectWithNotice(c, "/admin/domain_blocks", "domain_block_updated");
  });

  app.post("/admin/domain_blocks/:id/delete", GATE, async (c) => {
    const refusal = await attempt(() =>
      removeDomainBlock(target(c), staffModerator(c).accountId, c.req.param("id"))
    );
    if (refusal) return await sendNotFound(c, "domain_blocks");
    return redirectWithNotice(c, "/admin/domain_blocks", "domain_block_removed");
  });

  app.post("/admin/domain_allows", GATE, async (c) => {
    const p = await params(c);
    let sent = "";
    const refusal = await attempt(async () => {
      sent = readString(p, "domain", { allowBlank: true, maxLength: 300 }) ?? "";
      await createDomainAllow(target(c), staffModerator(c).accountId, sent);
    });
    if (refusal) return await listPage(c, { refusal, allowDomain: sent });
    return redirectWithNotice(c, "/admin/domain_blocks", "domain_allow_created");
  });

  app.post("/admin/domain_allows/:id/delete", GATE, async (c) => {
    const id = c.req.param("id");
    if (!isId(id)) return await sendNotFound(c, "domain_blocks");
    const refusal = await attempt(() =>
      removeDomainAllow(target(c), staffModerator(c).accountId, id)
    );
    if (refusal) return await sendNotFound(c, "domain_blocks");
    return redirectWithNotice(c, "/admin/domain_blocks", "domain_allow_removed");
  });
  return app;
}
