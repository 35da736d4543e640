/**
 * What an account's standing forbids, as the API enforces it (trpc/init.ts,
 * docs/decisions.md §4): paidProcedure (registering a number, outbound calls) needs
 * ACTIVE; unsuspendedProcedure (changing or deleting a number) refuses
 * SUSPENDED. Keys, billing, reads and deliveries work in every standing.
 */
export type StandingAction = "registerNumber" | "outboundCall" | "changeNumber" | "simulateCall";

// simulateCall: POST /api/phone-numbers/{id}/simulate-call (docs/decisions.md §21) is a paidProcedure too.
const NEEDS_PAYMENT: ReadonlySet<StandingAction> = new Set(["registerNumber", "outboundCall", "simulateCall"]);

export function forbiddenReason(status: string | undefined, action: StandingAction): string | null {
  if (status === "SUSPENDED") return "Your account is suspended: resume your plan in billing first.";
  if (status === "INACTIVE" && NEEDS_PAYMENT.has(action))
    return "Your account is not active yet: complete checkout first.";
  return null;
}
