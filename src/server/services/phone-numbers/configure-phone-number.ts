import { db } from "../../db/client";
import { now as sqlNow } from "../../db/kysely";
import { sqlTransaction } from "../../db/sql-transaction";
import { AppError } from "../../errors/app-error";
import { findTwilioNumber } from "../../integrations/twilio/twilio-account-api";
import { toProviderError } from "../../integrations/twilio/twilio-provider-error";
import { type AuditOrigin, recordAudit } from "../audit/record-audit";
import { accountEngineVoiceUrl } from "../accounts/engine-voice-url";
import { twilioCredentialsOf } from "../twilio-connection/twilio-connection-credentials";
import { notOwnedOrMissing, numberMinutesToday, toPhoneNumberDto } from "./phone-number-dto";
import { pointNumberAtEngine } from "./twilio-number-setup";

/**
 * `PATCH … { configureTwilio: true }`: a number already registered (before
 * connecting, or one a rotation could not repoint) is proven at Twilio and
 * pointed at the engine URL, without releasing it in between.
 */
export async function configurePhoneNumberAtTwilio(opts: { accountId: string; id: string; origin: AuditOrigin }) {
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
  const updated = await sqlTransaction(async (trx) => {
    const row = await trx
      .updateTable("PhoneNumber")
      .set({ verified: true, twilioSid: owned.sid, twilioConfigured: true, updatedAt: sqlNow() })
      .where("id", "=", number.id)
      .where("accountId", "=", opts.accountId)
      .returningAll()
      .executeTakeFirst();
    if (row)
      await recordAudit(trx, {
        accountId: opts.accountId,
        origin: opts.origin,
        action: "phone_number.updated",
        target: { type: "phone_number", id: row.id },
        details: { phoneNumber: row.phoneNumber, changed: ["configureTwilio"], twilioSid: owned.sid },
      });
    return row;
  });
  if (!updated) return notOwnedOrMissing(opts.id);
  const today = await numberMinutesToday(opts.accountId, [number.id]);
  return { phoneNumber: toPhoneNumberDto(updated, today.get(number.id)) };
}
