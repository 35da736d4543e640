import { db } from "../../db/client";
import { AppError } from "../../errors/app-error";
import { listTwilioNumbers, listTwilioSubaccounts } from "../../integrations/twilio/twilio-account-api";
import { toProviderError } from "../../integrations/twilio/twilio-provider-error";
import { accountEngineVoiceUrl } from "../accounts/engine-voice-url";
import { twilioCredentialsOf } from "./twilio-connection-credentials";

/** docs/decisions.md §10: every incoming number of the connected account, with whether it is registered here and pointed at us; and its subaccounts. */
export async function listConnectedTwilioNumbers(opts: { accountId: string }) {
  const creds = await twilioCredentialsOf(opts.accountId);
  if (!creds) throw new AppError("NOT_FOUND", "No Twilio account is connected.");
  let numbers, subaccounts;
  try {
    [numbers, subaccounts] = await Promise.all([listTwilioNumbers(creds), listTwilioSubaccounts(creds)]);
  } catch (err) {
    throw toProviderError(err, "list your numbers");
  }
  const [engineUrl, registered] = await Promise.all([
    accountEngineVoiceUrl(opts.accountId),
    db().phoneNumber.findMany({ where: { accountId: opts.accountId }, select: { phoneNumber: true } }),
  ]);
  const mine = new Set(registered.map((n) => n.phoneNumber));
  return {
    numbers: numbers.map((n) => ({
      sid: n.sid,
      phoneNumber: n.phoneNumber,
      friendlyName: n.friendlyName,
      voiceUrl: n.voiceUrl,
      statusCallback: n.statusCallback,
      registered: mine.has(n.phoneNumber),
      configured: n.voiceUrl === engineUrl && n.statusCallback === engineUrl,
    })),
    // docs/decisions.md §10: numbers in a subaccount are signed with its own token, so they need a connection of that subaccount.
    subaccounts,
  };
}
