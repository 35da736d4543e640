/**
 * Twilio reports a call's statuses at least once and out of order. Each has a
 * rank; a call only moves to a higher rank, so a duplicate changes nothing and
 * a late `ringing` never reopens a completed call.
 */
import { TERMINAL_CALL_STATUSES, type TerminalCallStatus, type TwilioCallStatus } from "../../../shared/schemas/enums";
import { CALL_DURATION_MAX_SECONDS } from "../../../shared/schemas/bounds";

export type TerminalStatus = TerminalCallStatus;

const RANK: Record<Exclude<TwilioCallStatus, TerminalCallStatus>, number> = {
  queued: 0,
  initiated: 1,
  ringing: 2,
  "in-progress": 3,
  answered: 3,
};
export const TERMINAL_RANK = 10;

export function isTerminal(status: string): status is TerminalStatus {
  return (TERMINAL_CALL_STATUSES as readonly string[]).includes(status);
}

/** -1 for anything that is not a status; `Object.hasOwn`, so `__proto__` or `constructor` are not statuses. */
export function statusRank(status: string): number {
  if (isTerminal(status)) return TERMINAL_RANK;
  return Object.hasOwn(RANK, status) ? RANK[status as keyof typeof RANK] : -1;
}

/**
 * The customer points both the voice URL and the status callback at the
 * engine. Status callbacks say so (`CallbackSource=call-progress-events`);
 * a final status is always one. Anything else asks what to do with the call.
 */
export function isStatusCallback(params: Record<string, string>): boolean {
  return params.CallbackSource === "call-progress-events" || isTerminal(params.CallStatus ?? "");
}

/** Twilio's longest call: a TimeLimit of at most 24 hours. */
export const MAX_CALL_DURATION_SECONDS = CALL_DURATION_MAX_SECONDS;
