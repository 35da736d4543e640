import { describe, expect, it } from "vitest";
import { statusForSubscription } from "../../src/server/services/billing/account-status-rules";

describe("account status from a Stripe subscription", () => {
  it.each([
    ["active", "ACTIVE"],
    ["trialing", "ACTIVE"],
    ["past_due", "SUSPENDED"],
    ["unpaid", "SUSPENDED"],
    ["canceled", "SUSPENDED"],
    ["incomplete_expired", "SUSPENDED"],
    ["paused", "SUSPENDED"],
    ["incomplete", null],
    ["something-new", null],
  ])("%s → %s", (sub, status) => {
    expect(statusForSubscription(sub)).toBe(status);
  });
});
