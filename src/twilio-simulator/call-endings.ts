/**
 * How a simulated call's end reaches Routekit: with Twilio's carrier codes
 * (SipResponseCode, ErrorCode) on the final status callback, or not at all,
 * a final status that never arrives (docs/decisions.md §14). Twilio's call
 * record still says how the call ended, so reconciliation can find it for a
 * connected account; an account without a connection sees the call closed as
 * `unknown` (`no-final-status`) 4 h 10 min after its last request.
 */
export type CallEndingPlan = {
  /** "lost": the final status callback is never sent (default "sent"). */
  finalStatus?: "sent" | "lost";
  /** SipResponseCode on the final status callback, e.g. 486 (busy) or 404 (not found). */
  sipResponseCode?: number;
  /** Twilio's ErrorCode on the final status callback, e.g. 32009 or 13224. */
  errorCode?: number;
};

/** The ending part of a plan, undefined members dropped. */
export function callEndingOf(plan: CallEndingPlan): CallEndingPlan {
  const out: CallEndingPlan = {};
  if (plan.finalStatus !== undefined) out.finalStatus = plan.finalStatus;
  if (plan.sipResponseCode !== undefined) out.sipResponseCode = plan.sipResponseCode;
  if (plan.errorCode !== undefined) out.errorCode = plan.errorCode;
  return out;
}

export function finalStatusLost(plan: CallEndingPlan): boolean {
  return plan.finalStatus === "lost";
}

/** What the final status callback carries besides its CallStatus. */
export function finalStatusParams(plan: CallEndingPlan): Record<string, string> {
  const params: Record<string, string> = {};
  if (plan.sipResponseCode !== undefined) params.SipResponseCode = String(plan.sipResponseCode);
  if (plan.errorCode !== undefined) params.ErrorCode = String(plan.errorCode);
  return params;
}

/** The command line's options for it (cli.ts), in parseArgs' shape, and their help. */
export const CALL_ENDING_OPTIONS = {
  "lose-final-status": { type: "boolean" },
  "sip-code": { type: "string" },
  "error-code": { type: "string" },
} as const;

export const CALL_ENDING_HELP = `  --lose-final-status      never send the final status callback (Twilio's record still has it): the
                           call stays open until reconciliation (Twilio connected) or, without a
                           connection, is closed as unknown / no-final-status after 4 h 10 min
  --sip-code <n>           SipResponseCode on the final status callback (e.g. 486, 404)
  --error-code <n>         Twilio ErrorCode on the final status callback (e.g. 32009)`;

/** The plan's ending from parsed options; `bad` reports a malformed value (the CLI's usage error). */
export function callEndingFromOptions(
  values: { "lose-final-status"?: boolean; "sip-code"?: string; "error-code"?: string },
  bad: (message: string) => Error,
): CallEndingPlan {
  const code = (name: "sip-code" | "error-code", min: number, max: number) => {
    const value = values[name];
    if (value === undefined) return undefined;
    const n = Number(value);
    if (!/^\d+$/.test(value) || n < min || n > max)
      throw bad(`--${name} must be a whole number from ${min} to ${max}, got "${value}"`);
    return n;
  };
  return callEndingOf({
    ...(values["lose-final-status"] ? { finalStatus: "lost" as const } : {}),
    sipResponseCode: code("sip-code", 100, 699),
    errorCode: code("error-code", 1, 99_999),
  });
}
