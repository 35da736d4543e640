import { describe, expect, it } from "vitest";
import { AppError } from "../../src/server/errors/app-error";
import { statusRank } from "../../src/server/services/calls/call-status";
import { carrierCodesOf, parseEngineParams, validateEngineParams } from "../../src/server/engine/engine-params";

const detailsOf = (body: string): string[] => {
  try {
    validateEngineParams(parseEngineParams(body));
    return [];
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe("VALIDATION_FAILED");
    return (err as AppError).details!.map((d) => d.path);
  }
};

describe("engine parameters", () => {
  it("takes what Twilio's voice requests and status callbacks really send", () => {
    for (const status of [
      "queued",
      "initiated",
      "ringing",
      "in-progress",
      "answered",
      "completed",
      "busy",
      "failed",
      "no-answer",
      "canceled",
    ]) {
      expect(detailsOf(`CallSid=CA1&CallStatus=${status}`), status).toEqual([]);
    }
    expect(detailsOf("CallSid=CA1&CallStatus=completed&CallDuration=0")).toEqual([]);
    expect(detailsOf("CallSid=CA1&CallStatus=completed&CallDuration=86400")).toEqual([]);
  });

  it("refuses durations outside 0–86,400 whole seconds and statuses Twilio never sends", () => {
    for (const d of ["86401", "2147483648", "-1", "1.5", "1e3", "", "+5", " 5", "0x1f", "١٢"]) {
      expect(detailsOf(`CallSid=CA1&CallStatus=completed&CallDuration=${encodeURIComponent(d)}`), d).toEqual([
        "CallDuration",
      ]);
    }
    for (const s of ["__proto__", "constructor", "toString", "Completed", "", "done"]) {
      expect(detailsOf(`CallSid=CA1&CallStatus=${encodeURIComponent(s)}`), s).toEqual(["CallStatus"]);
    }
    expect(detailsOf("CallStatus=ringing")).toEqual(["CallSid"]);
  });

  it("keeps Twilio's carrier codes as bounded integers and refuses anything else (docs/decisions.md §22)", () => {
    const ok = "CallSid=CA1&CallStatus=failed&SipResponseCode=486&ErrorCode=32009";
    expect(detailsOf(ok)).toEqual([]);
    expect(carrierCodesOf(parseEngineParams(ok))).toEqual({ sipResponseCode: 486, twilioErrorCode: 32009 });
    // Absent or empty: none.
    expect(carrierCodesOf(parseEngineParams("CallSid=CA1&CallStatus=failed&ErrorCode="))).toEqual({
      sipResponseCode: null,
      twilioErrorCode: null,
    });
    for (const v of ["99", "700", "4860", "-486", "48.6", "1e2", " 486", "abc", "__proto__"]) {
      expect(detailsOf(`CallSid=CA1&CallStatus=failed&SipResponseCode=${encodeURIComponent(v)}`), v).toEqual([
        "SipResponseCode",
      ]);
    }
    for (const v of ["0", "100000", "2147483648", "-1", "1.5", "x"]) {
      expect(detailsOf(`CallSid=CA1&CallStatus=failed&ErrorCode=${encodeURIComponent(v)}`), v).toEqual(["ErrorCode"]);
    }
  });

  it("keeps prototype names as plain keys: nothing inherited, nothing polluted", () => {
    const params = parseEngineParams("__proto__=x&constructor=y&CallSid=CA1&CallStatus=ringing");
    expect(Object.getPrototypeOf(params)).toBeNull();
    // biome-ignore lint/suspicious/noProto: the point is that a parameter named __proto__ is plain data here
    expect(params.__proto__).toBe("x");
    expect(params.constructor).toBe("y");
    expect(parseEngineParams("CallSid=CA1").toString).toBeUndefined();
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it("ranks only real statuses", () => {
    expect(statusRank("__proto__")).toBe(-1);
    expect(statusRank("constructor")).toBe(-1);
    expect(statusRank("ringing")).toBeLessThan(statusRank("in-progress"));
    expect(statusRank("in-progress")).toBeLessThan(statusRank("completed"));
  });
});
