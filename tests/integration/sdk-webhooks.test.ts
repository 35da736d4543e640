import { answer, dial, type RoutekitEvent, say, verifyEvent, WebhookVerificationError } from "@routekit/sdk";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baseUrlOf, newActiveAccount, numberBody } from "../support/api";
import { type Received, startReceiver } from "../support/receiver";
import { sdkClient } from "../support/sdk";
import { until } from "../support/until";

// verifyEvent on deliveries the built service really sent (docs/decisions.md §19), and the answer builders
// answering a real call.started: the permissive server lets callbacks reach this file's local receiver.
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const server = "permissive" as const;

beforeAll(async () => {
  receiver = await startReceiver((r, res) => {
    if (r.path === "/start")
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify(answer(say("Hello from the SDK"), dial("+14155550123", { timeout: 15 }))));
    else res.end("ok");
  });
});
afterAll(() => receiver?.close());

async function customerWithNumber() {
  const account = await newActiveAccount({ server });
  const rk = sdkClient({ baseUrl: baseUrlOf(server), apiKey: account.apiKey, ip: account.ip });
  const { account: me } = await rk.account.get();
  const { phoneNumber } = await rk.phoneNumbers.create(
    numberBody({ onCallStartUrl: receiver.url("/start"), onCallEndUrl: receiver.url("/end") }),
  );
  return { rk, secret: me.webhookSecret!, phoneNumber };
}

const eventsAbout = (callSid: string) =>
  receiver.received.filter((r) => r.headers["webhook-id"] && JSON.parse(r.body).data?.callSid === callSid);

describe("verifyEvent on real deliveries", { timeout: 60_000 }, () => {
  it("verifies call.started and call.ended of a simulated call, narrowed on type; the builders' answer decided the call", async () => {
    const { rk, secret, phoneNumber } = await customerWithNumber();
    const { call, twiml } = await rk.phoneNumbers.simulateCall(phoneNumber.id, { from: "+14155550100" });
    expect(twiml).toContain("<Say>Hello from the SDK</Say>");
    expect(twiml).toMatch(/<Dial timeout="15">(<Number>)?\+14155550123/);

    const received = await until(() => {
      const got = eventsAbout(call.callSid);
      return got.length >= 2 && got;
    }, "call.started and call.ended at the receiver");
    const events: RoutekitEvent[] = received.map((r) => verifyEvent(r.body, r.headers, secret));
    const types = events.map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(["call.started", "call.ended"]));
    for (const event of events) {
      expect(event.id).toBe(received[events.indexOf(event)]!.headers["webhook-id"]);
      if (event.type === "call.ended") {
        expect(event.data.callSid).toBe(call.callSid);
        expect(event.data.from).toBe("+14155550100");
      }
    }
    // The same with a Headers instance, as fetch-style frameworks give them.
    const headers = new Headers(received[0]!.headers as Record<string, string>);
    expect(verifyEvent(received[0]!.body, headers, secret).id).toBe(events[0]!.id);
  });

  it("refuses a real delivery whose body was changed, checked with another secret, or received too late", async () => {
    const { rk, secret, phoneNumber } = await customerWithNumber();
    const { delivery } = await rk.webhookDeliveries.sendTest({ phoneNumberId: phoneNumber.id, type: "call.ended" });
    const got: Received = await until(
      () => receiver.received.find((r) => r.headers["webhook-id"] === delivery.eventId),
      "the test event",
    );
    const event = verifyEvent(got.body, got.headers, secret);
    expect(event.type).toBe("call.ended");
    expect((event.data as { test?: boolean }).test).toBe(true);

    const refused = (f: () => unknown) => expect(f).toThrow(WebhookVerificationError);
    refused(() => verifyEvent(got.body.replace('"test":true', '"test":false'), got.headers, secret));
    refused(() => verifyEvent(got.body, got.headers, `whsec_${Buffer.from("another secret!!").toString("base64")}`));
    const sentAt = Number(got.headers["webhook-timestamp"]) * 1000;
    expect(() => verifyEvent(got.body, got.headers, secret, { now: new Date(sentAt + 6 * 60_000) })).toThrow(/too old/);
    // An unknown type, correctly signed with the account's secret, is still refused.
    const unknown = got.body.replace('"type":"call.ended"', '"type":"call.teleported"');
    const id = String(got.headers["webhook-id"]);
    const now = new Date();
    const resigned = {
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
      "webhook-signature": new Webhook(secret).sign(id, now, unknown),
    };
    expect(() => verifyEvent(unknown, resigned, secret)).toThrow(/unknown event type: call.teleported/);
  });

  it("during a secret rotation either secret verifies; an account endpoint's own secret verifies its events", async () => {
    const { rk, secret: old, phoneNumber } = await customerWithNumber();
    const { webhookSecret: rotated } = await rk.account.rotateWebhookSecret();
    const { delivery } = await rk.webhookDeliveries.sendTest({ phoneNumberId: phoneNumber.id, type: "call.ended" });
    const got = await until(
      () => receiver.received.find((r) => r.headers["webhook-id"] === delivery.eventId),
      "the event after the rotation",
    );
    expect(String(got.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    expect(verifyEvent(got.body, got.headers, old).type).toBe("call.ended");
    expect(verifyEvent(got.body, got.headers, rotated).type).toBe("call.ended");

    const { webhookEndpoint } = await rk.webhookEndpoints.create({
      url: receiver.url("/endpoint"),
      eventTypes: ["alert.endpoint_failing"],
    });
    const sent = await rk.webhookDeliveries.sendTest({
      endpointId: webhookEndpoint.id,
      type: "alert.endpoint_failing",
    });
    const alert = await until(
      () => receiver.received.find((r) => r.headers["webhook-id"] === sent.delivery.eventId),
      "the endpoint's event",
    );
    const event = verifyEvent(alert.body, alert.headers, webhookEndpoint.secret!);
    if (event.type !== "alert.endpoint_failing") throw new Error(`unexpected ${event.type}`);
    expect(event.data.kind).toBe("alert.endpoint_failing");
    expect(() => verifyEvent(alert.body, alert.headers, rotated)).toThrow(WebhookVerificationError);
  });
});
