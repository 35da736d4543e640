import type { ServerResponse } from "node:http";
import twilio from "twilio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newCallSid, postSigned } from "../../src/twilio-simulator/twilio-simulator";
import { newActiveAccount, numberBody, randomUsNumber, sql, type TestAccount, seed } from "../support/api";
import { ago, earlier } from "../support/seed";
import { connectTwilioRow } from "../support/connect-twilio";
import { startInProcess } from "../support/in-process";
import { startReceiver } from "../support/receiver";

// What the engine trusts (docs/decisions.md §7, §10): unsigned requests are bounded so
// they can do no harm; a connected account's requests must be Twilio's own.
const TWILIO_SID = `AC${"7".repeat(32)}`;
const TWILIO_TOKEN = "trust-test-auth-token";
const XML = '<?xml version="1.0" encoding="UTF-8"?><Response><Say>hi</Say></Response>';
const EMPTY = '<?xml version="1.0" encoding="UTF-8"?><Response/>';

let backend: Awaited<ReturnType<typeof startReceiver>>;
let inProcess: Awaited<ReturnType<typeof startInProcess>>;
beforeAll(async () => {
  backend = await startReceiver((_r, res: ServerResponse) =>
    res.writeHead(200, { "content-type": "text/xml" }).end(XML),
  );
  inProcess = await startInProcess();
});
afterAll(async () => {
  await backend.close();
  await inProcess.stop();
});

type Setup = { account: TestAccount; number: string; url: string };

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
  return { account, number, url: account.engineVoiceUrl };
}

/** A form POST with no signature, as anyone who learnt the engine URL can send. */
async function postUnsigned(
  url: string,
  form: string | Record<string, string>,
): Promise<{ status: number; body: string }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: typeof form === "string" ? form : new URLSearchParams(form).toString(),
  });
  return { status: res.status, body: await res.text() };
}

async function callRows(accountId: string) {
  const { rows } = await sql("permissive").query(
    `SELECT "callSid", status, "durationSeconds" FROM "Call" WHERE "accountId" = $1`,
    [accountId],
  );
  return rows;
}

const base = (s: Setup, CallSid = newCallSid()) => ({
  CallSid,
  AccountSid: TWILIO_SID,
  From: "+14155550100",
  To: s.number,
  Direction: "inbound",
  ApiVersion: "2010-04-01",
});

describe("unsigned requests (no Twilio connection) do no harm", () => {
  it("forged billing: absurd durations and statuses are 400, a ghost completed bills nothing, a genuine call afterwards is billed exactly", async () => {
    const s = await setup();
    const ghost = { ...base(s), CallStatus: "completed", CallbackSource: "call-progress-events" };

    // The attack as measured: huge durations on calls that never were.
    const absurd = ["2147483647", "2147483648", "86401", "-1", "1.5", "1e3", "0x10", "", " 60", "9".repeat(400)];
    for (const CallDuration of absurd) {
      const res = await postUnsigned(s.url, { ...ghost, CallSid: newCallSid(), CallDuration });
      expect(res.status, `CallDuration=${CallDuration.slice(0, 20)}`).toBe(400);
      const body = JSON.parse(res.body);
      expect(body.error.code).toBe("VALIDATION_FAILED");
      expect(body.error.details.map((d: { path: string }) => d.path)).toContain("CallDuration");
    }
    for (const CallStatus of ["__proto__", "constructor", "toString", "hasOwnProperty", "bogus", "COMPLETED", ""]) {
      const res = await postUnsigned(s.url, { ...ghost, CallSid: newCallSid(), CallStatus, CallDuration: "60" });
      expect(res.status, `CallStatus=${CallStatus}`).toBe(400);
      expect(JSON.parse(res.body).error.details.map((d: { path: string }) => d.path)).toContain("CallStatus");
    }
    // Prototype keys as parameter names are plain, harmless parameters.
    const protoKeys = await postUnsigned(
      s.url,
      `__proto__=x&constructor=y&${new URLSearchParams({ ...ghost, CallSid: newCallSid(), CallDuration: "60" })}`,
    );
    expect(protoKeys.status).toBe(200);
    expect(protoKeys.body).toBe(EMPTY);
    const noSid = await postUnsigned(s.url, { CallStatus: "completed", CallDuration: "5" });
    expect(noSid.status).toBe(400);

    // A well-formed final status for a call the engine never saw: answered, not recorded.
    for (let i = 0; i < 20; i++) {
      const res = await postUnsigned(s.url, { ...ghost, CallSid: newCallSid(), CallDuration: "86400" });
      expect(res.status).toBe(200);
      expect(res.body).toBe(EMPTY);
    }
    expect(await callRows(s.account.id)).toEqual([]);
    const before = await s.account.as("GET", "/api/usage/current");
    expect(before.body.allTime).toMatchObject({ calls: 0, billedMinutes: 0 });

    // A genuine call afterwards: recorded, billed exactly, totals right.
    const genuine = base(s);
    const voice = await postUnsigned(s.url, { ...genuine, CallStatus: "ringing" });
    expect(voice.status).toBe(200);
    expect(voice.body).toBe(XML);
    const done = await postUnsigned(s.url, {
      ...genuine,
      CallStatus: "completed",
      CallDuration: "61",
      CallbackSource: "call-progress-events",
    });
    expect(done.status).toBe(200);
    expect(await callRows(s.account.id)).toEqual([
      { callSid: genuine.CallSid, status: "completed", durationSeconds: 61 },
    ]);
    const usage = await s.account.as("GET", "/api/usage");
    expect(usage.body.total).toBe(1);
    expect(usage.body.records[0]).toMatchObject({ callSid: genuine.CallSid, durationSeconds: 61, billedMinutes: 2 });
    const current = await s.account.as("GET", "/api/usage/current");
    expect(current.status).toBe(200);
    expect(current.body).toMatchObject({
      currentMonth: { calls: 1, billedMinutes: 2, estimatedCost: 49.04 },
      allTime: { calls: 1, billedMinutes: 2 },
    });
  });

  it("a known call can be closed unsigned only within Twilio's bounds, once, and bills no more than it could have lasted", async () => {
    const s = await setup();
    const call = base(s);
    await postUnsigned(s.url, { ...call, CallStatus: "ringing" });
    // The call really began ten minutes ago: a day's CallDuration is clamped to those 600 s plus 60.
    await seed("permissive").update("Call", { callSid: call.CallSid }, { createdAt: ago("600 seconds") });
    expect((await postUnsigned(s.url, { ...call, CallStatus: "completed", CallDuration: "2147483647" })).status).toBe(
      400,
    );
    expect((await postUnsigned(s.url, { ...call, CallStatus: "completed", CallDuration: "86400" })).status).toBe(200);
    expect((await postUnsigned(s.url, { ...call, CallStatus: "completed", CallDuration: "86400" })).status).toBe(200);
    const current = await s.account.as("GET", "/api/usage/current");
    expect(current.body.allTime).toMatchObject({ calls: 1, billedMinutes: 12 });
  });

  // Issue #22 finding 16: 30 forged "ringing then completed" pairs billed 43,200 minutes in 0.6 s.
  it("forged ringing then completed with CallDuration=1440 a second later bills 2 minutes; the timeline shows reported and billed", async () => {
    const s = await setup();
    const call = base(s);
    expect((await postUnsigned(s.url, { ...call, CallStatus: "ringing" })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1000));
    expect(
      (
        await postUnsigned(s.url, {
          ...call,
          CallStatus: "completed",
          CallDuration: "1440",
          CallbackSource: "call-progress-events",
        })
      ).status,
    ).toBe(200);
    const [row] = await callRows(s.account.id);
    // At most the 1–2 s since the ringing plus 60 s of slack.
    expect(row.durationSeconds).toBeGreaterThanOrEqual(61);
    expect(row.durationSeconds).toBeLessThanOrEqual(62);
    const usage = await s.account.as("GET", "/api/usage");
    expect(usage.body.records[0]).toMatchObject({
      callSid: call.CallSid,
      durationSeconds: row.durationSeconds,
      billedMinutes: 2,
    });
    expect((await s.account.as("GET", "/api/usage/current")).body.allTime).toMatchObject({
      calls: 1,
      billedMinutes: 2,
    });
    const detail = await s.account.as("GET", `/api/calls/${call.CallSid}`);
    expect(detail.status).toBe(200);
    const clamped = detail.body.call.timeline.filter((e: { type: string }) => e.type === "duration-clamped");
    expect(clamped).toEqual([
      { type: "duration-clamped", at: expect.any(String), reportedSeconds: 1440, billedSeconds: row.durationSeconds },
    ]);
  });

  it("the clamp counts to when a final status was received, even when it is applied later from the journal", async () => {
    const s = await setup();
    const call = base(s);
    await postUnsigned(s.url, { ...call, CallStatus: "ringing" });
    // Applied now, received five minutes after the call began (the receivedAt a journal entry carries).
    const { handleEngineRequest } = await import("../../src/server/engine/handle-engine-request");
    const routingToken = new URL(s.url).pathname.split("/").pop()!;
    const params = Object.assign(Object.create(null), {
      ...call,
      CallStatus: "completed",
      CallDuration: "1440",
      CallbackSource: "call-progress-events",
    });
    const created = (
      await sql("permissive").query(`SELECT "createdAt" FROM "Call" WHERE "callSid" = $1`, [call.CallSid])
    ).rows[0].createdAt as Date;
    await handleEngineRequest({
      routingToken,
      pathAndQuery: new URL(s.url).pathname,
      callId: null,
      params,
      signature: null,
      receivedAt: new Date(created.getTime() + 300_000),
    });
    const [row] = await callRows(s.account.id);
    expect(row).toMatchObject({ status: "completed", durationSeconds: 360 });
  });

  it("every request Twilio makes about a call refreshes its lastRequestAt", async () => {
    const s = await setup();
    const call = base(s);
    await postUnsigned(s.url, { ...call, CallStatus: "ringing" });
    await seed("permissive").update("Call", { callSid: call.CallSid }, { lastRequestAt: earlier("1 hour") });
    const stale = (
      await sql("permissive").query(`SELECT "lastRequestAt" FROM "Call" WHERE "callSid" = $1`, [call.CallSid])
    ).rows[0].lastRequestAt as Date;
    // A duplicate progress callback changes no status, but tells us the call is alive.
    await postUnsigned(s.url, { ...call, CallStatus: "ringing", CallbackSource: "call-progress-events" });
    const fresh = (
      await sql("permissive").query(`SELECT "lastRequestAt", status FROM "Call" WHERE "callSid" = $1`, [call.CallSid])
    ).rows[0];
    expect(fresh.status).toBe("ringing");
    expect((fresh.lastRequestAt as Date).getTime() - stale.getTime()).toBeGreaterThan(50 * 60_000);
  });
});

describe("a connected account's requests must be signed by its Twilio account", () => {
  it("signed requests work (and a signed ghost completed is adopted and billed); unsigned, wrongly signed or another AccountSid are 403 and record nothing", async () => {
    const s = await setup();
    await connectTwilioRow({ accountId: s.account.id, accountSid: TWILIO_SID, authToken: TWILIO_TOKEN });

    const call = base(s);
    const ringing = { ...call, CallStatus: "ringing" };
    for (const forged of [
      () => postUnsigned(s.url, ringing),
      () => postSigned(s.url, ringing, "not-the-token"),
      () => postSigned(s.url, { ...ringing, AccountSid: `AC${"8".repeat(32)}` }, TWILIO_TOKEN),
      // Signed for other parameters: Twilio's signature covers every one.
      async () => {
        const res = await fetch(s.url, {
          method: "POST",
          headers: {
            "content-type": "application/x-www-form-urlencoded",
            "x-twilio-signature": twilio.getExpectedTwilioSignature(TWILIO_TOKEN, s.url, ringing),
          },
          body: new URLSearchParams({ ...ringing, From: "+14155550999" }).toString(),
        });
        return { status: res.status, body: await res.text() };
      },
    ]) {
      const res = await forged();
      expect(res.status).toBe(403);
      expect(JSON.parse(res.body).error.code).toBe("FORBIDDEN");
    }
    expect(await callRows(s.account.id)).toEqual([]);
    expect(backend.received.filter((r) => r.path === `/${s.account.id}/start`)).toHaveLength(0);

    const voice = await postSigned(s.url, ringing, TWILIO_TOKEN);
    expect(voice.status).toBe(200);
    expect(voice.body).toBe(XML);
    // A forged end of the live call is refused; Twilio's own closes it.
    const forgedEnd = await postSigned(
      s.url,
      { ...call, CallStatus: "completed", CallDuration: "86400", CallbackSource: "call-progress-events" },
      "not-the-token",
    );
    expect(forgedEnd.status).toBe(403);
    expect(
      (
        await postSigned(
          s.url,
          { ...call, CallStatus: "completed", CallDuration: "30", CallbackSource: "call-progress-events" },
          TWILIO_TOKEN,
        )
      ).status,
    ).toBe(200);

    // Verified, a completed call whose voice request never arrived is Twilio's word: recorded and billed.
    const ghost = base(s);
    const adopted = await postSigned(
      s.url,
      { ...ghost, CallStatus: "completed", CallDuration: "61", CallbackSource: "call-progress-events" },
      TWILIO_TOKEN,
    );
    expect(adopted.status).toBe(200);
    const rows = await callRows(s.account.id);
    expect(rows).toHaveLength(2);
    expect(rows).toEqual(
      expect.arrayContaining([
        { callSid: call.CallSid, status: "completed", durationSeconds: 30 },
        { callSid: ghost.CallSid, status: "completed", durationSeconds: 61 },
      ]),
    );
    const current = await s.account.as("GET", "/api/usage/current");
    expect(current.body.allTime).toMatchObject({ calls: 2, billedMinutes: 3 });
  });

  it("a signed completed is Twilio's word: CallDuration=1440 a second after ringing bills 1440 s, unclamped", async () => {
    const s = await setup();
    await connectTwilioRow({ accountId: s.account.id, accountSid: TWILIO_SID, authToken: TWILIO_TOKEN });
    const call = base(s);
    expect((await postSigned(s.url, { ...call, CallStatus: "ringing" }, TWILIO_TOKEN)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1000));
    expect(
      (
        await postSigned(
          s.url,
          { ...call, CallStatus: "completed", CallDuration: "1440", CallbackSource: "call-progress-events" },
          TWILIO_TOKEN,
        )
      ).status,
    ).toBe(200);
    expect(await callRows(s.account.id)).toEqual([
      { callSid: call.CallSid, status: "completed", durationSeconds: 1440 },
    ]);
    expect((await s.account.as("GET", "/api/usage/current")).body.allTime).toMatchObject({
      calls: 1,
      billedMinutes: 24,
    });
    const detail = await s.account.as("GET", `/api/calls/${call.CallSid}`);
    expect(detail.body.call.timeline.filter((e: { type: string }) => e.type === "duration-clamped")).toEqual([]);
  });
});
