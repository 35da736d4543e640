import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { env, setEnv } from "../../src/server/env";
import { reconcileTwilioCalls, STALE_AFTER_MS } from "../../src/server/services/reconciliation/reconcile-twilio-calls";
import { CallRecordStore } from "../../src/twilio-simulator/call-records";
import {
  newCallSid,
  postSigned,
  startTwilioSimulator,
  type TwilioSimulator,
} from "../../src/twilio-simulator/twilio-simulator";
import { newActiveAccount, numberBody, randomUsNumber, sql, type TestAccount, seed } from "../support/api";
import { earlier } from "../support/seed";
import { connectTwilioRow } from "../support/connect-twilio";
import { startInProcess } from "../support/in-process";
import { startReceiver } from "../support/receiver";

// Reconciliation (docs/decisions.md §10) runs in this process against the permissive
// server's database, reading Twilio's call records from a simulator of its own:
// the test decides when it runs, how often at once, and what time it is.
const XML = '<?xml version="1.0" encoding="UTF-8"?><Response><Say>hi</Say></Response>';

let inProcess: Awaited<ReturnType<typeof startInProcess>>;
let twilio: TwilioSimulator;
let backend: Awaited<ReturnType<typeof startReceiver>>;
const records = new CallRecordStore();
const accountSid = `AC${randomBytes(16).toString("hex")}`;
const authToken = randomBytes(16).toString("hex");

beforeAll(async () => {
  inProcess = await startInProcess();
  twilio = await startTwilioSimulator({ accounts: { [accountSid]: authToken }, port: 0, callRecords: records });
  setEnv({ ...env(), twilioApiBaseUrl: twilio.url });
  backend = await startReceiver((_r, res) => res.writeHead(200, { "content-type": "text/xml" }).end(XML));
});
afterAll(async () => {
  await twilio?.close();
  await backend?.close();
  await inProcess?.stop();
});

type Setup = { account: TestAccount; number: string; numberId: string };

/** An active, connected account with one verified number (registered an hour ago). */
async function setup(): Promise<Setup> {
  const account = await newActiveAccount({ server: "permissive" });
  const number = randomUsNumber();
  const res = await account.as("POST", "/api/phone-numbers", {
    body: numberBody({
      phoneNumber: number,
      onCallStartUrl: backend.url(`/${account.id}/start`),
      onCallEndUrl: backend.url(`/${account.id}/end`),
    }),
  });
  expect(res.status).toBe(201);
  await seed("permissive").update(
    "PhoneNumber",
    { id: res.body.phoneNumber.id },
    { verified: true, createdAt: earlier("1 hour") },
  );
  await connectTwilioRow({
    accountId: account.id,
    accountSid,
    authToken,
    connectedAt: new Date(Date.now() - 3600_000),
  });
  return { account, number, numberId: res.body.phoneNumber.id };
}

async function callRow(callSid: string) {
  const { rows } = await sql("permissive").query(
    `SELECT "accountId", status, "durationSeconds", direction, "fromNumber", "phoneNumberId", "reconciledAt", "endReason" FROM "Call" WHERE "callSid" = $1`,
    [callSid],
  );
  return rows;
}

async function billed(account: TestAccount, callSid: string) {
  const usage = await sql("permissive").query(
    `SELECT "billedMinutes", "durationSeconds" FROM "UsageRecord" WHERE "callSid" = $1`,
    [callSid],
  );
  const ended = await sql("permissive").query(
    `SELECT count(*)::int AS n FROM "WebhookDelivery" WHERE "callSid" = $1 AND "eventType" = 'call.ended'`,
    [callSid],
  );
  const totals = await sql("permissive").query(
    `SELECT calls::int, "billedMinutes"::int FROM "UsageTotal" WHERE "accountId" = $1 AND period = 'all'`,
    [account.id],
  );
  return { usage: usage.rows, callEnded: ended.rows[0].n as number, totals: totals.rows[0] ?? null };
}

/** The account's live-call count and the slots behind it (docs/decisions.md §17). */
async function liveCount(account: TestAccount) {
  const { rows } = await sql("permissive").query(
    `SELECT (SELECT "liveCalls" FROM "AccountLimit" WHERE "accountId" = $1) AS live,
            (SELECT count(*)::int FROM "LiveCallSlot" WHERE "accountId" = $1) AS slots`,
    [account.id],
  );
  return { live: rows[0].live ?? 0, slots: rows[0].slots };
}

/** Two instances at once, then a later run: whatever overlaps, each call is closed once. */
async function reconcileRepeatedly(now: Date) {
  const results = await Promise.all([reconcileTwilioCalls({ now }), reconcileTwilioCalls({ now })]);
  const again = await reconcileTwilioCalls({ now: new Date(now.getTime() + 60_000) });
  return [...results, again];
}

describe("reconciliation with Twilio's call records", () => {
  it("an open call whose final status never arrived is closed from Twilio's record, once", async () => {
    const s = await setup();
    const callSid = newCallSid();
    const params = {
      CallSid: callSid,
      AccountSid: accountSid,
      From: "+14155550100",
      To: s.number,
      Direction: "inbound",
      CallStatus: "ringing",
    };
    // docs/decisions.md §17: with maxConcurrentCalls set, the call holds a live slot until it is closed, whoever closes it.
    expect((await s.account.as("PUT", "/api/account/limits", { body: { maxConcurrentCalls: 10 } })).status).toBe(200);
    const voice = await postSigned(s.account.engineVoiceUrl, params, authToken);
    expect(voice.status).toBe(200);
    expect(await liveCount(s.account)).toEqual({ live: 1, slots: 1 });
    // Twilio's record: the call completed after 125 s; its status callback was lost.
    const started = new Date(Date.now() - 130_000);
    records.add({
      sid: callSid,
      accountSid,
      from: "+14155550100",
      to: s.number,
      status: "completed",
      duration: 125,
      startTime: started,
      endTime: new Date(started.getTime() + 125_000),
    });

    // Not yet silent for 5 minutes: left alone.
    await reconcileTwilioCalls({ now: new Date(Date.now() + 60_000) });
    expect((await callRow(callSid))[0]).toMatchObject({ status: "ringing", reconciledAt: null });

    await reconcileRepeatedly(new Date(Date.now() + STALE_AFTER_MS + 60_000));
    const [row] = await callRow(callSid);
    expect(row).toMatchObject({
      status: "completed",
      durationSeconds: 125,
      direction: "inbound",
      endReason: "reconciled",
    });
    expect(row.reconciledAt).toBeInstanceOf(Date);
    expect(await liveCount(s.account)).toEqual({ live: 0, slots: 0 });
    expect(await billed(s.account, callSid)).toEqual({
      usage: [{ billedMinutes: 3, durationSeconds: 125 }],
      callEnded: 1,
      totals: { calls: 1, billedMinutes: 3 },
    });

    // The lost callback turning up late changes nothing.
    const late = await postSigned(
      s.account.engineVoiceUrl,
      { ...params, CallStatus: "completed", CallDuration: "125", CallbackSource: "call-progress-events" },
      authToken,
    );
    expect(late.status).toBe(200);
    expect((await billed(s.account, callSid)).usage).toHaveLength(1);
    expect(await liveCount(s.account)).toEqual({ live: 0, slots: 0 });
  });

  it("a call still live at Twilio stays open", async () => {
    const s = await setup();
    const live = newCallSid();
    await postSigned(
      s.account.engineVoiceUrl,
      {
        CallSid: live,
        AccountSid: accountSid,
        From: "+14155550100",
        To: s.number,
        Direction: "inbound",
        CallStatus: "ringing",
      },
      authToken,
    );
    records.add({ sid: live, accountSid, from: "+14155550100", to: s.number, status: "in-progress" });
    await reconcileTwilioCalls({ now: new Date(Date.now() + STALE_AFTER_MS + 60_000) });
    expect((await callRow(live))[0]).toMatchObject({ status: "ringing", reconciledAt: null, endReason: null });
    expect((await billed(s.account, live)).usage).toEqual([]);
  });

  it("a call Twilio lists to a verified number but Routekit never saw is recorded and billed once; others are not", async () => {
    const s = await setup();
    const now = new Date();
    const unseen = records.add({
      accountSid,
      from: "+14155550111",
      to: s.number,
      status: "completed",
      duration: 61,
      answeredBy: "human",
      startTime: new Date(now.getTime() - 120_000),
      endTime: new Date(now.getTime() - 59_000),
    });
    const missed = records.add({
      accountSid,
      from: "+14155550112",
      to: s.number,
      status: "no-answer",
      duration: 0,
      startTime: new Date(now.getTime() - 100_000),
    });
    // Before the number was registered: that call went wherever the number pointed then.
    const older = records.add({
      accountSid,
      from: "+14155550113",
      to: s.number,
      status: "completed",
      duration: 30,
      startTime: new Date(now.getTime() - 2 * 3600_000),
    });
    // An outbound call to the number, and a call to a number not verified here, are not this account's inbound calls.
    const outbound = records.add({
      accountSid,
      from: "+14155550114",
      to: s.number,
      direction: "outbound-api",
      status: "completed",
      duration: 30,
      startTime: new Date(now.getTime() - 60_000),
    });
    const elsewhere = records.add({
      accountSid,
      from: "+14155550115",
      to: randomUsNumber(),
      status: "completed",
      duration: 30,
      startTime: new Date(now.getTime() - 60_000),
    });
    // Enough calls to the number for Twilio's list to page (50 a page).
    for (let i = 0; i < 60; i++)
      records.add({
        accountSid,
        from: "+14155550116",
        to: s.number,
        status: "busy",
        startTime: new Date(now.getTime() - 3000_000 - i * 1000),
      });

    await reconcileRepeatedly(now);

    const [row] = await callRow(unseen.sid);
    expect(row).toMatchObject({
      accountId: s.account.id,
      status: "completed",
      durationSeconds: 61,
      direction: "inbound",
      fromNumber: "+14155550111",
      phoneNumberId: s.numberId,
    });
    expect(row.reconciledAt).toBeInstanceOf(Date);
    expect((await callRow(missed.sid))[0]).toMatchObject({
      status: "no-answer",
      durationSeconds: 0,
      endReason: "reconciled",
    });
    for (const sid of [older.sid, outbound.sid, elsewhere.sid]) expect(await callRow(sid)).toEqual([]);
    const { rows: busy } = await sql("permissive").query(
      `SELECT count(*)::int AS n FROM "Call" WHERE "accountId" = $1 AND status = 'busy'`,
      [s.account.id],
    );
    expect(busy[0].n).toBe(60);

    expect(await billed(s.account, unseen.sid)).toEqual({
      usage: [{ billedMinutes: 2, durationSeconds: 61 }],
      callEnded: 1,
      totals: { calls: 1, billedMinutes: 2 },
    });
    const usage = await s.account.as("GET", "/api/usage");
    expect(usage.body.total).toBe(1);
    const { rows: ended } = await sql("permissive").query(
      `SELECT payload FROM "WebhookDelivery" WHERE "callSid" = $1 AND "eventType" = 'call.ended'`,
      [unseen.sid],
    );
    expect(JSON.parse(ended[0].payload).data).toMatchObject({
      callSid: unseen.sid,
      status: "completed",
      billedMinutes: 2,
      answeredBy: "human",
      endReason: "reconciled",
      sipResponseCode: null,
      errorCode: null,
    });

    const { rows: watermark } = await sql("permissive").query(
      `SELECT "reconciledThrough" FROM "TwilioConnection" WHERE "accountId" = $1`,
      [s.account.id],
    );
    expect((watermark[0].reconciledThrough as Date).getTime()).toBeGreaterThanOrEqual(now.getTime() - 1000);
  });
});
