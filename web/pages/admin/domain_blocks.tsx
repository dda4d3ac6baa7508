/**
 * The staff domain block pages (Mastodon's admin/instances and
 * admin/domain_blocks): the federation mode, the blocks with their every
 * field, a form to add one, one to edit one, and in allowlist mode the
 * domains allowed. Forms post to web/routes/admin/domain_blocks.tsx.
 */
import type { FC } from "hono/jsx";
import type {
  DomainAllowRow,
  DomainBlockRow,
} from "../../../actors/moderation/instance_domain_blocks.ts";
import { ActionButton, CsrfField, Pagination } from "./layout.tsx";
import { Time } from "./components.tsx";

/** The form's values (as sent, when a post is refused). */
export interface BlockFormState {
  domain?: string;
  severity?: string;
  rejectMedia?: boolean;
  rejectReports?: boolean;
  obfuscate?: boolean;
  privateComment?: string;
  publicComment?: string;
}

const SEVERITY_LABELS: Record<string, string> = {
  silence: "Limit (silence)",
  suspend: "Suspend",
  noop: "None (media or report rules only)",
};

/** The form state of a stored block, for its edit form. */
export function formOfBlock(row: DomainBlockRow): BlockFormState {
  return {
    domain: row.domain,
    severity: row.severity,
    rejectMedia: row.rejectMedia,
    rejectReports: row.rejectReports,
    obfuscate: row.obfuscate,
    privateComment: row.privateComment ?? "",
    publicComment: row.publicComment ?? "",
  };
}

const Check: FC<{ name: string; label: string; checked?: boolean }> = (
  { name, label, checked },
) => (
  <label>
    <input type="checkbox" name={name} value="true" checked={checked ?? false} /> {label}
  </label>
);

/** The fields of a block; the domain only when creating it (Mastodon cannot change it). */
export const BlockForm: FC<{
  action: string;
  token: string;
  state: BlockFormState;
  withDomain: boolean;
  submit: string;
}> = ({ action, token, state, withDomain, submit }) => (
  <form method="post" action={action} class="card block-form">
    <CsrfField token={token} />
    {withDomain
      ? (
        <>
          <label for="block-domain">Domain</label>
          <input
            type="text"
            id="block-domain"
            name="domain"
            value={state.domain ?? ""}
            required
            maxlength={300}
          />
        </>
      )
      : null}
    <label for="block-severity">Severity</label>
    <select id="block-severity" name="severity">
      {Object.entries(SEVERITY_LABELS).map(([value, label]) => (
        <option value={value} selected={(state.severity ?? "silence") === value}>{label}</option>
      ))}
    </select>
    <Check name="reject_media" label="Reject media files" checked={state.rejectMedia} />
    <Check name="reject_reports" label="Reject reports" checked={state.rejectReports} />
    <Check
      name="obfuscate"
      label="Obfuscate the domain in the public list"
      checked={state.obfuscate}
    />
    <label for="block-private">Private comment (staff only)</label>
    <textarea id="block-private" name="private_comment" maxlength={5000}>
      {state.privateComment ?? ""}
    </textarea>
    <label for="block-public">Public comment (the reason shown to everyone)</label>
    <textarea id="block-public" name="public_comment" maxlength={5000}>
      {state.publicComment ?? ""}
    </textarea>
    <div class="actions">
      <button type="submit">{submit}</button>
    </div>
  </form>
);

const yes = (value: boolean) => (value ? "Yes" : "No");

/** A table row's last cell: the button that lifts the block (or allow) of the row. */
const RemoveCell: FC<{ action: string; token: string }> = ({ action, token }) => (
  <td>
    <ActionButton action={action} token={token} label="Remove" variant="danger" />
  </td>
);

const BlockTable: FC<{ rows: DomainBlockRow[]; token: string }> = ({ rows, token }) =>
  rows.length === 0 ? <p class="muted">No domain is blocked.</p> : (
    <table class="domain-blocks">
      <thead>
        <tr>
          <th>Domain</th>
          <th>Severity</th>
          <th>Reject media</th>
          <th>Reject reports</th>
          <th>Obfuscate</th>
          <th>Public comment</th>
          <th>Private comment</th>
          <th>Created</th>
          <th></th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr data-domain={row.domain}>
            <td>
              <a href={`/admin/domain_blocks/${row.id}`}>{row.domain}</a>
            </td>
            <td class="severity">{row.severity}</td>
            <td>{yes(row.rejectMedia)}</td>
            <td>{yes(row.rejectReports)}</td>
            <td>{yes(row.obfuscate)}</td>
            <td>{row.publicComment ?? ""}</td>
            <td>{row.privateComment ?? ""}</td>
            <td>
              <Time at={row.createdAt} day />
            </td>
            <RemoveCell action={`/admin/domain_blocks/${row.id}/delete`} token={token} />
          </tr>
        ))}
      </tbody>
    </table>
  );

const Allows: FC<{ rows: DomainAllowRow[]; token: string; domain?: string }> = (
  { rows, token, domain },
) => (
  <>
    <h2>Allowed domains</h2>
    <p class="muted">
      In allowlist mode this server federates only with the domains below.
    </p>
    {rows.length === 0
      ? <p class="muted">No domain is allowed yet.</p>
      : (
        <table class="domain-allows">
          <tbody>
            {rows.map((row) => (
              <tr data-allow={row.domain}>
                <td>{row.domain}</td>
                <td>
                  <Time at={row.createdAt} day />
                </td>
                <RemoveCell action={`/admin/domain_allows/${row.id}/delete`} token={token} />
              </tr>
            ))}
          </tbody>
        </table>
      )}
    <form method="post" action="/admin/domain_allows" class="filters allow-form">
      <CsrfField token={token} />
      <div>
        <label for="allow-domain">Domain to allow</label>
        <input
          type="text"
          id="allow-domain"
          name="domain"
          value={domain ?? ""}
          required
          maxlength={300}
        />
      </div>
      <button type="submit">Allow</button>
    </form>
  </>
);

export const DomainBlocksPage: FC<{
  mode: "open" | "allowlist";
  blocks: DomainBlockRow[];
  allows: DomainAllowRow[] | null;
  token: string;
  form: BlockFormState;
  allowDomain?: string;
  /** The block a refused new one ran into, to edit instead. */
  existing?: DomainBlockRow;
  newer: string | null;
  older: string | null;
}> = ({ mode, blocks, allows, token, form, allowDomain, existing, newer, older }) => (
  <>
    <p class="federation-mode">
      Federation mode: <strong>{mode === "allowlist" ? "allowlist (limited)" : "open"}</strong>
      {mode === "allowlist"
        ? " — only the allowed domains below federate with this server."
        : " — every server federates with this one unless it is suspended here."}
    </p>
    <BlockTable rows={blocks} token={token} />
    <Pagination newer={newer} older={older} />
    <h2>Block a domain</h2>
    {existing
      ? (
        <p class="existing-block">
          <a href={`/admin/domain_blocks/${existing.id}`}>
            Edit the existing block of {existing.domain}
          </a>
        </p>
      )
      : null}
    <BlockForm
      action="/admin/domain_blocks"
      token={token}
      state={form}
      withDomain
      submit="Add block"
    />
    {allows ? <Allows rows={allows} token={token} domain={allowDomain} /> : null}
  </>
);

export const EditBlockPage: FC<{ row: DomainBlockRow; token: string; form: BlockFormState }> = (
  { row, token, form },
) => (
  <>
    <p class="muted">
      Blocked since <Time at={row.createdAt} day /> ·{" "}
      <a href="/admin/domain_blocks">all domain blocks</a>
    </p>
    <BlockForm
      action={`/admin/domain_blocks/${row.id}`}
      token={token}
      state={form}
      withDomain={false}
      submit="Save"
    />
    <ActionButton
      action={`/admin/domain_blocks/${row.id}/delete`}
      token={token}
      label="Remove this block"
      variant="danger"
    />
  </>
);
