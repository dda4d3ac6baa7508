/**
 * IP addresses and networks as numbers, for IP blocks: parsing what staff
 * type (`192.0.2.7`, `198.51.100.0/24`, `2001:db8::/32`), printing it the
 * way Mastodon shows it (network address and prefix), and testing whether
 * a client address falls inside. An IPv4-mapped IPv6 address
 * (`::ffff:192.0.2.7`, how a dual-stack socket reports IPv4 peers) is
 * treated as the IPv4 address it carries.
 */

/** A network: its version, its address with host bits cleared, and its prefix length. */
export interface Network {
  version: 4 | 6;
  address: bigint;
  prefix: number;
}

function parseV4(s: string): bigint | null {
  const parts = s.split(".");
  if (parts.length !== 4) return null;
  let n = 0n;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return null;
    const v = Number(part);
    if (v > 255) return null;
    n = (n << 8n) | BigInt(v);
  }
  return n;
}

function parseV6(input: string): bigint | null {
  let s = input.toLowerCase();
  if (s.length > 45) return null;
  const v4Tail = /^(.*:)(\d{1,3}(?:\.\d{1,3}){3})$/.exec(s);
  if (v4Tail) {
    const v4 = parseV4(v4Tail[2]);
    if (v4 === null) return null;
    s = v4Tail[1] + ((v4 >> 16n) & 0xffffn).toString(16) + ":" + (v4 & 0xffffn).toString(16);
  }
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const split = (part: string) => (part === "" ? [] : part.split(":"));
  const head = split(halves[0]);
  const tail = halves.length === 2 ? split(halves[1]) : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const groups = [...head, ...Array(halves.length === 2 ? missing : 0).fill("0"), ...tail];
  let n = 0n;
  for (const g of groups) {
    if (!/^[0-9a-f]{1,4}$/.test(g)) return null;
    n = (n << 16n) | BigInt(parseInt(g, 16));
  }
  return n;
}

/** An address as {version, number}, IPv4-mapped IPv6 as IPv4; null when it is not one. */
export function parseAddress(text: string): { version: 4 | 6; address: bigint } | null {
  const s = text.trim();
  if (s.includes(":")) {
    const n = parseV6(s.replace(/%.*$/, ""));
    if (n === null) return null;
    if (n >> 32n === 0xffffn) return { version: 4, address: n & 0xffffffffn };
    return { version: 6, address: n };
  }
  const n = parseV4(s);
  return n === null ? null : { version: 4, address: n };
}

function bitsOf(version: 4 | 6): number {
  return version === 4 ? 32 : 128;
}

function mask(version: 4 | 6, prefix: number): bigint {
  const bits = bitsOf(version);
  return ((1n << BigInt(bits)) - 1n) ^ ((1n << BigInt(bits - prefix)) - 1n);
}

/**
 * A network as staff write it: an address with an optional `/prefix`
 * (absent: the single address). Host bits are cleared, as Ruby's IPAddr
 * (and so Mastodon) does. Null when it is not a valid address or prefix.
 */
export function parseNetwork(text: string): Network | null {
  if (text.length > 100) return null;
  const [addr, prefixText, ...rest] = text.trim().split("/");
  if (rest.length) return null;
  const parsed = parseAddress(addr);
  if (!parsed) return null;
  const mappedV4 = parsed.version === 4 && addr.includes(":");
  const max = bitsOf(parsed.version);
  let prefix = max;
  if (prefixText !== undefined) {
    if (!/^\d{1,3}$/.test(prefixText)) return null;
    prefix = Number(prefixText);
    // A prefix written for the mapped IPv6 form counts from its IPv4 part.
    if (mappedV4) prefix -= 96;
    if (prefix < 0 || prefix > max) return null;
  }
  return {
    version: parsed.version,
    address: parsed.address & mask(parsed.version, prefix),
    prefix,
  };
}

function formatV6(n: bigint): string {
  const groups: number[] = [];
  for (let i = 7; i >= 0; i--) groups.push(Number((n >> BigInt(i * 16)) & 0xffffn));
  // The longest run of zero groups (two or more) becomes "::" (RFC 5952).
  let best = -1, bestLen = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) [best, bestLen] = [i, j - i];
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best < 0) return hex.join(":");
  return `${hex.slice(0, best).join(":")}::${hex.slice(best + bestLen).join(":")}`;
}

/** The network's address alone (`198.51.100.0`, `2001:db8::`). */
export function formatAddress(network: { version: 4 | 6; address: bigint }): string {
  if (network.version === 6) return formatV6(network.address);
  const n = network.address;
  return [24n, 16n, 8n, 0n].map((shift) => String((n >> shift) & 255n)).join(".");
}

/** The network as Mastodon's IpBlock entity shows it: always with its prefix. */
export function formatNetwork(network: Network): string {
  return `${formatAddress(network)}/${network.prefix}`;
}

/** Whether `address` lies inside `network`. */
export function networkContains(
  network: Network,
  address: { version: 4 | 6; address: bigint },
): boolean {
  if (network.version !== address.version) return false;
  return (address.address & mask(network.version, network.prefix)) === network.address;
}
