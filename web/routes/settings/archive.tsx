/**
 * The archive export of the settings (issue 20), for the signed-in user
 * (the settings gate, session.ts):
 * - GET /settings/archive: the request button and the user's archives;
 * - POST /settings/archive: records a request with its build job
 *   (actors/import_export/archive.ts, at most one a week: else 422 with the
 *   date of the next; jobs/archive_export.ts builds it);
 * - GET /settings/archives/:id/download: the zip, streamed from its file;
 *   someone else's archive, an unknown id or one not built answers 404.
 */
import { type Context, Hono } from "hono";
import type { ApiEnv } from "../../../api/env.ts";
import { isId } from "../../../db/ids.ts";
import {
  archiveFile,
  ArchiveTooSoon,
  findOwnArchive,
  listArchives,
  nextArchiveAt,
  requestArchive,
} from "../../../actors/import_export/archive.ts";
import { NotFoundError } from "../../../model/errors.ts";
import { ArchivePage } from "../../pages/settings/archive.tsx";
import { MessagePage } from "../../pages/auth/layout.tsx";
import { sendUserPage, settingsSession, setUserPageHeaders, userPage } from "./session.ts";

const NOTICES: Record<string, string> = {
  requested: "Your archive is being prepared. You will get an e-mail when it is ready to download.",
};

async function archivePage(
  c: Context<ApiEnv>,
  options: { notice?: string; alert?: string; status?: 200 | 422 } = {},
): Promise<Response> {
  const { config, database } = c.get("ctx");
  const session = settingsSession(c);
  const [archives, nextAt] = await Promise.all([
    listArchives(database.db, session.user.userId),
    nextArchiveAt(database.db, session.user.userId),
  ]);
  return await sendUserPage(
    c,
    <ArchivePage
      instanceTitle={config.instance.title}
      viewer={{ username: session.user.username, csrfToken: session.csrfToken }}
      archives={archives}
      nextAt={nextAt}
      notice={options.notice}
      alert={options.alert}
    />,
    options.status ?? 200,
  );
}

function notFound(c: Context<ApiEnv>, text = "There is no such archive on your account.") {
  return sendUserPage(
    c,
    <MessagePage
      title="Not found"
      instanceTitle={c.get("ctx").config.instance.title}
      text={text}
      alert
      links={[{ href: "/settings/archive", label: "Your archives" }]}
    />,
    404,
  );
}

export function archiveSettingsRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.use("/settings/archive", userPage());
  app.use("/settings/archives/*", userPage());

  app.get(
    "/settings/archive",
    async (c) => await archivePage(c, { notice: NOTICES[c.req.query("notice") ?? ""] }),
  );

  app.post("/settings/archive", async (c) => {
    const ctx = c.get("ctx");
    try {
      await requestArchive(ctx.database.db, settingsSession(c).user.userId);
    } catch (error) {
      if (!(error instanceof ArchiveTooSoon)) throw error;
      const next = error.nextAt.toISOString().slice(0, 16).replace("T", " ");
      return await archivePage(c, {
        alert: `You can request one archive a week: the next from ${next} UTC.`,
        status: 422,
      });
    }
    return c.redirect("/settings/archive?notice=requested", 303);
  });

  app.get("/settings/archives/:id/download", async (c) => {
    const id = c.req.param("id");
    if (!isId(id)) return await notFound(c);
    const { database, config } = c.get("ctx");
    let archive;
    try {
      archive = await findOwnArchive(database.db, settingsSession(c).user.userId, id);
    } catch (error) {
      if (error instanceof NotFoundError) return await notFound(c);
      throw error;
    }
    if (archive.state !== "done" || !archive.fileKey) {
      return await notFound(c, "This archive is not ready (or could not be made).");
    }
    let file: Deno.FsFile;
    try {
      file = await Deno.open(archiveFile(config.dataDir, archive.fileKey), { read: true });
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return await notFound(c);
      throw error;
    }
    setUserPageHeaders(c);
    c.header("Content-Type", "application/zip");
    c.header("Content-Disposition", `attachment; filename="${archive.fileKey}"`);
    if (archive.size != null) c.header("Content-Length", String(archive.size));
    return c.body(file.readable);
  });
  return app;
}
