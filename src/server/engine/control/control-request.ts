/**
 * Twilio's requests about live-call commands (docs/decisions.md §13), on the account's engine URL with
 * `?control=dial|whisper|recording&command=<id>`: a transfer's `<Dial action>`, the whisper its
 * `<Number url>` fetches on the callee's leg, and a recording's status callback. Each is verified like
 * every engine request (X-Twilio-Signature with the credentials the command was sent with, and their
 * AccountSid); a controlled call always has such credentials, so an unverifiable request is refused.
 */
import twilio from "twilio";
import { AppError } from "../../errors/app-error";
import { kysely, now } from "../../db/kysely";
import { hashRoutingToken } from "../../services/accounts/engine-voice-url";
import { callCredentials, type ControlCommand, type ControlRequest, verifyControlRequest } from "./control-command";
import { answerDialResult } from "./dial-result";
import { applyRecordingStatus } from "./recording-status";

const { VoiceResponse } = twilio.twiml;
const CONTROL_KINDS = ["dial", "whisper", "recording"] as const;
type ControlKind = (typeof CONTROL_KINDS)[number];

/** The command behind a control URL, within the account its routing token names (the current one or the previous). */
async function findCommand(routingToken: string, commandId: string): Promise<ControlCommand | null> {
  const tokenHash = hashRoutingToken(routingToken);
  const row = await kysely()
    .selectFrom("CallCommand as k")
    .innerJoin("Call as c", "c.id", "k.callId")
    .innerJoin("Account as a", "a.id", "k.accountId")
    .leftJoin("TwilioConnection as tc", "tc.accountId", "a.id")
    .select([
      "k.id",
      "k.accountId",
      "k.command",
      "k.details",
      "c.id as callId",
      "c.callSid",
      "c.direction",
      "c.phoneNumberId",
      "c.onCallEndUrl",
      "c.providerAccountSid",
      "c.providerAuthTokenEnc",
      "tc.accountSid as connectionAccountSid",
      "tc.authTokenEnc as connectionAuthTokenEnc",
    ])
    .where("k.id", "=", commandId)
    .where((eb) =>
      eb.or([
        eb("a.routingTokenHash", "=", tokenHash),
        eb.and([eb("a.previousRoutingTokenHash", "=", tokenHash), eb("a.previousRoutingTokenExpiresAt", ">", now())]),
      ]),
    )
    .executeTakeFirst();
  return row ? { ...row, details: (row.details ?? null) as Record<string, unknown> | null } : null;
}

const EXPECTED: Record<ControlKind, string> = { dial: "transfer", whisper: "transfer", recording: "recording.start" };

/** Answers TwiML (an empty `<Response/>` for a recording's callback). */
export async function handleControlRequest(req: ControlRequest): Promise<string> {
  if (!(CONTROL_KINDS as readonly string[]).includes(req.kind) || !req.commandId)
    throw new AppError("NOT_FOUND", "Unknown engine URL.");
  const kind = req.kind as ControlKind;
  const command = await findCommand(req.routingToken, req.commandId);
  if (!command || command.command !== EXPECTED[kind]) throw new AppError("NOT_FOUND", "Unknown engine URL.");
  if (kind === "recording") return applyRecordingStatus(command, req);
  verifyControlRequest(callCredentials(command), req);
  if (kind === "whisper") {
    const response = new VoiceResponse();
    const whisper = command.details?.whisper;
    if (typeof whisper === "string" && whisper) response.say(whisper);
    return response.toString();
  }
  return answerDialResult(command, req.params);
}
