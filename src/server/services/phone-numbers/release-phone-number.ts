import { db } from "../../db/client";
import { twilioCredentialsOf } from "../twilio-connection/twilio-connection-credentials";
import { notOwnedOrMissing } from "./phone-number-dto";
import { clearNumberIfStillOurs } from "./twilio-number-setup";

/**
 * Releases the number for anyone to register again; calls and usage history
 * keep their own copy of the numbers. A number set up at Twilio through the
 * connection stops pointing at us there, unless the customer changed it since.
 */
export async function deletePhoneNumber(opts: { accountId: string; id: string }) {
  const released = await db().$transaction(async (tx) => {
    const n = await tx.phoneNumber.findFirst({
      where: { id: opts.id, accountId: opts.accountId },
      select: { id: true, twilioSid: true },
    });
    if (!n) return null;
    const deleted = await tx.phoneNumber.deleteMany({ where: { id: n.id, accountId: opts.accountId } });
    return deleted.count === 1 ? n : null;
  });
  if (!released) return notOwnedOrMissing(opts.id);
  if (released.twilioSid) {
    const creds = await twilioCredentialsOf(opts.accountId);
    if (creds) await clearNumberIfStillOurs({ accountId: opts.accountId, creds, twilioSid: released.twilioSid });
  }
  return { deleted: true as const };
}
