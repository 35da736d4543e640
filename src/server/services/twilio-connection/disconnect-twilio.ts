import { db } from "../../db/client";

/**
 * Forgets the credentials. Numbers keep their registrations and Twilio keeps
 * sending their calls to the engine URL, but they are no longer verified: the
 * claim is only as good as a live connection, so another account that proves
 * ownership may take them over. Idempotent: disconnecting twice is fine.
 */
export async function disconnectTwilio(opts: { accountId: string }) {
  await db().$transaction([
    db().twilioConnection.deleteMany({ where: { accountId: opts.accountId } }),
    db().phoneNumber.updateMany({
      where: { accountId: opts.accountId },
      data: { verified: false, twilioConfigured: false },
    }),
  ]);
  return { disconnected: true as const };
}
