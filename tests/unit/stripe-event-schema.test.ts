import { describe, expect, it } from "vitest";
import { parseStripeEvent, wellFormedText } from "../../src/server/services/billing/stripe-events/stripe-event-schema";

const event = (fields: Record<string, unknown>) => ({
  id: "evt_1",
  object: "event",
  created: 1_764_000_000,
  type: "invoice.paid",
  data: { object: { id: "in_1", customer: "cus_1" } },
  ...fields,
});

describe("Stripe event envelope", () => {
  it("takes the events Stripe sends, unknown types included", () => {
    expect(parseStripeEvent(event({}))).toMatchObject({ id: "evt_1" });
    expect(
      parseStripeEvent(
        event({ type: "charge.succeeded", data: { object: { id: "ch_1", anything: [1, { x: null }] } } }),
      ),
    ).toBeTruthy();
    const sub = {
      id: "sub_1",
      status: "active",
      customer: { id: "cus_1", name: "Ünïcødé 😀" },
      items: { data: [{ current_period_start: 1, current_period_end: 2 }] },
      default_payment_method: null,
    };
    expect(parseStripeEvent(event({ type: "customer.subscription.updated", data: { object: sub } }))).toBeTruthy();
  });

  it.each([
    ["a number id", event({ id: 1 })],
    ["no data.object", event({ data: {} })],
    ["a string data.object", event({ data: { object: "x" } })],
    ["no created", event({ created: undefined })],
    ["a fractional created", event({ created: 1.5 })],
    ["an object customer without id", event({ data: { object: { customer: { name: "x" } } } })],
    ["a lone surrogate", event({ data: { object: { id: "in_1", customer: "cus_\ud800" } } })],
    ["a lone low surrogate in a key", event({ type: "charge.succeeded", data: { object: { "\udc00": 1 } } })],
    [
      "a subscription period out of range",
      event({
        type: "customer.subscription.created",
        data: { object: { id: "sub_1", status: "active", items: { data: [{ current_period_start: -1 }] } } },
      }),
    ],
  ])("refuses %s with VALIDATION_FAILED", (_name, value) => {
    expect(() => parseStripeEvent(value)).toThrow(expect.objectContaining({ code: "VALIDATION_FAILED" }));
  });

  it("checks Unicode without recursion, and pairs of surrogates are fine", () => {
    let deep: unknown = "\ud83d\ude00";
    for (let i = 0; i < 50_000; i++) deep = [deep];
    expect(wellFormedText(deep)).toBe(true);
    expect(wellFormedText({ a: ["\ud83d"] })).toBe(false);
  });
});
