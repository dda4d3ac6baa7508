/**
 * The instance's own pages: `/` (landing: title, description, thumbnail,
 * figures, sign-up and sign-in, or the signed-in visitor's profile) and
 * `/about` (extended description, rules, contact, moderated servers when
 * SHOW_DOMAIN_BLOCKS lets this visitor see them, as the instance API does).
 * The figures and the contact are the instance API's own (routes/instance.ts).
 * `/privacy-policy` and `/terms-of-service`: the operator's documents as
 * pages (the instance API's own: api/routes/instance_documents.ts).
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { ApiEnv } from "../../../api/env.ts";
import { extendedDescription, thumbnailUrl } from "../../../api/entities/instance.ts";
import { serializeDomainBlock } from "../../../api/entities/domain_block.ts";
import { publicDomainBlocks } from "../../../actors/moderation/instance_domain_blocks.ts";
import { loadContactAccount, loadCounts, loadRules } from "../../../api/routes/instance.ts";
import { domainBlocksShown } from "../../../api/routes/instance_domain_blocks.ts";
import {
  AboutPage,
  DocumentPage,
  type InstanceSummary,
  LandingPage,
} from "../../pages/public/about.tsx";
import { publicViewer, sendMessagePage, sendPublicPage } from "./public_page_kit.ts";
import { day, loadInstanceDocument } from "../../../api/routes/instance_documents.ts";

/** The instance as the landing and about pages show it. */
export async function instanceSummary(c: Context<ApiEnv>): Promise<InstanceSummary> {
  const { config, database } = c.get("ctx");
  const counts = await loadCounts(database);
  return {
    title: config.instance.title,
    origin: config.origin,
    description: config.instance.description,
    thumbnail: thumbnailUrl(config),
    userCount: counts.userCount,
    statusCount: counts.statusCount,
    registrations: config.registrations,
  };
}

export function instancePageRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get("/", async (c) => {
    const [instance, viewer] = await Promise.all([instanceSummary(c), publicViewer(c)]);
    return await sendPublicPage(c, LandingPage({ instance, viewer }));
  });

  app.get("/about", async (c) => {
    const ctx = c.get("ctx");
    const { config } = ctx;
    const viewer = await publicViewer(c);
    const [instance, rules, contactAccount] = await Promise.all([
      instanceSummary(c),
      loadRules(ctx.database),
      loadContactAccount(ctx),
    ]);
    let moderated = null;
    if (domainBlocksShown(config.showDomainBlocks, viewer != null)) {
      const withComment = domainBlocksShown(config.showDomainBlocksRationale, viewer != null);
      moderated = (await publicDomainBlocks(ctx.database.db)).map((row) => {
        const json = serializeDomainBlock(row, withComment);
        return { domain: json.domain, severity: json.severity, comment: json.comment ?? null };
      });
    }
    return await sendPublicPage(
      c,
      AboutPage({
        instance,
        extended: extendedDescription(config.instance.extendedDescription).content,
        rules: rules.map((r) => ({ text: r.text, hint: r.hint })),
        contactAccount,
        contactEmail: config.instance.contactEmail,
        moderated,
        viewer,
      }),
    );
  });

  for (
    const [path, kind, title] of [
      ["/privacy-policy", "privacy", "Privacy policy"],
      ["/terms-of-service", "terms", "Terms of service"],
    ] as const
  ) {
    app.get(path, async (c) => {
      const { config } = c.get("ctx");
      const doc = await loadInstanceDocument(config, kind);
      if (!doc) {
        return await sendMessagePage(
          c,
          404,
          "Not found",
          `This server has no ${title.toLowerCase()}.`,
        );
      }
      return await sendPublicPage(
        c,
        DocumentPage({
          instanceTitle: config.instance.title,
          title,
          updated: day(doc.updatedAt),
          content: doc.content,
          viewer: await publicViewer(c),
        }),
      );
    });
  }

  return app;
}
