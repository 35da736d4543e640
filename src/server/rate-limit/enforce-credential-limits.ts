import { POLICIES, enforceRateLimits, type BucketPolicy, type TakeResult } from "./rate-limiter";
import type { CredentialLimit } from "./credential-limits";

/** Takes one token from each credential bucket with its policy; the first empty one is a 429 with Retry-After. */
export function enforceCredentialLimits(
  limits: CredentialLimit[],
  report?: (result: TakeResult, policy: BucketPolicy) => void,
): Promise<void> {
  return enforceRateLimits(
    limits.map((l) => ({ key: l.key, policy: POLICIES[l.policy] })),
    report,
  );
}
