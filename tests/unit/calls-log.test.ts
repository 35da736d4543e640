import { describe, expect, it } from "vitest";
import { callsCsv } from "../../src/app/dashboard/calls/calls-csv";
import type { TCall } from "../../src/shared/schemas/calls";

const call = (over: Partial<TCall> = {}): TCall => ({
  callSid: "CA0123",
  direction: "inbound",
  from: "+14155550100",
  to: "+14155550123",
  phoneNumberId: "cnum",
  status: "completed",
  startedAt: "2026-11-22T10:00:00.000Z",
  endedAt: "2026-11-22T10:01:01.000Z",
  durationSeconds: 61,
  billedMinutes: 2,
  costBreakdown: {
    durationSeconds: 61,
    billedMinutes: 2,
    perMinuteRate: 0.02,
    usageCost: 0.04,
    totalCost: 0.04,
    currency: "usd",
  },
  answeredBy: null,
  answer: "xml",
  error: null,
  endReason: "completed",
  sipResponseCode: null,
  errorCode: null,
  test: false,
  ...over,
});

describe("calls CSV", () => {
  it("has a header and one CRLF line per call; phone numbers stay numbers", () => {
    const lines = callsCsv([call()]).split("\r\n");
    expect(lines[0]).toBe(
      "callSid,direction,from,to,phoneNumberId,status,startedAt,endedAt,durationSeconds,billedMinutes,totalCost,answeredBy,answer,errorCode,errorMessage,endReason,sipResponseCode,twilioErrorCode",
    );
    expect(lines[1]).toBe(
      "CA0123,inbound,+14155550100,+14155550123,cnum,completed,2026-11-22T10:00:00.000Z,2026-11-22T10:01:01.000Z,61,2,0.04,,xml,,,completed,,",
    );
    expect(lines[2]).toBe("");
  });

  it("carries why the call ended and Twilio's carrier codes", () => {
    const line = callsCsv([
      call({ status: "failed", endReason: "failed", sipResponseCode: 404, errorCode: 13224, costBreakdown: null }),
    ]).split("\r\n")[1]!;
    expect(line.endsWith(",failed,404,13224")).toBe(true);
    expect(callsCsv([call({ status: "unknown", endReason: "no-final-status" })])).toContain(",unknown,");
  });

  it("quotes commas, quotes and newlines, and defuses formulas a caller could plant", () => {
    const line = callsCsv([
      call({
        from: '=HYPERLINK("x")',
        error: { code: "START_CALLBACK_INVALID", message: 'bad, "very"\nbad' },
        answer: "fallback",
      }),
    ]).split("\r\n")[1]!;
    expect(line).toContain(`"'=HYPERLINK(""x"")"`);
    expect(line).toContain(`"bad, ""very""\nbad"`);
    expect(callsCsv([call({ from: "-1+1" })])).toContain(`"'-1+1"`);
    expect(callsCsv([call({ from: "@SUM(A1)" })])).toContain(`"'@SUM(A1)"`);
  });
});
