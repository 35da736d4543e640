import { encryptSecret } from "../../crypto/secret-box";
import { db } from "../../db/client";
import { now } from "../../db/kysely";
import { sqlTransaction } from "../../db/sql-transaction";
import { AppError } from "../../errors/app-error";
import { fetchTwilioAccount, listTwilioNumbers } from "../../integrations/twilio/twilio-account-api";
import { toProviderError } from "../../integrations/twilio/twilio-provider-error";
import { logger } from "../../logger";
import type { TConnectTwilioInput } from "../../../shared/schemas/twilio-connection";
import { type AuditOrigin, recordAudit } from "../audit/record-audit";
import { accountEngineVoiceUrl } from "../accounts/engine-voice-url";
import { toTwilioConnectionDto } from "./twilio-connection-dto";

/**
 * docs/decisions.md §10: the credentials are proven by fetching the account at Twilio
 * before anything is stored; the auth token is kept only encrypted.
 */
export async function connectTwilio(opts: { accountId: string; input: TConnectTwilioInput; origin: AuditOrigin }) {
  const { accountSid, authToken } = opts.input;
  let twilioAccount;
  try {
    twilioAccount = await fetchTwilioAccount({ accountSid, authToken });
  } catch (err) {
    throw toProviderError(err, "accept these credentials");
  }
  if (twilioAccount.status !== "active") {
    throw new AppError("PROVIDER_REJECTED", `The Twilio account ${accountSid} is ${twilioAccount.status}.`, {
      details: [{ path: "accountSid", message: `Twilio account status: ${twilioAccount.status}` }],
    });
  }

  const connection = await sqlTransaction(async (trx) => {
    const previous = await trx
      .selectFrom("TwilioConnection")
      .select("accountSid")
      .where("accountId", "=", opts.accountId)
      .executeTakeFirst();
    // Ownership proven at one Twilio account says nothing about another.
    if (previous && previous.accountSid !== accountSid) {
      await trx
        .updateTable("PhoneNumber")
        .set({ verified: false, twilioConfigured: false, twilioSid: null, updatedAt: now() })
        .where("accountId", "=", opts.accountId)
        .execute();
    }
    const data = {
      accountSid,
      authTokenEnc: encryptSecret(authToken),
      friendlyName: twilioAccount.friendlyName,
      connectedAt: new Date(),
      reconciledThrough: null,
    };
    const saved = await trx
      .insertInto("TwilioConnection")
      .values({ accountId: opts.accountId, ...data })
      .onConflict((oc) => oc.column("accountId").doUpdateSet(data))
      .returning(["accountSid", "friendlyName", "connectedAt"])
      .executeTakeFirstOrThrow();
    // The account SID names the connection; the auth token never leaves its sealed column.
    await recordAudit(trx, {
      accountId: opts.accountId,
      origin: opts.origin,
      action: "twilio_connection.set",
      target: { type: "twilio_connection", id: accountSid },
      details: { accountSid, previousAccountSid: previous?.accountSid ?? null },
    });
    return saved;
  });

  await verifyExistingNumbers({ accountId: opts.accountId, accountSid, authToken }).catch((err: unknown) => {
    // The connection stands; numbers registered before it stay unverified until registered or configured again.
    logger().warn(
      { err: err instanceof Error ? err.message : String(err), accountId: opts.accountId },
      "could not check existing numbers against Twilio",
    );
  });
  return toTwilioConnectionDto(connection);
}

/**
 * Numbers the account registered before connecting that are incoming numbers
 * of this Twilio account are proven now, and marked configured when Twilio
 * already sends their calls to the account's engine URL.
 */
async function verifyExistingNumbers(opts: { accountId: string; accountSid: string; authToken: string }) {
  const registered = await db().phoneNumber.findMany({
    where: { accountId: opts.accountId, verified: false },
    select: { id: true, phoneNumber: true },
  });
  if (registered.length === 0) return;
  const atTwilio = new Map((await listTwilioNumbers(opts)).map((n) => [n.phoneNumber, n]));
  const engineUrl = await accountEngineVoiceUrl(opts.accountId);
  for (const n of registered) {
    const owned = atTwilio.get(n.phoneNumber);
    if (!owned) continue;
    await db().phoneNumber.updateMany({
      where: { id: n.id, accountId: opts.accountId },
      data: {
        verified: true,
        twilioSid: owned.sid,
        twilioConfigured: owned.voiceUrl === engineUrl && owned.statusCallback === engineUrl,
      },
    });
  }
}
