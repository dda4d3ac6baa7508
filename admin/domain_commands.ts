/**
 * The `domain` admin commands: instance domain blocks
 * (actors/moderation/instance_domain_blocks.ts), as the admin API makes them, with an
 * audit row whose actor is the command line (no account).
 */
import type { Command } from "./command.ts";
import { UsageError } from "./args.ts";
import { formatDate, printable, table } from "./format.ts";
import { NotFoundError, ValidationError } from "../model/errors.ts";
import {
  createDomainBlock,
  type DomainBlockRow,
  ExistingDomainBlockError,
  findDomainBlockByDomain,
  listDomainBlocks,
  removeDomainBlock,
  SEVERITIES,
} from "../actors/moderation/instance_domain_blocks.ts";

function flags(row: DomainBlockRow): string {
  return [
    row.rejectMedia ? "reject-media" : "",
    row.rejectReports ? "reject-reports" : "",
    row.obfuscate ? "obfuscate" : "",
  ].filter(Boolean).join(",");
}

/** Every block, in pages of the admin API's largest size. */
async function allBlocks(db: Parameters<typeof listDomainBlocks>[0]): Promise<DomainBlockRow[]> {
  const rows: DomainBlockRow[] = [];
  let maxId: string | null = null;
  for (;;) {
    const page: DomainBlockRow[] = await listDomainBlocks(db, {
      maxId,
      sinceId: null,
      minId: null,
      limit: 200,
    });
    rows.push(...page);
    if (page.length < 200) return rows;
    maxId = page[page.length - 1].id;
  }
}

/** The commands, merged into the command table. */
export const DOMAIN_COMMANDS: Record<string, Command> = {
  "domain block": {
    usage: "domain block <domain> [--severity silence|suspend|noop] [--reject-media] " +
      "[--reject-reports] [--obfuscate] [--public-comment <text>] [--private-comment <text>]",
    positionals: ["domain"],
    options: {
      severity: "string",
      "reject-media": "boolean",
      "reject-reports": "boolean",
      obfuscate: "boolean",
      "public-comment": "string",
      "private-comment": "string",
    },
    async run({ db }, args) {
      const severity = args.strings.severity ?? "suspend";
      if (!(SEVERITIES as readonly string[]).includes(severity)) {
        throw new UsageError(`--severity must be one of ${SEVERITIES.join(", ")}`);
      }
      try {
        const row = await createDomainBlock({ db }, null, args.positionals.domain, {
          severity,
          rejectMedia: args.flags.has("reject-media"),
          rejectReports: args.flags.has("reject-reports"),
          obfuscate: args.flags.has("obfuscate"),
          publicComment: args.strings["public-comment"] ?? null,
          privateComment: args.strings["private-comment"] ?? null,
        });
        const extra = flags(row);
        return `Blocked ${row.domain} (${row.severity}${extra ? `, ${extra}` : ""}).`;
      } catch (error) {
        if (!(error instanceof ExistingDomainBlockError)) throw error;
        const { domain, severity, id } = error.existing;
        throw new ValidationError({
          domain: [{
            error: "ERR_TAKEN",
            description: `is already covered by a block at least as strict (${domain}, ` +
              `${severity}, id ${id})`,
          }],
        });
      }
    },
  },
  "domain unblock": {
    usage: "domain unblock <domain>",
    positionals: ["domain"],
    options: {},
    async run({ db }, args) {
      const row = await findDomainBlockByDomain(db, args.positionals.domain);
      if (!row) throw new NotFoundError(`${printable(args.positionals.domain)} is not blocked`);
      await removeDomainBlock({ db }, null, row.id);
      return `Unblocked ${row.domain}.`;
    },
  },
  "domain list": {
    usage: "domain list [--json]",
    positionals: [],
    options: { json: "boolean" },
    async run({ db }, args) {
      const rows = await allBlocks(db);
      if (args.flags.has("json")) {
        return JSON.stringify(
          rows.map((r) => ({
            id: r.id,
            domain: r.domain,
            severity: r.severity,
            reject_media: r.rejectMedia,
            reject_reports: r.rejectReports,
            obfuscate: r.obfuscate,
            public_comment: r.publicComment,
            private_comment: r.privateComment,
            created_at: r.createdAt.toISOString(),
          })),
          null,
          2,
        );
      }
      if (!rows.length) return { stdout: "", stderr: "No domain blocks." };
      return table(
        ["DOMAIN", "SEVERITY", "FLAGS", "CREATED", "PUBLIC COMMENT"],
        rows.map((r) => [
          r.domain,
          r.severity,
          flags(r),
          formatDate(r.createdAt),
          (r.publicComment ?? "").slice(0, 60),
        ]),
      );
    },
  },
};
