import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCallbackClient } from "../../src/server/webhooks/http/callback-http-client";
import { attemptDelivery } from "../../src/server/services/deliveries/attempt-delivery";
import { transactionWithEvents } from "../../src/server/webhooks/enqueue-event";
import { buildEvent } from "../../src/server/webhooks/event-envelope";
import { newActiveAccount, type TestAccount } from "../support/api";
import { startInProcess } from "../support/in-process";
import { startReceiver } from "../support/receiver";

// docs/decisions.md §8: rotations of one account are serialized; every returned secret signs the next event until rotated out twice.
let inProcess: Awaited<ReturnType<typeof startInProcess>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  inProcess = await startInProcess();
  receiver = await startReceiver((_r, res) => res.writeHead(204).end());
});
afterAll(async () => {
  await receiver.close();
  await inProcess.stop();
});

/** Sends one signed event to the receiver through the real delivery path; returns its body and headers. */
async function nextEvent(acct: TestAccount): Promise<{ body: string; headers: Record<string, string> }> {
  const path = `/r-${Math.random().toString(16).slice(2)}`;
  const event = buildEvent("call.ended", {
    callSid: `CA${Math.random().toString(16).slice(2)}`,
    direction: "inbound",
    from: "+14155550100",
    to: "+14155550123",
    phoneNumberId: null,
    status: "completed",
  });
  const id = await transactionWithEvents((_tx, emit) => emit({ accountId: acct.id, url: receiver.url(path), event }));
  expect(
    await attemptDelivery(
      { deliveryId: id, expectedAttempt: 0 },
      { client: createCallbackClient({ allowPrivate: true }), now: () => new Date(), random: () => 0 },
    ),
  ).toBe("delivered");
  const got = receiver.received.find((r) => r.path === path)!;
  return { body: got.body, headers: got.headers as Record<string, string> };
}

const verifies = (secret: string, e: { body: string; headers: Record<string, string> }) => {
  try {
    new Webhook(secret).verify(e.body, e.headers);
    return true;
  } catch {
    return false;
  }
};

describe("POST /api/account/webhook-secret", () => {
  it("two rotations at once: both returned secrets sign the next event (the second's previous is the first's new one)", async () => {
    const acct = await newActiveAccount({ server: "permissive" });
    for (let round = 0; round < 3; round++) {
      const [a, b] = await Promise.all([
        acct.as("POST", "/api/account/webhook-secret"),
        acct.as("POST", "/api/account/webhook-secret"),
      ]);
      expect([a.status, b.status]).toEqual([200, 200]);
      expect(a.body.webhookSecret).not.toBe(b.body.webhookSecret);
      const event = await nextEvent(acct);
      expect(event.headers["webhook-signature"]!.split(" ")).toHaveLength(2);
      expect(verifies(a.body.webhookSecret, event)).toBe(true);
      expect(verifies(b.body.webhookSecret, event)).toBe(true);
    }
  });

  it("ten at once: the event is signed by exactly two of the returned secrets (never by one that was lost) and not by the original", async () => {
    const acct = await newActiveAccount({ server: "permissive" });
    const original = (await acct.as("GET", "/api/account")).body.account.webhookSecret as string;
    const results = await Promise.all(Array.from({ length: 10 }, () => acct.as("POST", "/api/account/webhook-secret")));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    const secrets = results.map((r) => r.body.webhookSecret as string);
    expect(new Set(secrets).size).toBe(10);
    const event = await nextEvent(acct);
    expect(secrets.filter((s) => verifies(s, event))).toHaveLength(2);
    expect(verifies(original, event)).toBe(false);
    // The current one is what GET /api/account shows.
    expect(verifies((await acct.as("GET", "/api/account")).body.account.webhookSecret, event)).toBe(true);
  });

  it("expirePrevious retires the previous secret now: the next event carries only the current one's signature", async () => {
    const acct = await newActiveAccount({ server: "permissive" });
    const old = (await acct.as("GET", "/api/account")).body.account.webhookSecret as string;
    const rotated = await acct.as("POST", "/api/account/webhook-secret", { body: {} });
    expect(Date.parse(rotated.body.previousSecretExpiresAt) - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    expect(verifies(old, await nextEvent(acct))).toBe(true);

    const retired = await acct.as("POST", "/api/account/webhook-secret", { body: { expirePrevious: true } });
    expect(retired.status).toBe(200);
    expect(retired.body).toEqual({ webhookSecret: rotated.body.webhookSecret, previousSecretExpiresAt: null });
    const event = await nextEvent(acct);
    expect(event.headers["webhook-signature"]!.split(" ")).toHaveLength(1);
    expect(verifies(rotated.body.webhookSecret, event)).toBe(true);
    expect(verifies(old, event)).toBe(false);
    // Retiring again is harmless; a rotation afterwards overlaps as usual.
    expect(
      (await acct.as("POST", "/api/account/webhook-secret", { body: { expirePrevious: true } })).body
        .previousSecretExpiresAt,
    ).toBeNull();
  });

  it("error: a non-boolean expirePrevious is 400 and rotates nothing", async () => {
    const acct = await newActiveAccount({ server: "permissive" });
    const before = (await acct.as("GET", "/api/account")).body.account.webhookSecret;
    const res = await acct.as("POST", "/api/account/webhook-secret", { body: { expirePrevious: "yes" } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION_FAILED");
    expect((await acct.as("GET", "/api/account")).body.account.webhookSecret).toBe(before);
  });
});
