import { sqlTransaction } from "../../db/sql-transaction";
import { type AuditOrigin, recordAudit } from "../audit/record-audit";
import { twilioCredentialsOf } from "../twilio-connection/twilio-connection-credentials";
import { notOwnedOrMissing } from "./phone-number-dto";
import { clearNumberIfStillOurs } from "./twilio-number-setup";

/**
 * Releases the number for anyone to register again; calls and usage history
 * keep their own copy of the numbers. A number set up at Twilio through the
 * connection stops pointing at us there, unless the customer changed it since.
 */
export async function deletePhoneNumber(opts: { accountId: string; id: string; origin: AuditOrigin }) {
  const released = await sqlTransaction(async (trx) => {
    const n = await trx
      .selectFrom("PhoneNumber")
      .select(["id", "twilioSid", "phoneNumber"])
      .where("id", "=", opts.id)
      .where("accountId", "=", opts.accountId)
      .executeTakeFirst();
    if (!n) return null;
    const deleted = await trx
      .deleteFrom("PhoneNumber")
      .where("id", "=", n.id)
      .where("accountId", "=", opts.accountId)
      .executeTakeFirst();
    if (deleted.numDeletedRows !== 1n) return null;
    // Calls keep their own copy of the numbers; the released one's id goes (Call has no foreign key to
    // PhoneNumber, whose check locked the number's row on every call: docs/performance.md). A call
    // recorded while this commits may keep the id, of a number that no longer exists: harmless.
    await trx
      .updateTable("Call")
      .set({ phoneNumberId: null })
      .where("accountId", "=", opts.accountId)
      .where("phoneNumberId", "=", n.id)
      .execute();
    await recordAudit(trx, {
      accountId: opts.accountId,
      origin: opts.origin,
      action: "phone_number.deleted",
      target: { type: "phone_number", id: n.id },
      details: { phoneNumber: n.phoneNumber },
    });
    return n;
  });
  if (!released) return notOwnedOrMissing(opts.id);
  if (released.twilioSid) {
    const creds = await twilioCredentialsOf(opts.accountId);
    if (creds) await clearNumberIfStillOurs({ accountId: opts.accountId, creds, twilioSid: released.twilioSid });
  }
  return { deleted: true as const };
}
