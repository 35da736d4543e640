import { now } from "../../db/kysely";
import { sqlTransaction } from "../../db/sql-transaction";

/**
 * Forgets the credentials. Numbers keep their registrations and Twilio keeps
 * sending their calls to the engine URL, but they are no longer verified: the
 * claim is only as good as a live connection, so another account that proves
 * ownership may take them over. Idempotent: disconnecting twice is fine.
 */
export async function disconnectTwilio(opts: { accountId: string }) {
  await sqlTransaction(async (trx) => {
    await trx.deleteFrom("TwilioConnection").where("accountId", "=", opts.accountId).execute();
    await trx
      .updateTable("PhoneNumber")
      .set({ verified: false, twilioConfigured: false, updatedAt: now() })
      .where("accountId", "=", opts.accountId)
      .execute();
  });
  return { disconnected: true as const };
}
