import ipaddr from "ipaddr.js";

/**
 * Who a rate limit counts as one client. An IPv6 customer gets a whole /64
 * (often far more), so counting single IPv6 addresses would let one client walk
 * around every per-IP limit: it is counted by its /64. An IPv4-mapped IPv6
 * address (`::ffff:192.0.2.1`, what a dual-stack socket reports) is that IPv4
 * address. Anything unparseable is counted as given (cut short: it is a key).
 */
export function rateLimitSubject(ip: string): string {
  const address = ip
    .trim()
    .replace(/^\[|\]$/g, "")
    .replace(/%.*$/, "");
  if (!ipaddr.isValid(address)) return ip.slice(0, 64);
  const parsed = ipaddr.process(address); // IPv4-mapped IPv6 becomes its IPv4 address
  if (parsed.kind() === "ipv4") return parsed.toString();
  return `${parsed.toNormalizedString().split(":").slice(0, 4).join(":")}::/64`;
}

export type CredentialLimit = { key: string; policy: "authPair" | "authEmail" | "authIp" };

/**
 * docs/decisions.md §5, login and register limits that stop guessers without locking
 * out the account's owner. Three buckets, checked in this order:
 * - per address: 10 a minute, before the body is even parsed (`stage: "address"`);
 * - per (email, address): 10 a minute, so ten wrong passwords from elsewhere
 *   never touch the owner's own bucket;
 * - per email across all addresses: 100 an hour, so a guesser spread over many
 *   addresses is still bounded.
 * A request stopped by the pair bucket takes nothing from the email ceiling.
 */
export function credentialLimits(opts: {
  procedure: string;
  ip: string;
  email?: string;
  stage: "address" | "credentials";
}): CredentialLimit[] {
  const subject = rateLimitSubject(opts.ip);
  if (opts.stage === "address") return [{ key: `${opts.procedure}:ip:${subject}`, policy: "authIp" }];
  const email = (opts.email ?? "").trim().toLowerCase();
  return [
    { key: `${opts.procedure}:email-ip:${email}|${subject}`, policy: "authPair" },
    { key: `${opts.procedure}:email:${email}`, policy: "authEmail" },
  ];
}

/** The log-in procedure's path, the prefix of its buckets. */
export const LOGIN_PROCEDURE = "auth.login";

/**
 * docs/decisions.md §20: a password checked inside a session (change password, change
 * email, close account) takes from log-in's own (email, address) and per-email
 * buckets, so a stolen session guesses no faster than a stranger at the log-in
 * form, and the two cannot be alternated to double the rate.
 */
export function sessionPasswordCheckLimits(opts: { ip: string; email: string }): CredentialLimit[] {
  return credentialLimits({ procedure: LOGIN_PROCEDURE, ip: opts.ip, email: opts.email, stage: "credentials" });
}
