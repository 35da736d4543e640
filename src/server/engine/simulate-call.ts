/**
 * docs/decisions.md §21: a call to a number played through the engine's own inbound flow without Twilio.
 */
import { randomBytes } from "node:crypto";
import { AppError } from "../errors/app-error";
import { statusRank } from "../services/calls/call-status";
import type { EngineParams } from "./engine-params";
import { insertInboundCallOnce } from "../services/calls/insert-call";
import type { EngineAccount, EngineNumber } from "../services/calls/call-row";
import { finishCall } from "../services/calls/finish-call";
import { whenAnswerRecorded } from "./call-log";
import { askBackend } from "./ask-backend";

/** docs/decisions.md §21: a simulated call's caller, by default Twilio's magic test number. */
const SIMULATED_FROM = "+15005550006";
/** How long a simulated call waits for its answer to reach the call log, so its timeline shows it. */
const SIMULATED_LOG_WAIT_MS = 5_000;

/**
 * docs/decisions.md §21: the inbound flow of a call to `number`, as if Twilio had asked, on the engine's
 * own path (askBackend: `call.started` with `data.test = true`, the answer checked, the answer timeout,
 * the retry, the fallbacks and the last resort as configured), for a call marked `test`. It skips what
 * only a real call meets: the signature (no Twilio request), the spend and daily caps and the
 * concurrency admission (a test call is never counted, insertSimulated). Once its answer is in the call
 * log the call ends at once as `completed` (endReason `completed`, 0 s, nothing billed, no usage), and
 * `call.ended` (`data.test = true`) is queued to the number's onCallEndUrl as for any call. Nothing is
 * ever sent to Twilio. Answers the call's SID and the TwiML Twilio would have received.
 */
export async function runSimulatedCall(opts: {
  account: EngineAccount;
  number: EngineNumber & { phoneNumber: string };
  from?: string;
}): Promise<{ callSid: string; twiml: string }> {
  const { account, number } = opts;
  // The route requires a paid account; an account closed or suspended since is refused as the engine would.
  if (account.status !== "ACTIVE")
    throw new AppError(account.status === "SUSPENDED" ? "ACCOUNT_SUSPENDED" : "PAYMENT_REQUIRED");
  const receivedAt = new Date();
  const params = Object.create(null) as EngineParams;
  params.CallSid = `CA${randomBytes(16).toString("hex")}`;
  params.From = opts.from ?? SIMULATED_FROM;
  params.To = number.phoneNumber;
  params.CallStatus = "ringing";
  params.Direction = "inbound";
  const recorded = await insertInboundCallOnce({
    test: true,
    callSid: params.CallSid,
    accountId: account.id,
    phoneNumberId: number.id,
    fromNumber: params.From,
    toNumber: params.To,
    status: "ringing",
    statusRank: Math.max(0, statusRank("ringing")),
    onCallStartUrl: number.onCallStartUrl,
    onCallEndUrl: number.onCallEndUrl,
    onErrorUrl: number.onErrorUrl,
    answerPolicy: number.answerPolicy ?? null,
  });
  const call = recorded.call;
  if (!call) throw new AppError("INTERNAL", "The simulated call could not be recorded.");
  const logged = whenAnswerRecorded(call.id, SIMULATED_LOG_WAIT_MS);
  const twiml = await askBackend(account, call, params, receivedAt, { test: true, listen: number.listen });
  await logged;
  await finishCall({
    account,
    call,
    status: "completed",
    durationSeconds: 0,
    answeredBy: null,
    endedAt: new Date(),
    reconciled: false,
    test: true,
  });
  return { callSid: call.callSid, twiml };
}
