import { buildEvent, type EventEnvelope, type EventType } from "../event-envelope";
import { billedMinutes, costBreakdown } from "../../services/usage/billed-minutes";

/**
 * The call sid of every test event: `CA` and 32 zeros, the shape of a real
 * sid that no real call has, so receivers can recognise it besides `data.test`.
 */
export const TEST_CALL_SID = `CA${"0".repeat(32)}`;
/** Twilio's documented "valid" magic caller number. */
const SAMPLE_CALLER = "+15005550006";

/** A realistic event of `type` for the number, marked `data.test = true`. */
export function sampleEvent(opts: {
  type: EventType;
  phoneNumberId: string;
  phoneNumber: string;
  perMinuteRate: number;
  now?: Date;
}): EventEnvelope & { data: { test: true } } {
  const base = {
    callSid: TEST_CALL_SID,
    direction: "inbound" as const,
    from: SAMPLE_CALLER,
    to: opts.phoneNumber,
    phoneNumberId: opts.phoneNumberId,
  };
  const durationSeconds = 42;
  const data =
    opts.type === "call.started"
      ? { ...base, status: "ringing" }
      : opts.type === "call.ended"
        ? {
            ...base,
            status: "completed",
            durationSeconds,
            billedMinutes: billedMinutes(durationSeconds),
            costBreakdown: costBreakdown({ durationSeconds, perMinuteRate: opts.perMinuteRate }),
          }
        : { ...base, status: "failed", error: { code: "CALL_FAILED", message: "Twilio reported the call as failed." } };
  const event = buildEvent(opts.type, data, opts.now);
  return { ...event, data: { ...event.data, test: true } };
}
