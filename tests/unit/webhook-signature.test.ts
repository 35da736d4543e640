import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { generateWebhookSecret } from "../../src/server/crypto/secret-box";
import { buildEvent } from "../../src/server/webhooks/event-envelope";
import { webhookHeaders } from "../../src/server/webhooks/webhook-signature";

const event = buildEvent("call.ended", {
  callSid: "CA123",
  direction: "inbound",
  from: "+14155550100",
  to: "+14155550123",
  phoneNumberId: "pn_1",
  durationSeconds: 61,
  billedMinutes: 2,
});
const body = JSON.stringify(event);

describe("Standard Webhooks signatures, checked with the standardwebhooks library", () => {
  it("verify with the account's secret", () => {
    const secret = generateWebhookSecret();
    const headers = webhookHeaders({ id: event.id, body, secrets: [secret] });
    expect(headers["webhook-id"]).toBe(event.id);
    expect(new Webhook(secret).verify(body, headers)).toEqual(event);
  });

  it("fail for a tampered body, a wrong secret, an old timestamp", () => {
    const secret = generateWebhookSecret();
    const headers = webhookHeaders({ id: event.id, body, secrets: [secret] });
    expect(() => new Webhook(secret).verify(body.replace("61", "6100"), headers)).toThrow();
    expect(() => new Webhook(generateWebhookSecret()).verify(body, headers)).toThrow();
    const old = webhookHeaders({ id: event.id, body, secrets: [secret], now: new Date(Date.now() - 10 * 60_000) });
    expect(() => new Webhook(secret).verify(body, old)).toThrow(/timestamp/i);
    expect(() => new Webhook(secret).verify(body, { ...headers, "webhook-id": "evt_other" })).toThrow();
  });

  it("carry one signature per secret during a rotation; each verifies alone", () => {
    const [oldSecret, newSecret] = [generateWebhookSecret(), generateWebhookSecret()];
    const headers = webhookHeaders({ id: event.id, body, secrets: [newSecret, oldSecret] });
    expect(headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    expect(new Webhook(newSecret).verify(body, headers)).toEqual(event);
    expect(new Webhook(oldSecret).verify(body, headers)).toEqual(event);
  });
});

describe("event envelope", () => {
  it("has the docs/decisions.md §8 shape and drops absent members", () => {
    expect(event).toEqual({
      id: expect.stringMatching(/^evt_[A-Za-z0-9_-]{22}$/),
      type: "call.ended",
      createdAt: expect.any(String),
      data: {
        callSid: "CA123",
        direction: "inbound",
        from: "+14155550100",
        to: "+14155550123",
        phoneNumberId: "pn_1",
        durationSeconds: 61,
        billedMinutes: 2,
      },
    });
    expect(
      buildEvent("call.started", {
        callSid: "CA1",
        direction: "outbound",
        from: "a",
        to: "b",
        phoneNumberId: null,
        metadata: undefined,
      }).data,
    ).not.toHaveProperty("metadata");
  });
});
