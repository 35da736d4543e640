import { afterAll, beforeAll, describe, expect, it } from "vitest";
import twilio from "twilio";
import { CallRecordStore } from "../../src/twilio-simulator/call-records";
import {
  simulateInboundCall,
  startTwilioSimulator,
  type TwilioSimulator,
} from "../../src/twilio-simulator/twilio-simulator";

// The simulator's call records, read with the official SDK the way reconciliation reads them.
const SID = `AC${"3".repeat(32)}`;
const TOKEN = "records-token";
let sim: TwilioSimulator;
const records = new CallRecordStore();

type RequestOptions<TData> = import("twilio/lib/base/RequestClient").RequestOptions<TData>;
class SimulatorClient extends twilio.RequestClient {
  override request<TData>(opts: RequestOptions<TData>) {
    const u = new URL(opts.uri);
    return super.request<TData>({ ...opts, uri: `${sim.url}${u.pathname}${u.search}` });
  }
}
const client = () => twilio(SID, TOKEN, { httpClient: new SimulatorClient() });

beforeAll(async () => {
  sim = await startTwilioSimulator({ accounts: { [SID]: TOKEN }, callRecords: records });
});
afterAll(async () => sim.close());

describe("simulator call records", () => {
  it("GET Calls/{Sid}.json: Twilio's fields, the duration as a string", async () => {
    const start = new Date("2026-11-20T10:00:00Z");
    const added = records.add({
      accountSid: SID,
      from: "+14155550100",
      to: "+14155550111",
      status: "completed",
      duration: 61,
      answeredBy: "human",
      startTime: start,
      endTime: new Date(start.getTime() + 61_000),
    });
    const res = await fetch(`${sim.url}/2010-04-01/Accounts/${SID}/Calls/${added.sid}.json`, {
      headers: { authorization: `Basic ${Buffer.from(`${SID}:${TOKEN}`).toString("base64")}` },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      sid: added.sid,
      status: "completed",
      duration: "61",
      direction: "inbound",
      answered_by: "human",
      start_time: "Fri, 20 Nov 2026 10:00:00 +0000",
      end_time: "Fri, 20 Nov 2026 10:01:01 +0000",
    });
    const call = await client().calls(added.sid).fetch();
    expect(call).toMatchObject({ status: "completed", duration: "61", from: "+14155550100", to: "+14155550111" });
    expect(call.endTime?.toISOString()).toBe("2026-11-20T10:01:01.000Z");
    await expect(
      client()
        .calls(`CA${"0".repeat(32)}`)
        .fetch(),
    ).rejects.toMatchObject({ status: 404 });
    const wrong = await fetch(`${sim.url}/2010-04-01/Accounts/${SID}/Calls/${added.sid}.json`, {
      headers: { authorization: `Basic ${Buffer.from(`${SID}:nope`).toString("base64")}` },
    });
    expect(wrong.status).toBe(401);
  });

  it("GET Calls.json: filters by To, StartTime and Status, newest first, every page through the SDK", async () => {
    const to = "+14155550222";
    const base = Date.parse("2026-11-21T00:00:00Z");
    for (let i = 0; i < 120; i++)
      records.add({
        accountSid: SID,
        from: "+14155550100",
        to,
        status: i % 2 ? "completed" : "busy",
        startTime: new Date(base + i * 60_000),
      });
    records.add({ accountSid: SID, from: "+14155550100", to: "+14155550999", startTime: new Date(base + 5 * 60_000) });

    const after = new Date(base + 9.5 * 60_000); // calls 10…119
    const listed = await client().calls.list({ to, startTimeAfter: after });
    expect(listed).toHaveLength(110);
    expect(listed.every((c) => c.to === to)).toBe(true);
    const starts = listed.map((c) => c.startTime!.getTime());
    expect(starts).toEqual([...starts].sort((a, b) => b - a));

    const auth = { authorization: `Basic ${Buffer.from(`${SID}:${TOKEN}`).toString("base64")}` };
    const page = await (
      await fetch(
        `${sim.url}/2010-04-01/Accounts/${SID}/Calls.json?To=${encodeURIComponent(to)}&Status=completed&PageSize=20`,
        { headers: auth },
      )
    ).json();
    expect(page.calls).toHaveLength(20);
    expect(page.calls.every((c: { status: string }) => c.status === "completed")).toBe(true);
    expect(page.next_page_uri).toMatch(/Page=1/);
    const ge = await (
      await fetch(
        `${sim.url}/2010-04-01/Accounts/${SID}/Calls.json?To=${encodeURIComponent(to)}&${encodeURIComponent("StartTime>=")}=${encodeURIComponent(new Date(base + 119 * 60_000).toISOString())}`,
        { headers: auth },
      )
    ).json();
    expect(ge.calls).toHaveLength(1);
    expect(ge.next_page_uri).toBeNull();
  });

  it("calls the simulator plays are on record with how they really ended", async () => {
    const played = await simulateInboundCall({
      engineUrl: "http://127.0.0.1:9/nowhere",
      from: "+14155550100",
      to: "+14155550333",
      accountSid: SID,
      callRecords: records,
      stepDelayMs: 0,
    });
    // The service never answered: Twilio's record still says how the call went.
    expect(records.get(SID, played.callSid)).toMatchObject({
      status: "busy",
      to: "+14155550333",
      direction: "inbound",
    });
  });
});
