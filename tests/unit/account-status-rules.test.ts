import { describe, expect, it } from "vitest";
import {
  adoptsCheckout,
  invoiceCounts,
  isEndedSubscription,
  statusForSubscription,
  subscriptionEventFor,
} from "../../src/server/services/billing/account-status-rules";

describe("account status from a Stripe subscription", () => {
  it.each([
    ["active", "ACTIVE"],
    ["trialing", "ACTIVE"],
    // Stripe is retrying the charge: the account keeps its status (and the dashboard warns).
    ["past_due", null],
    ["unpaid", "SUSPENDED"],
    ["canceled", "SUSPENDED"],
    ["incomplete_expired", "SUSPENDED"],
    ["paused", "SUSPENDED"],
    ["incomplete", null],
    ["something-new", null],
  ])("%s → %s", (sub, status) => {
    expect(statusForSubscription(sub)).toBe(status);
  });

  it("canceled and incomplete_expired are final", () => {
    expect(isEndedSubscription("canceled")).toBe(true);
    expect(isEndedSubscription("incomplete_expired")).toBe(true);
    expect(isEndedSubscription("past_due")).toBe(false);
    expect(isEndedSubscription(null)).toBe(false);
  });
});

describe("which subscription an event speaks for", () => {
  const living = { subscriptionId: "sub_1", subscriptionStatus: "active" };
  const ended = { subscriptionId: "sub_1", subscriptionStatus: "canceled" };
  const none = { subscriptionId: null, subscriptionStatus: null };

  it("events of the account's living subscription apply", () => {
    expect(subscriptionEventFor(living, { kind: "updated", subscriptionId: "sub_1", status: "past_due" })).toBe(
      "current",
    );
    expect(subscriptionEventFor(living, { kind: "deleted", subscriptionId: "sub_1", status: "canceled" })).toBe(
      "current",
    );
  });

  it("nothing of an ended subscription applies again, not even a late 'active'", () => {
    expect(subscriptionEventFor(ended, { kind: "updated", subscriptionId: "sub_1", status: "active" })).toBe("ignore");
    expect(subscriptionEventFor(ended, { kind: "created", subscriptionId: "sub_1", status: "active" })).toBe("ignore");
  });

  it("another subscription takes over only when newly created and active", () => {
    expect(subscriptionEventFor(ended, { kind: "created", subscriptionId: "sub_2", status: "active" })).toBe("adopt");
    expect(subscriptionEventFor(ended, { kind: "created", subscriptionId: "sub_2", status: "incomplete" })).toBe(
      "ignore",
    );
    expect(subscriptionEventFor(ended, { kind: "updated", subscriptionId: "sub_2", status: "active" })).toBe("ignore");
    expect(subscriptionEventFor(living, { kind: "deleted", subscriptionId: "sub_0", status: "canceled" })).toBe(
      "ignore",
    );
  });

  it("the first subscription heard of is the account's", () => {
    expect(subscriptionEventFor(none, { kind: "updated", subscriptionId: "sub_1", status: "active" })).toBe("adopt");
    expect(subscriptionEventFor(none, { kind: "deleted", subscriptionId: "sub_1", status: "canceled" })).toBe("ignore");
  });

  it("checkout adopts a new subscription, never revives the ended one", () => {
    expect(adoptsCheckout(ended, "sub_2")).toBe(true);
    expect(adoptsCheckout(ended, "sub_1")).toBe(false);
    expect(adoptsCheckout(none, "sub_1")).toBe(true);
  });

  it("an invoice counts only for the living subscription", () => {
    expect(invoiceCounts(living, "sub_1")).toBe(true);
    expect(invoiceCounts(ended, "sub_1")).toBe(false);
    expect(invoiceCounts(living, "sub_0")).toBe(false);
    expect(invoiceCounts(living, null)).toBe(false);
    expect(invoiceCounts(none, "sub_1")).toBe(false);
  });
});
