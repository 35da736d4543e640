import { z } from "zod";
import { AccountStatus, DeliveryStatus } from "../../generated/prisma/enums";

/**
 * The one spelling of each enum the API shows. Database enums come from the
 * Prisma schema (its generated client), the rest are listed once here; zod
 * schemas and TypeScript types derive from these, and a test compares them
 * with the migrations and the served OpenAPI document.
 */
export { AccountStatus, DeliveryStatus };

export const ZAccountStatus = z
  .enum(AccountStatus)
  .describe("INACTIVE until checkout is completed, ACTIVE while paid, SUSPENDED when payment stopped");
export const ZDeliveryStatus = z
  .enum(DeliveryStatus)
  .describe("PENDING while attempts remain, DELIVERED after a 2xx, FAILED once retries are exhausted");

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

/** A call's status as the API shows it: Twilio's last (`answered` as `in-progress`), or `rejected` when Routekit rejected the call. */
export const CALL_STATUSES = [...SHOWN_PROGRESS, ...TERMINAL_CALL_STATUSES, "rejected"] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];
export const ZCallStatus = z
  .enum(CALL_STATUSES)
  .describe("Twilio's CallStatus as last reported, or `rejected` when Routekit rejected the call");

/** The status a call is stored and shown with, from the CallStatus Twilio sent. */
export function shownCallStatus(status: TwilioCallStatus): Exclude<CallStatus, "rejected"> {
  return status === "answered" ? "in-progress" : status;
}
