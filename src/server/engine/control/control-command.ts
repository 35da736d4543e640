/** A live-call command as the engine finds it for Twilio's requests about it, and how those are verified. */
import { AppError } from "../../errors/app-error";
import { decryptSecret } from "../../crypto/secret-box";
import type { SqlTransaction } from "../../db/sql-transaction";
import type { EventType } from "../../../shared/schemas/events";
import { transactionWithEvents } from "../../webhooks/enqueue-event";
import { buildEvent } from "../../webhooks/event-envelope";
import { verifyTwilioSignature } from "../verify-twilio-signature";
import type { EngineParams } from "../engine-params";

export type ControlCommand = {
  id: string;
  accountId: string;
  command: string;
  details: Record<string, unknown> | null;
  callId: string;
  callSid: string;
  direction: string;
  phoneNumberId: string | null;
  onCallEndUrl: string;
  providerAccountSid: string | null;
  providerAuthTokenEnc: string | null;
  connectionAccountSid: string | null;
  connectionAuthTokenEnc: string | null;
};

/** Checks the request against one set of credentials; 403 when it does not match, or when there are none. */
export function verifyControlRequest(
  creds: { accountSid: string | null; authTokenEnc: string | null } | null,
  req: { pathAndQuery: string; params: EngineParams; signature: string | null },
): void {
  const ok =
    creds?.authTokenEnc != null &&
    (creds.accountSid === null || req.params.AccountSid === creds.accountSid) &&
    verifyTwilioSignature({
      authToken: decryptSecret(creds.authTokenEnc),
      signature: req.signature,
      pathAndQuery: req.pathAndQuery,
      params: req.params,
    });
  if (!ok) throw new AppError("FORBIDDEN", "Invalid X-Twilio-Signature.");
}

/** The call's credentials: its own (outbound, while it lives), else the account's Twilio connection. */
export function callCredentials(c: ControlCommand): { accountSid: string | null; authTokenEnc: string | null } | null {
  if (c.providerAuthTokenEnc) return { accountSid: c.providerAccountSid, authTokenEnc: c.providerAuthTokenEnc };
  if (c.connectionAuthTokenEnc) return { accountSid: c.connectionAccountSid, authTokenEnc: c.connectionAuthTokenEnc };
  return null;
}

export type ControlRequest = {
  routingToken: string;
  pathAndQuery: string;
  kind: string;
  commandId: string | null;
  params: EngineParams;
  signature: string | null;
};

/**
 * What Twilio reports about a command (a dial's result, a recording's final status) is applied once,
 * and its event queued in the same transaction: Twilio may ask twice. `record` makes the change and
 * says whether this request made it; only then is the event (to the call's onCallEndUrl, with the
 * call's SID first and its number's id last) sent.
 */
export async function recordOnceThenEmit(
  command: ControlCommand,
  record: (trx: SqlTransaction) => Promise<boolean>,
  event: () => { type: EventType; data: Record<string, unknown> },
): Promise<void> {
  await transactionWithEvents(async (trx, emit) => {
    if (!(await record(trx))) return;
    const { type, data } = event();
    await emit({
      accountId: command.accountId,
      url: command.onCallEndUrl,
      event: buildEvent(type, { callSid: command.callSid, ...data, phoneNumberId: command.phoneNumberId }),
    });
  });
}
