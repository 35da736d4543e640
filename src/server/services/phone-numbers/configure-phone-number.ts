import { db } from "../../db/client";
import { AppError } from "../../errors/app-error";
import { findTwilioNumber } from "../../integrations/twilio/twilio-account-api";
import { toProviderError } from "../../integrations/twilio/twilio-provider-error";
import { accountEngineVoiceUrl } from "../accounts/engine-voice-url";
import { twilioCredentialsOf } from "../twilio-connection/twilio-connection-credentials";
import { notOwnedOrMissing, numberMinutesToday, toPhoneNumberDto } from "./phone-number-dto";
import { pointNumberAtEngine } from "./twilio-number-setup";

/**
 * `PATCH … { configureTwilio: true }`: a number already registered (before
 * connecting, or one a rotation could not repoint) is proven at Twilio and
 * pointed at the engine URL, without releasing it in between.
 */
export async function configurePhoneNumberAtTwilio(opts: { accountId: string; id: string }) {
  const number = await db().phoneNumber.findFirst({
    where: { id: opts.id, accountId: opts.accountId },
    select: { id: true, phoneNumber: true },
  });
  if (!number) return notOwnedOrMissing(opts.id);
  const creds = await twilioCredentialsOf(opts.accountId);
  if (!creds) {
    throw new AppError("VALIDATION_FAILED", "Connect your Twilio account first.", {
      details: [{ path: "configureTwilio", message: "needs a Twilio connection" }],
    });
  }
  let owned;
  try {
    owned = await findTwilioNumber(creds, number.phoneNumber);
  } catch (err) {
    throw toProviderError(err, "check who owns the number");
  }
  if (!owned)
    throw new AppError(
      "NUMBER_NOT_OWNED",
      `${number.phoneNumber} is not an incoming number of your Twilio account ${creds.accountSid}.`,
    );
  try {
    await pointNumberAtEngine(creds, owned.sid, await accountEngineVoiceUrl(opts.accountId));
  } catch (err) {
    throw toProviderError(err, "set the number up");
  }
  const updated = await db().phoneNumber.updateManyAndReturn({
    where: { id: number.id, accountId: opts.accountId },
    data: { verified: true, twilioSid: owned.sid, twilioConfigured: true },
  });
  if (!updated[0]) return notOwnedOrMissing(opts.id);
  const today = await numberMinutesToday(opts.accountId, [number.id]);
  return { phoneNumber: toPhoneNumberDto(updated[0], today.get(number.id)) };
}
