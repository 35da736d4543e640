import { AppError } from "../../../errors/app-error";
import { executeCompiled, kysely, precompiled } from "../../../db/kysely";
import { decryptSecret } from "../../../crypto/secret-box";
import type { TwilioCredentials } from "../../../integrations/twilio/twilio-account-api";
import { engineVoiceUrlOf } from "../../accounts/engine-voice-url";
import type { AnswerPolicy } from "../../../../shared/schemas/answer-policy";

/** A call's status rank (engine/call-status.ts): 3 is in progress, 10 ended. */
const IN_PROGRESS_RANK = 3;
const TERMINAL_RANK = 10;

export type ControlTarget = {
  call: {
    id: string;
    callSid: string;
    accountId: string;
    direction: string;
    fromNumber: string;
    toNumber: string;
    phoneNumberId: string | null;
    onCallEndUrl: string;
  };
  /** Whose Twilio account the call is on: the outbound call's own credentials, else the account's connection. */
  creds: TwilioCredentials;
  /** The call's own credentials (outbound), kept with a recording whose callbacks may outlive the call. */
  credsEnc: { accountSid: string; authTokenEnc: string };
  /** The account's engine URL: Twilio's requests about the command come back there. */
  engineUrl: string;
  /** The answer policy the call started with (§12): its `lastResort` is a failed transfer's default. */
  answerPolicy: AnswerPolicy | null;
};

/** The call by SID within the account, with what a command needs of the account; compiled once (db/kysely.ts). */
const targetRow = precompiled((callSid: string, accountId: string) =>
  kysely()
    .selectFrom("Call as c")
    // Call has no foreign key to Account; the account is the caller's own, so it exists.
    .innerJoin("Account as a", "a.id", "c.accountId")
    .leftJoin("TwilioConnection as tc", "tc.accountId", "a.id")
    .select([
      "c.id",
      "c.callSid",
      "c.accountId",
      "c.direction",
      "c.fromNumber",
      "c.toNumber",
      "c.phoneNumberId",
      "c.onCallEndUrl",
      "c.statusRank",
      "c.endedAt",
      "c.answer",
      "c.providerAccountSid",
      "c.providerAuthTokenEnc",
      "c.answerPolicy",
      "c.test",
      "a.routingTokenEnc",
      "a.legacyRoutingToken",
      "tc.accountSid as connectionAccountSid",
      "tc.authTokenEnc as connectionAuthTokenEnc",
    ])
    .where("c.callSid", "=", callSid)
    .where("c.accountId", "=", accountId),
);

/**
 * The call a live command is about (docs/decisions.md §13, §22), checked in the documented order:
 * unknown or another account's → 404; not live → 409 CALL_NOT_LIVE (whatever credentials exist);
 * no credentials → 409 CALL_NOT_CONTROLLABLE. `needsAnswer`: redirect, transfer and recording
 * need an answered call; a hang-up only one that has not ended.
 */
export async function controlTarget(opts: {
  accountId: string;
  callSid: string;
  needsAnswer: boolean;
}): Promise<ControlTarget> {
  // One statement: the call with its account's routing token and Twilio connection (every command's first read).
  const [row] = await executeCompiled(targetRow(opts.callSid, opts.accountId));
  if (!row || row.callSid.startsWith("pending:")) throw new AppError("NOT_FOUND", "No such call.");

  const ended = row.statusRank >= TERMINAL_RANK || row.endedAt !== null;
  // Inbound: live once the engine answered its voice request; outbound: once in progress (§22).
  const answered =
    row.statusRank >= IN_PROGRESS_RANK ||
    (row.direction === "inbound" && row.answer !== null && row.answer !== "reject");
  if (ended) throw new AppError("CALL_NOT_LIVE", `Call ${row.callSid} has ended.`);
  // docs/decisions.md §21: a simulated call never reached Twilio, so there is nothing there to command.
  if (row.test)
    throw new AppError("CALL_NOT_LIVE", `Call ${row.callSid} is a simulated call: it never reached Twilio.`);
  if (opts.needsAnswer && !answered)
    throw new AppError("CALL_NOT_LIVE", `Call ${row.callSid} has not been answered yet; try again once it is.`);

  const own =
    row.providerAccountSid && row.providerAuthTokenEnc
      ? { accountSid: row.providerAccountSid, authTokenEnc: row.providerAuthTokenEnc }
      : null;
  const chosen =
    own ??
    (row.connectionAccountSid && row.connectionAuthTokenEnc
      ? { accountSid: row.connectionAccountSid, authTokenEnc: row.connectionAuthTokenEnc }
      : null);
  if (!chosen) throw new AppError("CALL_NOT_CONTROLLABLE");

  const {
    statusRank: _r,
    endedAt: _e,
    answer: _a,
    providerAccountSid: _p,
    providerAuthTokenEnc: _t,
    routingTokenEnc: _rt,
    legacyRoutingToken: _lt,
    connectionAccountSid: _cs,
    connectionAuthTokenEnc: _ct,
    answerPolicy,
    test: _test,
    ...call
  } = row;
  return {
    call,
    creds: { accountSid: chosen.accountSid, authToken: decryptSecret(chosen.authTokenEnc) },
    credsEnc: { accountSid: chosen.accountSid, authTokenEnc: chosen.authTokenEnc },
    engineUrl: engineVoiceUrlOf(row),
    answerPolicy: (answerPolicy ?? null) as AnswerPolicy | null,
  };
}
