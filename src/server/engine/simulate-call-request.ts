import { db } from "../db/client";
import { AppError } from "../errors/app-error";
import { engineAccounts } from "../services/calls/call-row";
import { runSimulatedCall } from "./simulate-call";
import { enforceRateLimits, POLICIES } from "../rate-limit/rate-limiter";
import { getCall } from "../services/calls/calls";

/**
 * docs/decisions.md §21: a call to one of the account's numbers, run through the engine's own inbound flow
 * as if Twilio had asked (engine/simulate-call.ts runSimulatedCall), answered with the call as
 * GET /api/calls/{callSid} shows it and the TwiML Twilio would have received. The call is `test`: never
 * billed, never counted in usage or limits (a number at its dailyMinuteCap, or an account at
 * maxConcurrentCalls or its hard cap, can still be tried), never sent to Twilio, and listed only with
 * `?test=true`. At most 10 a minute per account: each one sends a request to the customer's URL.
 * Another account's number, or a released one, is not found (its existence is not revealed).
 */
export async function simulateCall(opts: { accountId: string; id: string; from?: string }) {
  await enforceRateLimits([{ key: `simulate-call:${opts.accountId}`, policy: POLICIES.simulateCall }]);
  const number = await db().phoneNumber.findFirst({
    where: { id: opts.id, accountId: opts.accountId, isActive: true },
    select: {
      id: true,
      phoneNumber: true,
      onCallStartUrl: true,
      onCallEndUrl: true,
      onErrorUrl: true,
      answerPolicy: true,
      listen: true,
    },
  });
  if (!number) throw new AppError("NOT_FOUND", "No such phone number.");
  const account = (await engineAccounts([opts.accountId])).get(opts.accountId);
  if (!account) throw new AppError("NOT_FOUND", "No such phone number.");
  const { callSid, twiml } = await runSimulatedCall({ account, number, from: opts.from });
  const { call } = await getCall({ accountId: opts.accountId, callSid });
  return { call, twiml };
}
