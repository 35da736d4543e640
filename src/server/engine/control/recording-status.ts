/**
 * A recording's status callback (docs/decisions.md §13): Twilio posts `RecordingStatus` (in-progress,
 * completed, absent, failed) with `RecordingSid`, `RecordingUrl`, `RecordingDuration`, `RecordingChannels`.
 * It may come after the call ended (Twilio finishes the file then), so it is verified with the
 * credentials kept on the recording until its final status. A final status is applied once, with its
 * event: `recording.completed`, or `recording.failed` for absent or failed.
 */
import { AppError } from "../../errors/app-error";
import { kysely, now } from "../../db/kysely";
import {
  callCredentials,
  type ControlCommand,
  type ControlRequest,
  recordOnceThenEmit,
  verifyControlRequest,
} from "./control-command";

const STATUSES = new Set(["in-progress", "paused", "stopped", "processing", "completed", "absent", "failed"]);
const FINAL = ["completed", "absent", "failed"];
const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response/>';
const MAX_SECONDS = 86_400;

export async function applyRecordingStatus(command: ControlCommand, req: ControlRequest): Promise<string> {
  const p = req.params;
  const recordingSid = p.RecordingSid ?? "";
  if (!/^RE[0-9a-fA-F]{32}$/.test(recordingSid) || !STATUSES.has(p.RecordingStatus ?? ""))
    throw new AppError("VALIDATION_FAILED", "These are not Twilio's recording status parameters.", {
      details: [{ path: "RecordingSid", message: "RecordingSid (RE…) and RecordingStatus are required" }],
    });
  const status = p.RecordingStatus!;
  const recording = await kysely()
    .selectFrom("CallRecording")
    .select(["id", "channels", "providerAccountSid", "providerAuthTokenEnc"])
    .where("recordingSid", "=", recordingSid)
    .where("callId", "=", command.callId)
    .executeTakeFirst();
  verifyControlRequest(
    recording?.providerAuthTokenEnc
      ? { accountSid: recording.providerAccountSid, authTokenEnc: recording.providerAuthTokenEnc }
      : callCredentials(command),
    req,
  );
  const duration =
    p.RecordingDuration && /^\d{1,5}$/.test(p.RecordingDuration) && Number(p.RecordingDuration) <= MAX_SECONDS
      ? Number(p.RecordingDuration)
      : null;
  const requested = command.details?.channels === "mono" ? 1 : 2;
  const channels =
    p.RecordingChannels === "1" ? 1 : p.RecordingChannels === "2" ? 2 : (recording?.channels ?? requested);
  const url = p.RecordingUrl && /^https?:\/\//.test(p.RecordingUrl) ? p.RecordingUrl.slice(0, 2048) : null;
  const final = FINAL.includes(status);

  await recordOnceThenEmit(
    command,
    async (trx) => {
      // Its callback may overtake the answer to Recordings.create: the row is made by whichever comes first.
      await trx
        .insertInto("CallRecording")
        .values({
          callId: command.callId,
          accountId: command.accountId,
          recordingSid,
          status: "in-progress",
          channels,
        })
        .onConflict((oc) => oc.column("recordingSid").doNothing())
        .execute();
      if (!final) return false; // in-progress (or a step the API already recorded): the row says as much
      const updated = await trx
        .updateTable("CallRecording")
        .set({
          status,
          updatedAt: now(),
          url: status === "completed" ? url : null,
          durationSeconds: status === "completed" ? duration : null,
          channels,
          errorCode: p.ErrorCode && p.ErrorCode !== "0" ? p.ErrorCode.slice(0, 32) : null,
          providerAuthTokenEnc: null,
          providerAccountSid: null,
        })
        .where("recordingSid", "=", recordingSid)
        .where("status", "not in", FINAL)
        .returning("id")
        .executeTakeFirst();
      return updated !== undefined;
    },
    () => {
      const completed = status === "completed";
      return {
        type: completed ? "recording.completed" : "recording.failed",
        data: {
          recordingSid,
          url: completed ? url : null,
          durationSeconds: completed ? duration : null,
          channels,
          ...(!completed && { status }),
          ...(!completed && p.ErrorCode && p.ErrorCode !== "0" && { errorCode: p.ErrorCode.slice(0, 32) }),
        },
      };
    },
  );
  return EMPTY_TWIML;
}
