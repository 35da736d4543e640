import { buildEvent, type EventEnvelope, type EventType } from "../../webhooks/event-envelope";
import { billedMinutes, costBreakdown } from "../usage/billed-minutes";
import { ALERT_TYPES, type AlertData, type AlertType } from "../../../shared/schemas/alerts";
import { howToFix } from "../alerts/alert-text";

/**
 * The call sid of every test event: `CA` and 32 zeros, the shape of a real
 * sid that no real call has, so receivers can recognise it besides `data.test`.
 */
const TEST_CALL_SID = `CA${"0".repeat(32)}`;
/** Twilio's documented "valid" magic caller number. */
const SAMPLE_CALLER = "+15005550006";

/** The called number of a sample sent to an account endpoint, which belongs to no number: a reserved 555 number. */
export const SAMPLE_CALLED = "+14155550100";

/** A realistic event of `type` for the number (none for an account endpoint's sample), marked `data.test = true`. */
export function sampleEvent(opts: {
  type: EventType;
  phoneNumberId: string | null;
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
  if ((ALERT_TYPES as readonly string[]).includes(opts.type)) {
    const alert = buildEvent(opts.type, alertSample(opts.type as AlertType, opts.now ?? new Date()), opts.now);
    return { ...alert, data: { ...alert.data, test: true } };
  }
  const data =
    opts.type === "call.started" || opts.type === "call.ringing"
      ? { ...base, status: "ringing" }
      : opts.type === "call.answered"
        ? { ...base, status: "in-progress" }
        : opts.type === "call.transferred" || opts.type === "call.transfer_failed"
          ? controlSample(opts.type, opts.phoneNumberId)
          : opts.type === "recording.completed" || opts.type === "recording.failed"
            ? controlSample(opts.type, opts.phoneNumberId)
            : opts.type === "usage.threshold_reached"
              ? {
                  callSid: TEST_CALL_SID,
                  phoneNumberId: opts.phoneNumberId,
                  threshold: 80,
                  monthlyBudget: 100,
                  spent: 80.02,
                  month: (opts.now ?? new Date()).toISOString().slice(0, 7),
                }
              : opts.type === "call.ended"
                ? {
                    ...base,
                    status: "completed",
                    durationSeconds,
                    billedMinutes: billedMinutes(durationSeconds),
                    costBreakdown: costBreakdown({ durationSeconds, perMinuteRate: opts.perMinuteRate }),
                    endReason: "completed" as const,
                    sipResponseCode: 200,
                    errorCode: null,
                  }
                : {
                    ...base,
                    status: "failed",
                    error: { code: "CALL_FAILED", message: "Twilio reported the call as failed." },
                  };
  const event = buildEvent(opts.type, data, opts.now);
  return { ...event, data: { ...event.data, test: true } };
}

/** The data of a transfer's or a recording's sample (docs/decisions.md §22). */
function controlSample(type: EventType, phoneNumberId: string | null) {
  const common = { callSid: TEST_CALL_SID, phoneNumberId };
  switch (type) {
    case "call.transferred":
      return { ...common, to: "+14155550199", dialCallStatus: "completed", dialCallDurationSeconds: 42 };
    case "call.transfer_failed":
      return { ...common, to: "+14155550199", dialCallStatus: "no-answer" };
    case "recording.completed":
      return {
        ...common,
        recordingSid: `RE${"0".repeat(32)}`,
        url: `https://api.twilio.com/2010-04-01/Accounts/AC${"0".repeat(32)}/Recordings/RE${"0".repeat(32)}`,
        durationSeconds: 42,
        channels: 1,
      };
    default:
      return {
        ...common,
        recordingSid: `RE${"0".repeat(32)}`,
        url: null,
        durationSeconds: null,
        channels: 1,
        status: "failed",
      };
  }
}

/** An alert's sample (docs/decisions.md §16, §22): about a made-up endpoint, number or the account. */
function alertSample(type: AlertType, now: Date): AlertData {
  const subject =
    type === "alert.fallback_rate" || type === "alert.fallback_rate_recovered" || type === "alert.number_unconfigured"
      ? { type: "number" as const, id: "pn_sample" }
      : type === "alert.twilio_credentials_rejected" || type === "alert.payment_failed"
        ? { type: "account" as const, id: "acct_sample" }
        : { type: "endpoint" as const, id: "we_sample", url: "https://example.com/webhooks" };
  const details: Record<AlertType, Record<string, unknown>> = {
    "alert.endpoint_failing": { consecutiveFailures: 3, lastFailureAt: now.toISOString() },
    "alert.endpoint_recovered": { failingSince: new Date(now.getTime() - 600_000).toISOString() },
    "alert.delivery_exhausted": { deliveryId: "dlv_sample", eventType: "call.ended", attempts: 8, lastStatusCode: 503 },
    "alert.fallback_rate": { phoneNumber: SAMPLE_CALLED, calls: 3, windowSeconds: 300, callSids: [TEST_CALL_SID] },
    "alert.fallback_rate_recovered": { fallingBackSince: new Date(now.getTime() - 600_000).toISOString() },
    "alert.twilio_credentials_rejected": { accountSid: `AC${"0".repeat(32)}`, twilioErrorCode: 20003 },
    "alert.number_unconfigured": {
      phoneNumber: SAMPLE_CALLED,
      voiceUrlAtTwilio: "https://demo.twilio.com/welcome/voice/",
    },
    "alert.payment_failed": { invoiceId: "in_sample", amountDue: 49, currency: "usd" },
  };
  return { kind: type, subject, since: now.toISOString(), details: details[type], howToFix: howToFix(type, subject) };
}
