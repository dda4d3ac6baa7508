/**
 * The mail servers (MX hosts) of a sign-up's e-mail domain, so that the
 * e-mail domain blocks also catch a provider behind many domain names (one
 * block of its mail host covers every vanity domain it serves), as
 * Mastodon's EmailMxValidator does. The lookup runs before the
 * registration's transaction, within {@link MX_TIMEOUT_MS}, and fails open:
 * no answer (no DNS, a timeout, a domain without MX records) means only the
 * address's own domain is checked. Mastodon also refuses domains that have
 * neither MX nor A records (`unreachable`); Rookery does not, since it cannot
 * tell a missing record from an unreachable resolver.
 */
import { normalizeEmailDomain } from "./email_domain_blocks.ts";

/** Looks up a domain's MX hosts; `signal` aborts it at the deadline. */
export type MxResolver = (domain: string, signal: AbortSignal) => Promise<string[]>;

/** How long a sign-up waits for DNS (Mastodon: 5 s). */
export const MX_TIMEOUT_MS = 3_000;
/** At most this many MX hosts are checked (a hostile zone may list hundreds). */
export const MX_HOSTS_MAX = 10;

/** The system resolver (Deno.resolveDns). */
export const systemMxResolver: MxResolver = async (domain, signal) => {
  const records = await Deno.resolveDns(domain, "MX", { signal });
  return records.map((r) => r.exchange);
};

/**
 * The MX hosts of `email`'s domain (normalized, without the domain itself),
 * or none when the address has no domain or DNS does not answer in time.
 */
export async function mxHostsOf(
  email: string,
  resolver: MxResolver = systemMxResolver,
  timeoutMs = MX_TIMEOUT_MS,
): Promise<string[]> {
  const at = email.lastIndexOf("@");
  const domain = at < 0 ? null : normalizeEmailDomain(email.slice(at + 1));
  if (!domain) return [];
  const abort = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<null>((resolve) => {
    timer = setTimeout(() => {
      abort.abort();
      resolve(null);
    }, timeoutMs);
  });
  try {
    const hosts = await Promise.race([resolver(domain, abort.signal), deadline]);
    if (!hosts) return [];
    const out = new Set<string>();
    for (const host of hosts) {
      const name = typeof host === "string" ? normalizeEmailDomain(host) : null;
      if (name && name !== domain) out.add(name);
      if (out.size >= MX_HOSTS_MAX) break;
    }
    return [...out];
  } catch {
    // Fail open: DNS trouble must not stop sign-ups.
    return [];
  } finally {
    clearTimeout(timer);
  }
}
