import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { verifyEvent, WebhookVerificationError } from "../../sdk/src/webhooks/verify-event";

// verifyEvent against events signed by the Standard Webhooks reference library (an implementation that is
// not ours); real deliveries from the service are verified in tests/integration/sdk-webhooks.test.ts.
const newSecret = () => `whsec_${randomBytes(24).toString("base64")}`;
const EVENT = {
  id: "evt_sdk1",
  type: "call.ended",
  createdAt: "2026-11-22T10:00:00.000Z",
  data: {
    callSid: "CA0123456789abcdef0123456789abcdef",
    direction: "inbound",
    from: "+14155550100",
    to: "+14155550123",
    phoneNumberId: null,
    status: "completed",
  },
};

function signed(body: string, secrets: string[], at = new Date()) {
  const id = "evt_sdk1";
  const signatures = secrets.map((s) => new Webhook(s).sign(id, at, body)).join(" ");
  return {
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": signatures,
  };
}

const refusal = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(WebhookVerificationError);
    return (e as Error).message;
  }
  throw new Error("expected a WebhookVerificationError");
};

describe("verifyEvent", () => {
  it("returns the event, narrowed on type, from a string, a Buffer, plain headers or a Headers instance", () => {
    const secret = newSecret();
    const body = JSON.stringify(EVENT);
    const headers = signed(body, [secret]);
    const event = verifyEvent(body, headers, secret);
    expect(event).toEqual(EVENT);
    if (event.type !== "call.ended") throw new Error("narrowing");
    expect(event.data.callSid).toBe(EVENT.data.callSid);
    expect(verifyEvent(Buffer.from(body), new Headers(headers), secret)).toEqual(EVENT);
    // Node's req.headers are lower case, but a framework may hand them in any case.
    const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    expect(verifyEvent(body, upper, secret)).toEqual(EVENT);
  });

  it("accepts any one of several space-separated signatures (a secret rotation)", () => {
    const [old, current] = [newSecret(), newSecret()];
    const body = JSON.stringify(EVENT);
    const headers = signed(body, [old, current]);
    expect(verifyEvent(body, headers, old).id).toBe("evt_sdk1");
    expect(verifyEvent(body, headers, current).id).toBe("evt_sdk1");
    expect(refusal(() => verifyEvent(body, headers, newSecret()))).toMatch(/no signature matches/);
  });

  it("refuses a changed body, another id, a v2 signature and missing headers", () => {
    const secret = newSecret();
    const body = JSON.stringify(EVENT);
    const headers = signed(body, [secret]);
    expect(refusal(() => verifyEvent(body.replace("completed", "busy"), headers, secret))).toMatch(/no signature/);
    expect(refusal(() => verifyEvent(body, { ...headers, "webhook-id": "evt_other" }, secret))).toMatch(/no signature/);
    const v2 = headers["webhook-signature"].replace("v1,", "v2,");
    expect(refusal(() => verifyEvent(body, { ...headers, "webhook-signature": v2 }, secret))).toMatch(/no signature/);
    expect(refusal(() => verifyEvent(body, { "webhook-id": "evt_sdk1" }, secret))).toMatch(/missing/);
    expect(refusal(() => verifyEvent(JSON.parse(body), headers, secret))).toMatch(/raw body/);
  });

  it("refuses a timestamp more than five minutes old or ahead", () => {
    const secret = newSecret();
    const body = JSON.stringify(EVENT);
    const at = new Date("2026-11-22T10:00:00Z");
    const headers = signed(body, [secret], at);
    const shifted = (seconds: number) => ({ now: new Date(at.getTime() + seconds * 1000) });
    expect(verifyEvent(body, headers, secret, shifted(299)).id).toBe("evt_sdk1");
    expect(verifyEvent(body, headers, secret, shifted(-299)).id).toBe("evt_sdk1");
    expect(refusal(() => verifyEvent(body, headers, secret, shifted(301)))).toMatch(/too old/);
    expect(refusal(() => verifyEvent(body, headers, secret, shifted(-301)))).toMatch(/future/);
    expect(refusal(() => verifyEvent(body, { ...headers, "webhook-timestamp": "soon" }, secret))).toMatch(/Unix/);
  });

  it("refuses a correctly signed body that is not JSON, not an event, or of an unknown type", () => {
    const secret = newSecret();
    for (const [body, reason] of [
      ["not json", /not JSON/],
      ["[1,2]", /not an event/],
      [JSON.stringify({ ...EVENT, type: "call.exploded" }), /unknown event type: call.exploded/],
    ] as const) {
      expect(refusal(() => verifyEvent(body, signed(body, [secret]), secret))).toMatch(reason);
    }
  });
});
