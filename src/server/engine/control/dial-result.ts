/**
 * How a transfer's `<Dial>` ended (docs/decisions.md §13), from Twilio's request to the dial's `action`:
 * recorded once on the command, `call.transferred` or `call.transfer_failed` queued in the same
 * transaction, and the answer tells Twilio how the caller's call goes on. A failed transfer never drops
 * the caller: the transfer's `onFailure` actions are played (default: see `defaultOnFailureTwiml`).
 */
import twilio from "twilio";
import { AppError } from "../../errors/app-error";
import { DIAL_CALL_STATUSES } from "../../../shared/schemas/events";
import { now } from "../../db/kysely";
import { fallbackTwiml } from "../../services/answers/fixed-twiml";
import type { EngineParams } from "../engine-params";
import { type ControlCommand, recordOnceThenEmit } from "./control-command";

const { VoiceResponse } = twilio.twiml;
const DIAL_STATUSES = new Set<string>(DIAL_CALL_STATUSES);
const CONNECTED = new Set(["completed", "answered"]);
const MAX_SECONDS = 86_400;

/** After a transfer that connected, the caller's side ends with the conversation. */
const HANGUP_TWIML: string = (() => {
  const r = new VoiceResponse();
  r.hangup();
  return r.toString();
})();

/**
 * What a failed transfer plays when it was given no `onFailure` and its call has no `lastResort`
 * (docs/decisions.md §13; the lastResort default is built when the transfer is sent,
 * services/calls/control/call-control.ts): the built-in apology.
 */
function defaultOnFailureTwiml(_command: ControlCommand): string {
  return fallbackTwiml();
}

export async function answerDialResult(command: ControlCommand, params: EngineParams): Promise<string> {
  const dialCallStatus = params.DialCallStatus ?? "";
  if (!DIAL_STATUSES.has(dialCallStatus))
    throw new AppError("VALIDATION_FAILED", "These are not Twilio's dial parameters.", {
      details: [{ path: "DialCallStatus", message: `must be one of ${[...DIAL_STATUSES].join(", ")}` }],
    });
  const rawDuration = params.DialCallDuration;
  const duration =
    rawDuration !== undefined && /^\d{1,5}$/.test(rawDuration) && Number(rawDuration) <= MAX_SECONDS
      ? Number(rawDuration)
      : undefined;
  const dialCallSid =
    params.DialCallSid && /^CA[0-9a-fA-F]{32}$/.test(params.DialCallSid) ? params.DialCallSid : undefined;
  const connected = CONNECTED.has(dialCallStatus);
  const to = typeof command.details?.to === "string" ? command.details.to : "";
  const result = { dialCallStatus, dialCallSid: dialCallSid ?? null, dialCallDurationSeconds: duration ?? null };

  await recordOnceThenEmit(
    command,
    async (trx) => {
      const updated = await trx
        .updateTable("CallCommand")
        .set({ result: JSON.stringify(result), resultAt: now() })
        .where("id", "=", command.id)
        .where("resultAt", "is", null)
        .returning("id")
        .executeTakeFirst();
      if (!updated) return false;
      if (connected) {
        // docs/decisions.md §14: the call then ends as `transferred` (mapped from controlEnd).
        await trx
          .updateTable("Call")
          .set({ controlEnd: "transferred" })
          .where("id", "=", command.callId)
          .where("controlEnd", "is", null)
          .execute();
      }
      return true;
    },
    () => ({
      type: connected ? "call.transferred" : "call.transfer_failed",
      data: { to, dialCallStatus, dialCallSid, dialCallDurationSeconds: duration },
    }),
  );
  if (connected) return HANGUP_TWIML;
  const onFailure = command.details?.onFailureTwiml;
  return typeof onFailure === "string" && onFailure ? onFailure : defaultOnFailureTwiml(command);
}
