import { db } from "../../db/client";
import { now as sqlNow } from "../../db/kysely";
import { sqlTransaction } from "../../db/sql-transaction";
import { toProviderError } from "../../integrations/twilio/twilio-provider-error";
import { logger } from "../../logger";
import { type AuditOrigin, recordAudit } from "../audit/record-audit";
import { pointNumberAtEngine } from "../phone-numbers/twilio-number-setup";
import { twilioCredentialsOf } from "../twilio-connection/twilio-connection-credentials";
import { engineVoiceUrl, generateRoutingToken, sealRoutingToken } from "./engine-voice-url";

/** How long the engine URL before a rotation keeps working (the engine checks the expiry). */
const ENGINE_URL_OVERLAP_MS = 24 * 3600_000;

/**
 * docs/decisions.md §7: a new engine URL; the old one keeps working for 24 hours.
 * Rotations of one account are serialized by a row lock, so the token moved
 * to "previous" is always the one that was current. Numbers set up through
 * the Twilio connection are then repointed at Twilio; each one that cannot be
 * is reported in the answer (and marked not configured, so the dashboard
 * offers to set it up again) while the old URL still carries its calls.
 */
export async function rotateEngineUrl(opts: { accountId: string; now?: Date; origin: AuditOrigin }) {
  const now = opts.now ?? new Date();
  const token = generateRoutingToken();
  const previousExpiresAt = new Date(now.getTime() + ENGINE_URL_OVERLAP_MS);
  await sqlTransaction(async (trx) => {
    const current = await trx
      .selectFrom("Account")
      .select("routingTokenHash")
      .where("id", "=", opts.accountId)
      .forUpdate()
      .executeTakeFirst();
    if (!current) throw new Error("account vanished during rotation");
    await trx
      .updateTable("Account")
      .set({
        ...sealRoutingToken(token),
        previousRoutingTokenHash: current.routingTokenHash,
        previousRoutingTokenExpiresAt: previousExpiresAt,
        updatedAt: sqlNow(),
      })
      .where("id", "=", opts.accountId)
      .execute();
    // The URL carries the routing token, a secret: the entry says when the old one stops working, not either URL.
    await recordAudit(trx, {
      accountId: opts.accountId,
      origin: opts.origin,
      action: "account.engine_url_rotated",
      target: { type: "account", id: opts.accountId },
      details: { previousExpiresAt: previousExpiresAt.toISOString() },
    });
  });
  const url = engineVoiceUrl(token);
  return {
    engineVoiceUrl: url,
    previousExpiresAt: previousExpiresAt.toISOString(),
    twilioNumbers: await repointConfiguredNumbers(opts.accountId, url),
  };
}

async function repointConfiguredNumbers(accountId: string, url: string) {
  const numbers = await db().phoneNumber.findMany({
    where: { accountId, twilioConfigured: true, twilioSid: { not: null } },
    select: { id: true, phoneNumber: true, twilioSid: true },
    orderBy: { createdAt: "asc" },
  });
  const result = { repointed: [] as string[], failed: [] as { phoneNumber: string; message: string }[] };
  if (numbers.length === 0) return result;
  const creds = await twilioCredentialsOf(accountId);
  for (const n of numbers) {
    try {
      if (!creds) throw new Error("no Twilio connection");
      await pointNumberAtEngine(creds, n.twilioSid!, url);
      result.repointed.push(n.phoneNumber);
    } catch (err) {
      const message = creds ? toProviderError(err, "repoint the number").message : "No Twilio account is connected.";
      result.failed.push({ phoneNumber: n.phoneNumber, message });
      await db().phoneNumber.updateMany({ where: { id: n.id, accountId }, data: { twilioConfigured: false } });
      logger().warn(
        { accountId, phoneNumber: n.phoneNumber, err: message },
        "could not repoint a number at the new engine URL",
      );
    }
  }
  return result;
}
