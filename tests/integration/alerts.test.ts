import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { env, setEnv } from "../../src/server/env";
import { sqlTransaction } from "../../src/server/db/sql-transaction";
import { attemptDelivery } from "../../src/server/services/deliveries/attempt-delivery";
import { transactionWithEvents } from "../../src/server/webhooks/enqueue-event";
import { buildEvent } from "../../src/server/webhooks/event-envelope";
import { createCallbackClient } from "../../src/server/webhooks/http/callback-http-client";
import { raiseDeliveryExhaustedIn, type ExhaustedDelivery } from "../../src/server/services/alerts/delivery-alerts";
import { checkFallbackRate, scanAlerts } from "../../src/server/services/alerts/scan-alerts";
import { checkNumberConfiguration } from "../../src/server/services/alerts/twilio-alerts";
import {
  simulateInboundCall,
  startTwilioSimulator,
  type TwilioSimulator,
} from "../../src/twilio-simulator/twilio-simulator";
import { newActiveAccount, numberBody, randomUsNumber, sql, type TestAccount, seed } from "../support/api";
import { connectTwilioRow } from "../support/connect-twilio";
import { startInProcess } from "../support/in-process";
import { startSharedTwilioSimulator } from "../support/shared-twilio-simulator";
import { startReceiver, type Received } from "../support/receiver";
import { until } from "../support/until";

// docs/decisions.md §16 end to end on the permissive server (its own alert scan every 15 s, the delivery
// worker and the call log raising alerts at their cause), with the Twilio simulator and local receivers.
// Windows longer than a test (a fallback's 5 quiet minutes) are crossed by running the same service code in
// this process at an injected time (support/in-process.ts), against the same database.
const TWILIO_SID = `AC${"1".repeat(32)}`;
const TWILIO_TOKEN = "simulator-auth-token";
const XML = '<?xml version="1.0" encoding="UTF-8"?><Response><Say>Hi</Say></Response>';
/** Raised within 60 s of the condition (the scan runs every 15 s; the machine is shared and slow). */
const WITHIN_MS = 60_000;

let inProcess: Awaited<ReturnType<typeof startInProcess>>;
let twilio: TwilioSimulator;
let ownTwilio: TwilioSimulator;
let backend: Awaited<ReturnType<typeof startReceiver>>;
const failing = new Set<string>();
/** Paths that answer 410 Gone: the receiver wants no more, so the delivery gives up at once. */
const goneOnce = new Set<string>();
const ownSid = `AC${randomBytes(16).toString("hex")}`;
const ownToken = randomBytes(16).toString("hex");

beforeAll(async () => {
  inProcess = await startInProcess();
  twilio = await startSharedTwilioSimulator({ [TWILIO_SID]: TWILIO_TOKEN });
  ownTwilio = await startTwilioSimulator({ accounts: { [ownSid]: ownToken }, port: 0 });
  setEnv({ ...env(), twilioApiBaseUrl: ownTwilio.url });
  backend = await startReceiver((r: Received, res) => {
    if (failing.has(r.path)) return res.writeHead(500).end("down");
    if (goneOnce.has(r.path)) return res.writeHead(410).end("gone");
    if (r.path.endsWith("/start")) return res.writeHead(200, { "content-type": "application/xml" }).end(XML);
    res.writeHead(200).end("ok");
  });
});
afterAll(async () => {
  await twilio?.close();
  await ownTwilio?.close();
  await backend?.close();
  await inProcess?.stop();
});

const eventsAt = (path: string) =>
  backend.received
    .filter((r) => r.path === path)
    .map((r) => JSON.parse(r.body) as { id: string; type: string; data: any });

type Setup = { account: TestAccount; tag: string; number: string; numberId: string };

async function setup(opts: { startPath?: string } = {}): Promise<Setup> {
  const account = await newActiveAccount({ server: "permissive" });
  const tag = `/${account.id}`;
  const number = randomUsNumber();
  const res = await account.as("POST", "/api/phone-numbers", {
    body: numberBody({
      phoneNumber: number,
      onCallStartUrl: backend.url(opts.startPath ? `${tag}${opts.startPath}` : `${tag}/start`),
      onCallEndUrl: backend.url(`${tag}/end`),
    }),
  });
  expect(res.status).toBe(201);
  return { account, tag, number, numberId: res.body.phoneNumber.id };
}

async function addEndpoint(account: TestAccount, path: string, eventTypes: string[]) {
  const res = await account.as("POST", "/api/webhook-endpoints", { body: { url: backend.url(path), eventTypes } });
  expect(res.status, res.text).toBe(201);
  return res.body.webhookEndpoint as { id: string; url: string };
}

async function alertRows(accountId: string) {
  const { rows } = await sql("permissive").query(
    `SELECT * FROM "Alert" WHERE "accountId" = $1 ORDER BY "createdAt", id`,
    [accountId],
  );
  return rows as { id: string; type: string; subjectType: string; subjectId: string; resolvedAt: Date | null }[];
}

/** A delivery's last failure as the delivery worker records it: the alert raised in that transaction. */
const noteDeliveryExhausted = (d: ExhaustedDelivery) => sqlTransaction((trx) => raiseDeliveryExhaustedIn(trx, d));

describe("alerts", () => {
  it("a failing endpoint raises alert.endpoint_failing at the other endpoints, never at itself, then its recovery", async () => {
    const s = await setup();
    const bad = await addEndpoint(s.account, `${s.tag}/bad`, ["*"]);
    await addEndpoint(s.account, `${s.tag}/ops`, ["alert.endpoint_failing", "alert.endpoint_recovered"]);
    failing.add(`${s.tag}/bad`);
    // Three failed attempts in a row: the destination is backed off (docs/decisions.md §22).
    for (let i = 0; i < 3; i++) {
      const sent = await s.account.as("POST", "/api/webhook-deliveries/test", {
        body: { endpointId: bad.id, type: "call.ended" },
      });
      expect(sent.status, sent.text).toBe(200);
    }
    const alert = await until(
      () => eventsAt(`${s.tag}/ops`).find((e) => e.type === "alert.endpoint_failing"),
      "alert.endpoint_failing at the ops endpoint",
      WITHIN_MS,
      250,
    );
    expect(alert.data).toMatchObject({
      kind: "alert.endpoint_failing",
      subject: { type: "endpoint", id: bad.id, url: bad.url },
      details: { consecutiveFailures: 3 },
    });
    expect(alert.data.howToFix).toMatch(/answers 2xx/);
    // The failing destination subscribes to everything, and still never gets an alert about itself.
    expect(eventsAt(`${s.tag}/bad`).filter((e) => e.type.startsWith("alert."))).toEqual([]);

    const listed = await s.account.as("GET", "/api/alerts");
    expect(listed.status).toBe(200);
    expect(listed.body.alerts).toHaveLength(1);
    expect(listed.body.alerts[0]).toMatchObject({
      type: "alert.endpoint_failing",
      subject: { type: "endpoint", id: bad.id },
      eventId: alert.id,
      resolvedAt: null,
    });

    // It answers again: one success resets it, and the recovery follows.
    failing.delete(`${s.tag}/bad`);
    const ok = await s.account.as("POST", "/api/webhook-deliveries/test", {
      body: { endpointId: bad.id, type: "call.ended" },
    });
    expect(ok.body.delivery.status).toBe("DELIVERED");
    const recovered = await until(
      () => eventsAt(`${s.tag}/ops`).find((e) => e.type === "alert.endpoint_recovered"),
      "alert.endpoint_recovered",
      WITHIN_MS,
      250,
    );
    expect(recovered.data.subject).toMatchObject({ type: "endpoint", id: bad.id });
    const rows = await alertRows(s.account.id);
    expect(rows.map((r) => r.type)).toEqual(["alert.endpoint_failing", "alert.endpoint_recovered"]);
    expect(rows[0]!.resolvedAt).not.toBeNull();
    // Exactly one of each: the scan ran several times meanwhile.
    expect(eventsAt(`${s.tag}/ops`).map((e) => e.type)).toEqual(["alert.endpoint_failing", "alert.endpoint_recovered"]);
    // Raised and recovered by the server's 15 s scan: up to two of its periods, and the 60 s promise each.
  }, 150_000);

  it("3 calls decided by the fallback within 5 minutes raise alert.fallback_rate; 5 quiet minutes recover it", async () => {
    const s = await setup({ startPath: "/broken-start" });
    failing.add(`${s.tag}/broken-start`);
    await addEndpoint(s.account, `${s.tag}/ops`, ["alert.fallback_rate", "alert.fallback_rate_recovered"]);
    for (let i = 0; i < 3; i++)
      await simulateInboundCall({
        engineUrl: s.account.engineVoiceUrl,
        from: "+14155550100",
        to: s.number,
        durationSeconds: 5,
        authToken: TWILIO_TOKEN,
        outcome: "completed",
      });
    const alert = await until(
      () => eventsAt(`${s.tag}/ops`).find((e) => e.type === "alert.fallback_rate"),
      "alert.fallback_rate",
      WITHIN_MS,
      250,
    );
    expect(alert.data).toMatchObject({
      subject: { type: "number", id: s.numberId },
      details: { phoneNumber: s.number, calls: 3, windowSeconds: 300 },
    });
    expect(alert.data.details.callSids).toHaveLength(3);

    // Not yet: the number fell back less than 5 minutes ago.
    expect((await scanAlerts({ accountId: s.account.id })).recovered).toBe(0);
    // Six minutes on, with no fallback since: recovered, once however often the scan runs.
    const later = new Date(Date.now() + 6 * 60_000);
    expect((await scanAlerts({ accountId: s.account.id, now: later })).recovered).toBe(1);
    expect((await scanAlerts({ accountId: s.account.id, now: later })).recovered).toBe(0);
    const rows = await alertRows(s.account.id);
    expect(rows.map((r) => r.type)).toEqual(["alert.fallback_rate", "alert.fallback_rate_recovered"]);
    // Its event was written for the ops endpoint (the in-process queue holds its job, so the row is the proof).
    const { rows: deliveries } = await sql("permissive").query(
      `SELECT url FROM "WebhookDelivery" WHERE "accountId" = $1 AND "eventType" = 'alert.fallback_rate_recovered'`,
      [s.account.id],
    );
    expect(deliveries.map((d) => d.url)).toEqual([backend.url(`${s.tag}/ops`)]);
  }, 120_000);

  it("simulated calls decided by the fallback raise no alert.fallback_rate: they are tests, not callers", async () => {
    const s = await setup({ startPath: "/broken-start" });
    failing.add(`${s.tag}/broken-start`);
    for (let i = 0; i < 3; i++) {
      const res = await s.account.as("POST", `/api/phone-numbers/${s.numberId}/simulate-call`, { body: {} });
      expect(res.status, res.text).toBe(200);
      expect(res.body.call).toMatchObject({ test: true, answer: "fallback" });
    }
    expect(await checkFallbackRate(s.account.id)).toBe(0);
    expect(await alertRows(s.account.id)).toEqual([]);
  });

  it("no storm: 100 exhausted deliveries at once make one alert.delivery_exhausted, not sent to that destination", async () => {
    const s = await setup();
    const bad = await addEndpoint(s.account, `${s.tag}/bad`, ["*"]);
    await addEndpoint(s.account, `${s.tag}/ops`, ["alert.delivery_exhausted"]);
    const at = new Date();
    await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        noteDeliveryExhausted({
          deliveryId: `dlv_${i}`,
          accountId: s.account.id,
          eventId: `evt_${i}`,
          eventType: "call.ended",
          url: bad.url,
          endpointId: bad.id,
          payload: "{}",
          attempts: 8,
          statusCode: 503,
          error: null,
          at,
        }),
      ),
    );
    const rows = await alertRows(s.account.id);
    expect(rows.map((r) => [r.type, r.subjectId])).toEqual([["alert.delivery_exhausted", bad.id]]);
    const { rows: deliveries } = await sql("permissive").query(
      `SELECT url FROM "WebhookDelivery" WHERE "accountId" = $1 AND "eventType" = 'alert.delivery_exhausted'`,
      [s.account.id],
    );
    expect(deliveries.map((d) => d.url)).toEqual([backend.url(`${s.tag}/ops`)]);
    // The next hour it may be raised again; this one it may not.
    const nextHour = new Date(at.getTime() + 3_600_000);
    await noteDeliveryExhausted({
      deliveryId: "dlv_x",
      accountId: s.account.id,
      eventId: "evt_x",
      eventType: "call.ended",
      url: bad.url,
      endpointId: bad.id,
      payload: "{}",
      attempts: 8,
      statusCode: 503,
      error: null,
      at: nextHour,
    });
    expect(await alertRows(s.account.id)).toHaveLength(2);
  });

  it("a delivery the receiver refuses for good (410) raises alert.delivery_exhausted through the server's worker", async () => {
    const s = await setup();
    await addEndpoint(s.account, `${s.tag}/ops`, ["alert.delivery_exhausted"]);
    const gone = await addEndpoint(s.account, `${s.tag}/gone`, ["call.ended"]);
    goneOnce.add(`${s.tag}/gone`);
    await simulateInboundCall({
      engineUrl: s.account.engineVoiceUrl,
      from: "+14155550100",
      to: s.number,
      durationSeconds: 5,
      authToken: TWILIO_TOKEN,
      outcome: "completed",
    });
    const alert = await until(
      () => eventsAt(`${s.tag}/ops`).find((e) => e.type === "alert.delivery_exhausted"),
      "alert.delivery_exhausted",
      WITHIN_MS,
      250,
    );
    expect(alert.data).toMatchObject({
      subject: { type: "endpoint", id: gone.id, url: gone.url },
      details: { eventType: "call.ended", lastStatusCode: 410 },
    });
  }, 120_000);

  it("Twilio's 20003 raises alert.twilio_credentials_rejected; a verified number pointed elsewhere, alert.number_unconfigured", async () => {
    const s = await setup();
    await seed("permissive").update("PhoneNumber", { id: s.numberId }, { verified: true });
    await connectTwilioRow({ accountId: s.account.id, accountSid: ownSid, authToken: "revoked-token" });
    await checkNumberConfiguration({ accountId: s.account.id });
    expect((await alertRows(s.account.id)).map((r) => [r.type, r.subjectType])).toEqual([
      ["alert.twilio_credentials_rejected", "account"],
    ]);

    await connectTwilioRow({ accountId: s.account.id, accountSid: ownSid, authToken: ownToken });
    ownTwilio.twilioAccounts.addIncomingNumber(ownSid, s.number, {
      voiceUrl: "https://demo.twilio.com/welcome/voice/",
    });
    await checkNumberConfiguration({ accountId: s.account.id });
    await checkNumberConfiguration({ accountId: s.account.id });
    const rows = await alertRows(s.account.id);
    expect(rows.map((r) => [r.type, r.subjectType, r.subjectId])).toEqual([
      ["alert.twilio_credentials_rejected", "account", s.account.id],
      ["alert.number_unconfigured", "number", s.numberId],
    ]);
  });

  it("alert settings: every type emailed by default; PUT switches types off; validated", async () => {
    const s = await setup();
    const got = await s.account.as("GET", "/api/account/alert-settings");
    expect(got.status).toBe(200);
    expect(Object.values(got.body.email)).toHaveLength(8);
    expect(Object.values(got.body.email).every((v) => v === true)).toBe(true);
    const put = await s.account.as("PUT", "/api/account/alert-settings", {
      body: { email: { "alert.delivery_exhausted": false, "alert.fallback_rate": true } },
    });
    expect(put.status, put.text).toBe(200);
    expect(put.body.email["alert.delivery_exhausted"]).toBe(false);
    expect(put.body.email["alert.endpoint_failing"]).toBe(true);
    expect((await s.account.as("GET", "/api/account/alert-settings")).body.email["alert.delivery_exhausted"]).toBe(
      false,
    );
    const bad = await s.account.as("PUT", "/api/account/alert-settings", { body: { email: { "alert.nope": false } } });
    expect(bad.status).toBe(400);

    // Switched off: the alert is raised and listed, but no mail is queued for it.
    await noteDeliveryExhausted({
      deliveryId: "dlv_1",
      accountId: s.account.id,
      eventId: "evt_1",
      eventType: "call.ended",
      url: "https://example.com/x",
      endpointId: null,
      payload: "{}",
      attempts: 8,
      statusCode: 500,
      error: null,
      at: new Date(),
    });
    expect((await s.account.as("GET", "/api/alerts")).body.alerts).toHaveLength(1);
    const { rows } = await sql("permissive").query(
      `SELECT count(*)::int AS n FROM ${inProcess.schema}.job WHERE name = 'mail' AND data->>'to' = $1`,
      [s.account.email],
    );
    expect(rows[0].n).toBe(0);
  });

  it("alert.delivery_exhausted commits with the delivery's last attempt: when the alert cannot be written, neither is", {
    timeout: 60_000,
  }, async () => {
    const s = await setup();
    const path = `${s.tag}/gone-for-good`;
    goneOnce.add(path);
    await addEndpoint(s.account, path, ["call.ended"]);
    const event = buildEvent("call.ended", {
      callSid: `CA${randomBytes(16).toString("hex")}`,
      direction: "inbound",
      from: "+14155550100",
      to: s.number,
      phoneNumberId: s.numberId,
      status: "completed",
    });
    await transactionWithEvents((_trx, emit) => emit({ accountId: s.account.id, url: null, event }));
    const { rows } = await sql("permissive").query(
      `SELECT id FROM "WebhookDelivery" WHERE "accountId" = $1 AND "eventId" = $2`,
      [s.account.id, event.id],
    );
    const deliveryId = rows[0].id as string;
    const deps = { client: createCallbackClient({ allowPrivate: true }) };
    // The alert's insert fails (as a crash between the two writes would leave it): the attempt is not recorded either.
    const trigger = `alert_refused_${randomBytes(4).toString("hex")}`;
    await sql("permissive").query(`CREATE FUNCTION ${trigger}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW."accountId" = '${s.account.id}' THEN RAISE EXCEPTION 'refused by the test'; END IF; RETURN NEW; END $$`);
    await sql("permissive").query(
      `CREATE TRIGGER ${trigger} BEFORE INSERT ON "Alert" FOR EACH ROW EXECUTE FUNCTION ${trigger}()`,
    );
    try {
      await expect(attemptDelivery({ deliveryId, expectedAttempt: 0 }, deps)).rejects.toThrow(/refused by the test/);
    } finally {
      await sql("permissive").query(`DROP TRIGGER ${trigger} ON "Alert"; DROP FUNCTION ${trigger}()`);
    }
    const before = await sql("permissive").query(`SELECT status, "attemptCount" FROM "WebhookDelivery" WHERE id = $1`, [
      deliveryId,
    ]);
    expect(before.rows[0]).toEqual({ status: "PENDING", attemptCount: 0 });
    expect(await alertRows(s.account.id)).toEqual([]);
    // Its job runs again (pg-boss retries a failed job): now the record and the alert land together.
    expect(await attemptDelivery({ deliveryId, expectedAttempt: 0 }, deps)).toBe("failed");
    expect((await alertRows(s.account.id)).map((r) => r.type)).toEqual(["alert.delivery_exhausted"]);
  });

  it("GET /api/alerts pages with a cursor, newest first", async () => {
    const s = await setup();
    const base = Date.now();
    for (let i = 0; i < 3; i++)
      await noteDeliveryExhausted({
        deliveryId: `dlv_${i}`,
        accountId: s.account.id,
        eventId: `evt_${i}`,
        eventType: "call.ended",
        url: `https://example.com/${i}`,
        endpointId: null,
        payload: "{}",
        attempts: 8,
        statusCode: 500,
        error: null,
        at: new Date(base + i * 1000),
      });
    const first = await s.account.as("GET", "/api/alerts?limit=2");
    expect(first.body.alerts.map((a: any) => a.subject.url)).toEqual([
      "https://example.com/2",
      "https://example.com/1",
    ]);
    const second = await s.account.as("GET", `/api/alerts?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.alerts.map((a: any) => a.subject.url)).toEqual(["https://example.com/0"]);
    expect(second.body.nextCursor).toBeNull();
    // Each is mailed (durably: a job of the mail queue, here the in-process one).
    const { rows } = await sql("permissive").query(
      `SELECT data->>'subject' AS subject FROM ${inProcess.schema}.job WHERE name = 'mail' AND data->>'to' = $1`,
      [s.account.email],
    );
    expect(rows.map((r) => r.subject)).toEqual(Array(3).fill("Routekit alert: A delivery gave up"));
  });
});
