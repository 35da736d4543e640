import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  closeUnfinishedCalls,
  NO_FINAL_STATUS_AFTER_MS,
} from "../../src/server/services/reconciliation/close-unfinished-calls";
import { newCallSid, postSigned, simulateInboundCall } from "../../src/twilio-simulator/twilio-simulator";
import { newActiveAccount, numberBody, randomUsNumber, sql, type TestAccount, seed } from "../support/api";
import { ago } from "../support/seed";
import { connectTwilioRow } from "../support/connect-twilio";
import { startInProcess } from "../support/in-process";
import { startReceiver } from "../support/receiver";

// docs/decisions.md §14: a call of an account without a Twilio connection whose final status never came is
// closed as `unknown` / `no-final-status` 4 h 10 min after its last request, unbilled, exactly once. The job's
// service runs in this process against the permissive server's database, at a time the test injects.
// Each call is made to look silent for just under 4 h 10 min (its lastRequestAt moved back), so the time
// injected is only minutes ahead and no other test's open call is ever old enough to be touched.
const XML = '<?xml version="1.0" encoding="UTF-8"?><Response><Say>hi</Say></Response>';
// Five minutes short: the servers' own job (real time, every minute) cannot reach it while the test runs.
const JUST_UNDER_MS = NO_FINAL_STATUS_AFTER_MS - 5 * 60_000;

let inProcess: Awaited<ReturnType<typeof startInProcess>>;
let backend: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  inProcess = await startInProcess();
  backend = await startReceiver((r, res) =>
    r.path.endsWith("/start") ? res.writeHead(200, { "content-type": "text/xml" }).end(XML) : res.end("ok"),
  );
});
afterAll(async () => {
  await backend?.close();
  await inProcess?.stop();
});

async function setup(): Promise<{ account: TestAccount; number: string; tag: string }> {
  const account = await newActiveAccount({ server: "permissive" });
  const tag = `${account.id}-${Math.random().toString(36).slice(2, 8)}`;
  const number = randomUsNumber();
  const res = await account.as("POST", "/api/phone-numbers", {
    body: numberBody({
      phoneNumber: number,
      onCallStartUrl: backend.url(`/${tag}/start`),
      onCallEndUrl: backend.url(`/${tag}/end`),
    }),
  });
  expect(res.status).toBe(201);
  return { account, number, tag };
}

/** The call has heard nothing from Twilio for `ms` (as if its last request came that long ago). */
async function silentFor(callSid: string, ms: number): Promise<Date> {
  const rows = await seed("permissive").update("Call", { callSid }, { lastRequestAt: ago(`${ms} milliseconds`) });
  expect(rows).toHaveLength(1);
  return rows[0]!.lastRequestAt;
}

async function row(callSid: string) {
  const { rows } = await sql("permissive").query(
    `SELECT status, "endReason", "endedAt", "durationSeconds", "statusRank" FROM "Call" WHERE "callSid" = $1`,
    [callSid],
  );
  return rows[0];
}

async function billing(account: TestAccount, callSid: string) {
  const usage = await sql("permissive").query(`SELECT 1 FROM "UsageRecord" WHERE "callSid" = $1`, [callSid]);
  const totals = await sql("permissive").query(`SELECT calls::int FROM "UsageTotal" WHERE "accountId" = $1`, [
    account.id,
  ]);
  const ended = await sql("permissive").query(
    `SELECT payload FROM "WebhookDelivery" WHERE "callSid" = $1 AND "eventType" = 'call.ended'`,
    [callSid],
  );
  return { usage: usage.rowCount, totals: totals.rows, callEnded: ended.rows.map((r) => JSON.parse(r.payload)) };
}

describe("no-final-status: unconnected accounts' calls whose final status never came", () => {
  it("is closed 4 h 10 min after its last request as unknown, not billed, call.ended sent, exactly once", async () => {
    const s = await setup();
    // Twilio answers the call, then its final status is lost (the simulator never sends it).
    const played = await simulateInboundCall({
      engineUrl: s.account.engineVoiceUrl,
      from: "+14155550100",
      to: s.number,
      finalStatus: "lost",
      durationSeconds: 600,
      stepDelayMs: 0,
    });
    expect(played.answer?.status).toBe(200);
    expect(played.statusCallbacks).toEqual([]);
    const lastRequest = await silentFor(played.callSid, JUST_UNDER_MS);

    // Silent for less than 4 h 10 min: left open.
    const before = new Date(lastRequest.getTime() + NO_FINAL_STATUS_AFTER_MS - 1_000);
    await closeUnfinishedCalls({ now: before });
    expect(await row(played.callSid)).toMatchObject({ status: "ringing", endReason: null, endedAt: null });

    // Past it: two instances at once, then a later run; closed once.
    const now = new Date(lastRequest.getTime() + NO_FINAL_STATUS_AFTER_MS + 1_000);
    await Promise.all([closeUnfinishedCalls({ now }), closeUnfinishedCalls({ now })]);
    await closeUnfinishedCalls({ now: new Date(now.getTime() + 60_000) });

    expect(await row(played.callSid)).toMatchObject({
      status: "unknown",
      endReason: "no-final-status",
      durationSeconds: 0,
      statusRank: 10,
      endedAt: now,
    });
    const b = await billing(s.account, played.callSid);
    expect(b.usage).toBe(0);
    expect(b.totals).toEqual([]);
    expect(b.callEnded).toHaveLength(1);
    expect(b.callEnded[0].data).toMatchObject({
      callSid: played.callSid,
      status: "unknown",
      endReason: "no-final-status",
      sipResponseCode: null,
      errorCode: null,
    });
    expect(b.callEnded[0].data.billedMinutes).toBeUndefined();

    // The API shows it, with the close on its timeline.
    const api = await s.account.as("GET", `/api/calls/${played.callSid}`);
    expect(api.status).toBe(200);
    expect(api.body.call).toMatchObject({
      status: "unknown",
      endReason: "no-final-status",
      billedMinutes: 0,
      costBreakdown: null,
    });
    expect(api.body.call.timeline.filter((e: any) => e.type === "request").map((e: any) => e.kind)).toEqual([
      "voice",
      "closed",
    ]);
    const listed = await s.account.as("GET", "/api/calls?status=unknown");
    expect(listed.body.calls.map((c: any) => c.callSid)).toEqual([played.callSid]);

    // The lost status turning up after all changes nothing.
    const late = await postSigned(
      s.account.engineVoiceUrl,
      {
        CallSid: played.callSid,
        AccountSid: "AC5170000000000000000000000000000a",
        From: "+14155550100",
        To: s.number,
        Direction: "inbound",
        CallStatus: "completed",
        CallDuration: "600",
        CallbackSource: "call-progress-events",
      },
      "any-token",
    );
    expect(late.status).toBe(200);
    expect(await row(played.callSid)).toMatchObject({ status: "unknown", endReason: "no-final-status" });
    expect((await billing(s.account, played.callSid)).usage).toBe(0);
  });

  it("a call of a connected account is left to reconciliation, however long it is silent", async () => {
    const s = await setup();
    const accountSid = `AC${randomBytes(16).toString("hex")}`;
    const authToken = randomBytes(16).toString("hex");
    await connectTwilioRow({ accountId: s.account.id, accountSid, authToken });
    const callSid = newCallSid();
    const voice = await postSigned(
      s.account.engineVoiceUrl,
      { CallSid: callSid, AccountSid: accountSid, From: "+14155550100", To: s.number, CallStatus: "ringing" },
      authToken,
    );
    expect(voice.status).toBe(200);
    const lastRequest = await silentFor(callSid, JUST_UNDER_MS);
    await closeUnfinishedCalls({ now: new Date(lastRequest.getTime() + NO_FINAL_STATUS_AFTER_MS + 60_000) });
    expect(await row(callSid)).toMatchObject({ status: "ringing", endReason: null, endedAt: null });
  });
});
