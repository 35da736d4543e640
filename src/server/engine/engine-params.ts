import { AppError } from "../errors/app-error";
import { MAX_CALL_DURATION_SECONDS } from "../services/calls/call-status";
import { TWILIO_CALL_STATUSES, type TwilioCallStatus } from "../../shared/schemas/enums";

/** Twilio's form parameters, in an object with no prototype: `__proto__` or `constructor` are plain keys here. */
export type EngineParams = Record<string, string>;

export function parseEngineParams(body: string): EngineParams {
  const params = Object.create(null) as EngineParams;
  for (const [name, value] of new URLSearchParams(body)) params[name] = value;
  return params;
}

/** Every CallStatus Twilio sends to a voice URL or a status callback (schemas/enums.ts). */
const CALL_STATUSES = new Set<string>(TWILIO_CALL_STATUSES);

const DURATION = /^\d{1,5}$/;

/**
 * The carrier's codes Twilio adds to a status callback (docs/decisions.md §22 "Carrier codes"):
 * SipResponseCode is a SIP status (100–699), ErrorCode one of Twilio's error codes (at most five
 * digits). They are stored as integers, so anything else is refused like a malformed CallDuration.
 */
const CARRIER_CODES = {
  SipResponseCode: { min: 100, max: 699 },
  ErrorCode: { min: 1, max: 99_999 },
} as const;
type CodeRule = { min: number; max: number };

function carrierCode(value: string, rule: CodeRule): number | null {
  if (!/^\d{1,5}$/.test(value)) return null;
  const n = Number(value);
  return n >= rule.min && n <= rule.max ? n : null;
}

/** Twilio's SipResponseCode and ErrorCode of a validated request; null where it sent none (an empty value is none). */
export function carrierCodesOf(params: EngineParams): {
  sipResponseCode: number | null;
  twilioErrorCode: number | null;
} {
  const code = (name: keyof typeof CARRIER_CODES) => {
    const value = params[name];
    return value === undefined || value === "" ? null : carrierCode(value, CARRIER_CODES[name]);
  };
  return { sipResponseCode: code("SipResponseCode"), twilioErrorCode: code("ErrorCode") };
}

/**
 * What any request must satisfy before the engine acts on it (docs/decisions.md §7):
 * an unsigned request can then close a call with at most a day's minutes, and
 * never write a status or a number the data model was not built for.
 */
export function validateEngineParams(params: EngineParams): void {
  const problems: { path: string; message: string }[] = [];
  const status = params.CallStatus;
  if (status === undefined || !CALL_STATUSES.has(status)) {
    problems.push({ path: "CallStatus", message: `must be one of ${[...CALL_STATUSES].join(", ")}` });
  }
  const duration = params.CallDuration;
  if (duration !== undefined && (!DURATION.test(duration) || Number(duration) > MAX_CALL_DURATION_SECONDS)) {
    problems.push({
      path: "CallDuration",
      message: `must be a whole number of seconds from 0 to ${MAX_CALL_DURATION_SECONDS}`,
    });
  }
  for (const [name, rule] of Object.entries(CARRIER_CODES)) {
    const value = params[name];
    if (value !== undefined && value !== "" && carrierCode(value, rule) === null)
      problems.push({ path: name, message: `must be a whole number from ${rule.min} to ${rule.max}` });
  }
  if (!params.CallSid) problems.push({ path: "CallSid", message: "is required" });
  if (problems.length)
    throw new AppError("VALIDATION_FAILED", "These are not Twilio's call parameters.", { details: problems });
}

/** The request's CallStatus, once `validateEngineParams` has passed it. */
export function callStatusOf(params: EngineParams): TwilioCallStatus {
  return params.CallStatus as TwilioCallStatus;
}
