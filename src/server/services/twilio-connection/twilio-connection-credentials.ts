import { decryptSecret } from "../../crypto/secret-box";
import { db } from "../../db/client";
import type { TwilioCredentials } from "../../integrations/twilio/twilio-account-api";

/** The account's Twilio credentials, decrypted for one request, or null when it has no connection. */
export async function twilioCredentialsOf(accountId: string): Promise<TwilioCredentials | null> {
  const connection = await db().twilioConnection.findUnique({
    where: { accountId },
    select: { accountSid: true, authTokenEnc: true },
  });
  return connection ? { accountSid: connection.accountSid, authToken: decryptSecret(connection.authTokenEnc) } : null;
}
