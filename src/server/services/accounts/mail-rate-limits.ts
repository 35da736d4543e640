import { enforceRateLimits, type BucketPolicy } from "../../rate-limit/rate-limiter";
import { rateLimitSubject } from "../../rate-limit/credential-limits";

/**
 * Mail that anyone can make us send (resets) or an account can repeat
 * (verification) is limited per address and per client address, so we never
 * become a way to flood someone's mailbox. The same buckets apply whether or
 * not the address has an account, so the limit reveals nothing.
 */
const PER_EMAIL: BucketPolicy = { capacity: 5, refillPerSecond: 5 / 3600 };
const PER_IP: BucketPolicy = { capacity: 20, refillPerSecond: 20 / 3600 };

export async function enforceMailLimits(opts: { kind: "verify" | "reset"; email: string; ip: string }): Promise<void> {
  await enforceRateLimits([
    { key: `mail:${opts.kind}:ip:${rateLimitSubject(opts.ip)}`, policy: PER_IP },
    { key: `mail:${opts.kind}:email:${opts.email.toLowerCase()}`, policy: PER_EMAIL },
  ]);
}
