import { now } from "../../db/kysely";
import { sqlTransaction } from "../../db/sql-transaction";
import { type AuditOrigin, recordAudit } from "../audit/record-audit";

/**
 * Forgets the credentials. Numbers keep their registrations and Twilio keeps
 * sending their calls to the engine URL, but they are no longer verified: the
 * claim is only as good as a live connection, so another account that proves
 * ownership may take them over. Idempotent: disconnecting twice is fine.
 */
export async function disconnectTwilio(opts: { accountId: string; origin: AuditOrigin }) {
  await sqlTransaction(async (trx) => {
    const removed = await trx
      .deleteFrom("TwilioConnection")
      .where("accountId", "=", opts.accountId)
      .returning("accountSid")
      .executeTakeFirst();
    await trx
      .updateTable("PhoneNumber")
      .set({ verified: false, twilioConfigured: false, updatedAt: now() })
      .where("accountId", "=", opts.accountId)
      .execute();
    // Disconnecting twice is fine, and records only the disconnection that removed something.
    if (removed)
      await recordAudit(trx, {
        accountId: opts.accountId,
        origin: opts.origin,
        action: "twilio_connection.removed",
        target: { type: "twilio_connection", id: removed.accountSid },
        details: { accountSid: removed.accountSid },
      });
  });
  return { disconnected: true as const };
}
