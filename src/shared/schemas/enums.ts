import { z } from "zod";
import { AccountStatus, DeliveryStatus, MemberRole } from "../../generated/prisma/enums";

/**
 * The one spelling of each enum the API shows. Database enums come from the
 * Prisma schema (its generated client), the rest are listed once here; zod
 * schemas and TypeScript types derive from these, and a test compares them
 * with the migrations and the served OpenAPI document.
 */

export const ZAccountStatus = z
  .enum(AccountStatus)
  .describe("INACTIVE until checkout is completed, ACTIVE while paid, SUSPENDED when payment stopped");
export const ZDeliveryStatus = z
  .enum(DeliveryStatus)
  .describe("PENDING while attempts remain, DELIVERED after a 2xx, FAILED once retries are exhausted");

export const ZMemberRole = z
  .enum(MemberRole)
  .describe(
    "owner: everything; admin: everything but closing the account and changing owners; developer: numbers, keys, calls, deliveries, endpoints; viewer: read only, no secrets (docs/decisions.md §18)",
  );

/** Stored as text: who placed the call. */
export const CALL_DIRECTIONS = ["inbound", "outbound"] as const;
export type CallDirection = (typeof CALL_DIRECTIONS)[number];
export const ZCallDirection = z
  .enum(CALL_DIRECTIONS)
  .describe("inbound: a call to your number; outbound: a call you started with POST /api/outbound");

/**
 * Twilio's CallStatus values as they reach the engine (PROVIDER-FACTS.md), in
 * the order a call moves through them, with the `initiated` of status
 * callbacks and `answered`, which the engine reads as `in-progress`. The last
 * five are final: the call is over.
 */
export const TERMINAL_CALL_STATUSES = ["completed", "busy", "no-answer", "failed", "canceled"] as const;
export type TerminalCallStatus = (typeof TERMINAL_CALL_STATUSES)[number];
const SHOWN_PROGRESS = ["queued", "initiated", "ringing", "in-progress"] as const;
export const TWILIO_CALL_STATUSES = [...SHOWN_PROGRESS, "answered", ...TERMINAL_CALL_STATUSES] as const;
export type TwilioCallStatus = (typeof TWILIO_CALL_STATUSES)[number];
/** What Twilio's call records (`GET …/Calls/{Sid}.json`) say: the CallStatus values but the two of status events. */
export type TwilioCallRecordStatus = Exclude<TwilioCallStatus, "initiated" | "answered">;

/**
 * A call's status as the API shows it: Twilio's last (`answered` as `in-progress`), `rejected` when
 * Routekit rejected the call, or `unknown` when its final status never came (docs/decisions.md §14).
 */
export const CALL_STATUSES = [...SHOWN_PROGRESS, ...TERMINAL_CALL_STATUSES, "rejected", "unknown"] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];
export const ZCallStatus = z
  .enum(CALL_STATUSES)
  .describe(
    "Twilio's CallStatus as last reported, `rejected` when Routekit rejected the call, or `unknown` when an account without a Twilio connection never got the call's final status (closed 4 h 10 min after its last request)",
  );

/**
 * Why a call ended (docs/decisions.md §14), the one catalogue: Twilio's final
 * status, Routekit's own decision, or how the end was learned. What each means
 * and what to do is in src/shared/call-outcomes.ts (the dashboard and the reference).
 */
export const CALL_END_REASONS = [
  // telephony
  ...TERMINAL_CALL_STATUSES,
  "transferred",
  // Routekit's decisions
  "not-registered",
  "account-inactive",
  "account-suspended",
  "spend-limit-reached",
  "concurrency-limit-reached",
  "daily-cap-reached",
  "hung-up-by-api",
  // how the end was learned
  "reconciled",
  "no-final-status",
] as const;
export type CallEndReason = (typeof CALL_END_REASONS)[number];
export const ZCallEndReason = z
  .enum(CALL_END_REASONS)
  .describe(
    "Why the call ended: Twilio's final status, a decision of Routekit's, or how the end was learned (docs/call-outcomes.md)",
  );

/** The status a call is stored and shown with, from the CallStatus Twilio sent. */
export function shownCallStatus(status: TwilioCallStatus): Exclude<CallStatus, "rejected"> {
  return status === "answered" ? "in-progress" : status;
}

/**
 * How a call was decided (docs/decisions.md §11, §12): the form of onCallStartUrl's answer; a
 * fallback of the number's (`fallback-url`, `fallback-actions`, `fallback-twiml`); `fallback`, the
 * built-in apology or the customer's `lastResort`; `reject` when Routekit rejected the call.
 */
export const CALL_ANSWERS = [
  "xml",
  "json-twiml",
  "json-actions",
  "fallback-url",
  "fallback-actions",
  "fallback-twiml",
  "fallback",
  "reject",
] as const;
export type CallAnswer = (typeof CALL_ANSWERS)[number];
export const ZCallAnswer = z
  .enum(CALL_ANSWERS)
  .describe(
    "How the call was decided: xml, json-twiml or json-actions (the form of your onCallStartUrl answer); fallback-url, fallback-actions or fallback-twiml (your number's fallback); fallback (your lastResort, or the built-in apology); reject (Routekit rejected the call)",
  );

/** docs/decisions.md §22: what decided a call after its onCallStartUrl failed, on call.error. */
const TAKEN_OVER_BY = [
  "retry",
  "fallback-url",
  "fallback-actions",
  "fallback-twiml",
  "last-resort",
  "apology",
] as const;
export type TakenOverBy = (typeof TAKEN_OVER_BY)[number];
export const ZTakenOverBy = z
  .enum(TAKEN_OVER_BY)
  .describe(
    "What decided the call after onCallStartUrl failed: retry (a second try after a refused or reset connection answered), fallback-url, fallback-actions, fallback-twiml, last-resort (your lastResort) or apology (the built-in apology)",
  );

/** docs/decisions.md §12: which try of call.started a timeline entry or delivery attempt was. */
export const START_ATTEMPT_ROLES = ["primary", "retry", "fallback-url", "shadow", "replay"] as const;

/** docs/decisions.md §13: the live-call commands a call's timeline names (recording's four actions apart). */
export const CALL_COMMANDS = [
  "hangup",
  "redirect",
  "transfer",
  "recording.start",
  "recording.pause",
  "recording.resume",
  "recording.stop",
] as const;
export type StartAttemptRole = (typeof START_ATTEMPT_ROLES)[number];
export const ZStartAttemptRole = z
  .enum(START_ATTEMPT_ROLES)
  .describe(
    "primary: onCallStartUrl; retry: onCallStartUrl again after a refused or reset connection; fallback-url: your fallback URL; shadow: the number's shadow backend (docs/decisions.md §23, its answer never used); replay: POST /api/calls/{callSid}/replay",
  );
