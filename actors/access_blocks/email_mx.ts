/**
 * What DNS says about a sign-up's e-mail domain, as Mastodon's
 * EmailMxValidator asks it: the domain's mail servers (MX hosts), so that
 * the e-mail domain blocks also catch a provider behind many domain names
 * (one block of its mail host covers every vanity domain it serves), and
 * whether mail can reach the domain at all: the domain or one of its MX
 * hosts must have an A or AAAA record, else the sign-up gets
 * `ERR_UNREACHABLE`. A "null MX" (RFC 7505: the domain takes no mail) is
 * unreachable too, as Mastodon treats it.
 *
 * The lookups run before the registration's transaction, all within
 * {@link EMAIL_DNS_TIMEOUT_MS}. Only an answer refuses: "no such domain"
 * and "no records" (the resolver resolves `[]`). A resolver that fails or
 * does not answer in time (our own DNS trouble, not the user's address)
 * fails open: the address is not called unreachable and only its own domain
 * meets the blocks. (Mastodon's resolver raises on a timeout, which fails
 * the whole request; a 500 is not an answer we give.)
 */
import { normalizeEmailDomain } from "./email_domain_blocks.ts";
import type { EmailDnsRecordType, EmailDnsResolver } from "../../context.ts";

export type { EmailDnsRecordType, EmailDnsResolver } from "../../context.ts";

/** How long a sign-up waits for DNS, every lookup included (Mastodon: 5 s per query). */
export const EMAIL_DNS_TIMEOUT_MS = 3_000;
/** At most this many MX hosts are checked (a hostile zone may list hundreds). */
export const MX_HOSTS_MAX = 10;

/** The system resolver (Deno.resolveDns); Deno's NotFound is "no such name or no records". */
export const systemEmailDnsResolver: EmailDnsResolver = async (name, type, signal) => {
  try {
    if (type === "MX") {
      return (await Deno.resolveDns(name, "MX", { signal })).map((r) => r.exchange);
    }
    return await Deno.resolveDns(name, type, { signal });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
};

/** What the lookups found about an address's domain. */
export interface EmailDomainFacts {
  /** DNS answered that mail cannot reach the domain (no MX, A or AAAA; or a null MX). */
  unreachable: boolean;
  /** The MX hosts (normalized, without the domain itself), at most {@link MX_HOSTS_MAX}. */
  mxHosts: string[];
}

const NOTHING_KNOWN: EmailDomainFacts = { unreachable: false, mxHosts: [] };

/** Whether an MX answer is RFC 7505's null MX: the single exchange ".". */
function isNullMx(exchanges: string[]): boolean {
  return exchanges.length > 0 && exchanges.every((e) => e === "" || e === ".");
}

/**
 * Asks DNS about `email`'s domain (see the module comment). An address
 * without a usable domain gives nothing: its shape is the validation's
 * business, not DNS's.
 */
export async function lookUpEmailDomain(
  email: string,
  resolver: EmailDnsResolver = systemEmailDnsResolver,
  timeoutMs = EMAIL_DNS_TIMEOUT_MS,
): Promise<EmailDomainFacts> {
  const at = email.lastIndexOf("@");
  const domain = at < 0 ? null : normalizeEmailDomain(email.slice(at + 1));
  if (!domain) return NOTHING_KNOWN;
  const abort = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      abort.abort();
      reject(new Error("DNS did not answer in time"));
    }, timeoutMs);
  });
  // Each lookup races the one deadline; a late answer is ignored.
  const ask = (name: string, type: EmailDnsRecordType) =>
    Promise.race([resolver(name, type, abort.signal), deadline]);
  try {
    let exchanges: string[] | null;
    try {
      const answer = await ask(domain, "MX");
      exchanges = Array.isArray(answer) ? answer.filter((e) => typeof e === "string") : [];
    } catch {
      exchanges = null; // DNS trouble: the address's own domain is still asked for addresses
    }
    if (exchanges && isNullMx(exchanges)) return { unreachable: true, mxHosts: [] };
    const mxHosts: string[] = [];
    for (const exchange of exchanges ?? []) {
      const host = normalizeEmailDomain(exchange);
      if (host && host !== domain && !mxHosts.includes(host)) mxHosts.push(host);
      if (mxHosts.length >= MX_HOSTS_MAX) break;
    }
    // Reachable as soon as one name has an address; unreachable only when
    // every lookup answered (and answered nothing).
    const lookups = [domain, ...mxHosts].flatMap((host) =>
      (["A", "AAAA"] as const).map((type) => ask(host, type))
    );
    const results = await Promise.allSettled(lookups);
    const found = results.some((r) => r.status === "fulfilled" && r.value.length > 0);
    const allAnswered = exchanges != null && results.every((r) => r.status === "fulfilled");
    return { unreachable: !found && allAnswered, mxHosts };
  } catch {
    // Fail open: DNS trouble must not stop sign-ups.
    return NOTHING_KNOWN;
  } finally {
    clearTimeout(timer);
    // Lookups still running after the answer is known are not waited for.
    abort.abort();
  }
}
