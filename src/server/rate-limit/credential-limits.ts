import { isIPv4, isIPv6 } from "node:net";

/**
 * Who a rate limit counts as one client. An IPv6 customer gets a whole /64
 * (often far more), so counting single IPv6 addresses would let one client walk
 * around every per-IP limit: it is counted by its /64. An IPv4-mapped IPv6
 * address (`::ffff:192.0.2.1`, what a dual-stack socket reports) is that IPv4
 * address. Anything unparseable is counted as given (cut short: it is a key).
 */
export function rateLimitSubject(ip: string): string {
  const address = ip.trim().replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  if (isIPv4(address)) return address;
  if (!isIPv6(address)) return ip.slice(0, 64);
  const hextets = expandIPv6(address);
  if (hextets.slice(0, 5).every((h) => h === 0) && hextets[5] === 0xffff) {
    return [hextets[6]! >> 8, hextets[6]! & 0xff, hextets[7]! >> 8, hextets[7]! & 0xff].join(".");
  }
  return `${hextets.slice(0, 4).map((h) => h.toString(16)).join(":")}::/64`;
}

/** Eight 16-bit groups of a valid IPv6 address (`::` expanded, a dotted IPv4 tail converted). */
function expandIPv6(address: string): number[] {
  let text = address.toLowerCase();
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4[1]!.split(".").map(Number) as [number, number, number, number];
    text = text.slice(0, -v4[1]!.length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes("::") ? (text.split("::") as [string, string]) : [text, undefined];
  const parse = (part: string) => (part ? part.split(":").map((h) => parseInt(h, 16)) : []);
  const left = parse(head);
  if (tail === undefined) return left;
  const right = parse(tail);
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

export type CredentialLimit = { key: string; policy: "authPair" | "authEmail" | "authIp" };

/**
 * decisions §5, login and register limits that stop guessers without locking
 * out the account's owner. Three buckets, checked in this order:
 * - per address: 10 a minute, before the body is even parsed (`stage: "address"`);
 * - per (email, address): 10 a minute, so ten wrong passwords from elsewhere
 *   never touch the owner's own bucket;
 * - per email across all addresses: 100 an hour, so a guesser spread over many
 *   addresses is still bounded.
 * A request stopped by the pair bucket takes nothing from the email ceiling.
 */
export function credentialLimits(opts: { procedure: string; ip: string; email?: string; stage: "address" | "credentials" }): CredentialLimit[] {
  const subject = rateLimitSubject(opts.ip);
  if (opts.stage === "address") return [{ key: `${opts.procedure}:ip:${subject}`, policy: "authIp" }];
  const email = (opts.email ?? "").trim().toLowerCase();
  return [
    { key: `${opts.procedure}:email-ip:${email}|${subject}`, policy: "authPair" },
    { key: `${opts.procedure}:email:${email}`, policy: "authEmail" },
  ];
}
