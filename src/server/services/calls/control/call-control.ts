import twilio from "twilio";
import { AppError } from "../../../errors/app-error";
import { db } from "../../../db/client";
import { kysely, now } from "../../../db/kysely";
import { twimlFromActions } from "../../answers/actions-to-twiml";
import { checkResponseDocument } from "../../answers/check-twiml";
import type { TRecordingInput, TRedirectInput, TTransferInput } from "../../../../shared/schemas/call-control";
import type { AuditOrigin } from "../../audit/record-audit";
import { getCall } from "../calls";
import { controlTarget } from "./control-target";
import { newCommandId, runCommand } from "./run-command";

const { VoiceResponse } = twilio.twiml;

type Who = { accountId: string; actor: string; origin: AuditOrigin; startedAt: number };

/** The engine URL Twilio calls back about a command (engine/control/control-request.ts). */
function controlUrl(engineUrl: string, kind: "dial" | "whisper" | "recording", commandId: string): string {
  return `${engineUrl}?control=${kind}&command=${encodeURIComponent(commandId)}`;
}

/** docs/decisions.md §13: ends the call at Twilio; its final status follows from Twilio as usual. */
export async function hangupCall(who: Who, callSid: string) {
  const target = await controlTarget({ accountId: who.accountId, callSid, needsAnswer: false });
  // Always `completed`: Twilio's call update "will attempt to hang up a call even if it's already in
  // progress" with it, and ends a queued or ringing call as well (its final status is then `canceled`).
  // `canceled` ends only a call still queued or ringing and leaves one in progress connected, so choosing
  // it from what our rows say (an inbound call answered by the engine, an outbound call Twilio just
  // connected) would leave a caller on the line while the API answers 200.
  const status = "completed" as const;
  // docs/decisions.md §14: the call then ends as `hung-up-by-api` (mapped from controlEnd). Marked before
  // Twilio is asked, since its final status may overtake Twilio's answer; taken back if Twilio refuses.
  const marked = await db().call.updateMany({
    where: { id: target.call.id, controlEnd: null },
    data: { controlEnd: "hung-up-by-api" },
  });
  let hungUp = false;
  try {
    const done = await runCommand({
      target,
      actor: who.actor,
      origin: who.origin,
      command: "hangup",
      startedAt: who.startedAt,
      details: { status },
      send: (client, sid) => client.calls(sid).update({ status }),
      alongside: (_, entry) => {
        hungUp = true;
        return getCall({ accountId: who.accountId, callSid }, { command: entry });
      },
    });
    return done.alongside;
  } catch (err) {
    if (marked.count > 0 && !hungUp)
      await db().call.updateMany({
        where: { id: target.call.id, controlEnd: "hung-up-by-api" },
        data: { controlEnd: null },
      });
    throw err;
  }
}

function redirectTwiml(input: Pick<TRedirectInput, "twiml" | "actions">): string {
  if (input.actions !== undefined) {
    const built = twimlFromActions(input.actions);
    if (!built.ok)
      throw new AppError("VALIDATION_FAILED", built.message, {
        details: [{ path: "actions", message: built.message }],
      });
    return built.twiml;
  }
  const twiml = input.twiml ?? "";
  const check = checkResponseDocument(twiml);
  if (!check.ok)
    throw new AppError("VALIDATION_FAILED", `twiml: ${check.reason}`, {
      details: [{ path: "twiml", message: check.reason }],
    });
  return twiml;
}

/** docs/decisions.md §13: the call continues with this TwiML now (Twilio's call update with `Twiml`). */
export async function redirectCall(who: Who, input: TRedirectInput) {
  const twiml = redirectTwiml(input);
  const target = await controlTarget({ accountId: who.accountId, callSid: input.callSid, needsAnswer: true });
  const done = await runCommand({
    target,
    actor: who.actor,
    origin: who.origin,
    command: "redirect",
    startedAt: who.startedAt,
    details: { twiml },
    send: (client, sid) => client.calls(sid).update({ twiml }),
    alongside: (_, entry) => getCall({ accountId: who.accountId, callSid: input.callSid }, { command: entry }),
  });
  return done.alongside;
}

/**
 * docs/decisions.md §13: the call is redirected to a `<Dial>` whose `action` is the engine, so Twilio
 * reports how the dial ended there (engine/control/dial-result.ts). A whisper is spoken to the callee
 * through the `url` of `<Number>` (or `<Sip>`): Twilio fetches it on the callee's leg once they answer
 * and plays it to them alone before bridging; the engine answers it with a `<Say>`.
 */
export async function transferCall(who: Who, input: TTransferInput) {
  let onFailureTwiml: string | null = null;
  if (input.onFailure !== undefined) {
    const built = twimlFromActions(input.onFailure);
    if (!built.ok)
      throw new AppError("VALIDATION_FAILED", built.message, {
        details: [{ path: "onFailure", message: built.message }],
      });
    onFailureTwiml = built.twiml;
  }
  // The caller ID's number is read beside the call; the call's refusals (§22's order) come first.
  const [target, own] = await Promise.all([
    controlTarget({ accountId: who.accountId, callSid: input.callSid, needsAnswer: true }),
    input.callerId === undefined
      ? null
      : db().phoneNumber.findFirst({
          where: { accountId: who.accountId, phoneNumber: input.callerId, isActive: true },
          select: { id: true },
        }),
  ]);
  // No onFailure: the number's lastResort (as the call started with it), else the built-in apology (dial-result.ts).
  const lastResort = target.answerPolicy?.lastResort;
  if (onFailureTwiml === null && lastResort) {
    const built = twimlFromActions(lastResort.actions);
    if (built.ok) onFailureTwiml = built.twiml;
  }
  if (input.callerId !== undefined && !own)
    throw new AppError("NUMBER_NOT_OWNED", `${input.callerId} is not a number registered to this account.`);
  // The call's own number: the one called (inbound) or calling (outbound).
  const callerId =
    input.callerId ?? (target.call.direction === "outbound" ? target.call.fromNumber : target.call.toNumber);
  const id = newCommandId();
  const response = new VoiceResponse();
  const dial = response.dial({
    action: controlUrl(target.engineUrl, "dial", id),
    method: "POST",
    timeout: input.timeout,
    callerId,
  });
  const noun = input.whisper ? { url: controlUrl(target.engineUrl, "whisper", id), method: "POST" as const } : {};
  if (/^sips?:/i.test(input.to)) dial.sip(noun, input.to);
  else dial.number(noun, input.to);
  const twiml = response.toString();
  const done = await runCommand({
    target,
    actor: who.actor,
    origin: who.origin,
    command: "transfer",
    auditDetails: { to: input.to, callerId },
    id,
    recordFirst: true,
    startedAt: who.startedAt,
    details: {
      to: input.to,
      callerId,
      timeout: input.timeout,
      whisper: input.whisper ?? null,
      onFailureTwiml,
      twiml,
    },
    send: (client, sid) => client.calls(sid).update({ twiml }),
    alongside: (_, entry) => getCall({ accountId: who.accountId, callSid: input.callSid }, { command: entry }),
  });
  return done.alongside;
}

const PAUSED_STATUS = { pause: "paused", resume: "in-progress", stop: "stopped" } as const;

/** The call's recording that can still be paused, resumed or stopped: its latest in progress or paused. */
function currentRecording(accountId: string, callSid: string) {
  return kysely()
    .selectFrom("CallRecording as r")
    .innerJoin("Call as c", "c.id", "r.callId")
    .select(["r.id", "r.recordingSid"])
    .where("c.callSid", "=", callSid)
    .where("c.accountId", "=", accountId)
    .where("r.status", "in", ["in-progress", "paused"])
    .orderBy("r.createdAt", "desc")
    .limit(1)
    .executeTakeFirst();
}

/** docs/decisions.md §13: Twilio's call Recordings resource, its status callback on the engine. */
export async function controlRecording(who: Who, input: TRecordingInput) {
  if (input.action === "start") {
    const target = await controlTarget({ accountId: who.accountId, callSid: input.callSid, needsAnswer: true });
    const id = newCommandId();
    const channels = input.channels === "mono" ? 1 : 2;
    const { alongside } = await runCommand({
      target,
      actor: who.actor,
      origin: who.origin,
      command: "recording.start",
      auditDetails: { channels: input.channels },
      id,
      recordFirst: true,
      startedAt: who.startedAt,
      details: { channels: input.channels },
      send: (client, sid) =>
        client.calls(sid).recordings.create({
          recordingStatusCallback: controlUrl(target.engineUrl, "recording", id),
          recordingStatusCallbackMethod: "POST",
          recordingStatusCallbackEvent: ["in-progress", "completed", "absent"],
          recordingChannels: input.channels,
        }),
      // Twilio's first status callback may have made the row already (engine/control/recording-status.ts):
      // one statement either way, keeping the credentials for the callbacks still to come.
      alongside: async (created) => {
        const status = created.status || "in-progress";
        await kysely()
          .insertInto("CallRecording")
          .values({
            callId: target.call.id,
            accountId: target.call.accountId,
            recordingSid: created.sid,
            status,
            channels,
            providerAccountSid: target.credsEnc.accountSid,
            providerAuthTokenEnc: target.credsEnc.authTokenEnc,
          })
          .onConflict((oc) =>
            oc
              .column("recordingSid")
              .doUpdateSet({
                providerAccountSid: target.credsEnc.accountSid,
                providerAuthTokenEnc: target.credsEnc.authTokenEnc,
              })
              .where("CallRecording.status", "in", ["in-progress", "paused"]),
          )
          .execute();
        return { recording: { sid: created.sid, status } };
      },
    });
    return alongside;
  }
  // The recording is read beside the call; the call's refusals (§22's order) come first.
  const [target, current] = await Promise.all([
    controlTarget({ accountId: who.accountId, callSid: input.callSid, needsAnswer: true }),
    currentRecording(who.accountId, input.callSid),
  ]);
  if (!current) throw new AppError("NOT_FOUND", "This call has no recording in progress or paused; start one first.");
  const status = PAUSED_STATUS[input.action];
  const { alongside } = await runCommand({
    target,
    actor: who.actor,
    origin: who.origin,
    command: `recording.${input.action}`,
    auditDetails: { recordingSid: current.recordingSid },
    startedAt: who.startedAt,
    details: { recordingSid: current.recordingSid, status },
    send: (client, sid) => client.calls(sid).recordings(current.recordingSid).update({ status }),
    alongside: async (updated) => {
      const shown = updated.status || status;
      // A late status callback may already have completed it: never move a finished recording back.
      await kysely()
        .updateTable("CallRecording")
        .set({ status: shown, updatedAt: now() })
        .where("id", "=", current.id)
        .where("status", "in", ["in-progress", "paused"])
        .execute();
      return { recording: { sid: current.recordingSid, status: shown } };
    },
  });
  return alongside;
}
