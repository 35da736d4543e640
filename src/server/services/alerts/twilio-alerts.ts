import { decryptSecret } from "../../crypto/secret-box";
import { kysely } from "../../db/kysely";
import { listTwilioNumbers } from "../../integrations/twilio/twilio-account-api";
import { logger } from "../../logger";
import { accountEngineVoiceUrl } from "../accounts/engine-voice-url";
import { raiseAlert } from "./raise-alert";

/** Twilio's "Authenticate" fault: the credentials were revoked or the Auth Token rotated (docs/decisions.md §16). */
function isCredentialsRejected(err: unknown): boolean {
  return (err as { code?: unknown }).code === 20003;
}

/**
 * Raises alert.twilio_credentials_rejected when a call Routekit made with the account's connection was
 * answered 20003; any other error is left to the caller. Never throws.
 */
export async function noteTwilioError(
  accountId: string,
  err: unknown,
  opts: { accountSid: string; during: string; now?: Date },
): Promise<void> {
  if (!isCredentialsRejected(err)) return;
  const now = opts.now ?? new Date();
  await raiseAlert({
    accountId,
    type: "alert.twilio_credentials_rejected",
    subject: { type: "account", id: accountId },
    since: now,
    details: { accountSid: opts.accountSid, twilioErrorCode: 20003, during: opts.during },
    now,
  }).catch((e: unknown) =>
    logger().warn({ err: e instanceof Error ? e.message : String(e), accountId }, "credentials alert not raised"),
  );
}

/**
 * alert.number_unconfigured (docs/decisions.md §16): once an hour (jobs/definitions/number-config-check.ts),
 * each connected account's incoming numbers are listed at Twilio (one request per 1,000 numbers), and a
 * verified number whose Voice URL no longer is the account's engine URL raises the alert. A 20003 on the
 * way raises alert.twilio_credentials_rejected instead.
 */
export async function checkNumberConfiguration(
  opts: { now?: Date; accountId?: string } = {},
): Promise<{ raised: number }> {
  const now = opts.now ?? new Date();
  let raised = 0;
  const connections = await kysely()
    .selectFrom("TwilioConnection as c")
    .innerJoin("Account as a", "a.id", "c.accountId")
    .select(["c.accountId", "c.accountSid", "c.authTokenEnc"])
    .where("a.deletedAt", "is", null)
    .$if(opts.accountId !== undefined, (q) => q.where("c.accountId", "=", opts.accountId!))
    .execute();
  for (const c of connections) {
    const numbers = await kysely()
      .selectFrom("PhoneNumber")
      .select(["id", "phoneNumber", "twilioSid"])
      .where("accountId", "=", c.accountId)
      .where("verified", "=", true)
      .where("isActive", "=", true)
      .execute();
    if (!numbers.length) continue;
    let atTwilio;
    try {
      atTwilio = await listTwilioNumbers({ accountSid: c.accountSid, authToken: decryptSecret(c.authTokenEnc) });
    } catch (err) {
      await noteTwilioError(c.accountId, err, { accountSid: c.accountSid, during: "number check", now });
      if (!isCredentialsRejected(err))
        logger().warn(
          { accountId: c.accountId, err: err instanceof Error ? err.message : String(err) },
          "number check",
        );
      continue;
    }
    const engineUrl = await accountEngineVoiceUrl(c.accountId);
    const byNumber = new Map(atTwilio.map((n) => [n.phoneNumber, n]));
    for (const n of numbers) {
      const there = byNumber.get(n.phoneNumber);
      if (there && there.voiceUrl === engineUrl) continue;
      const ok = await raiseAlert({
        accountId: c.accountId,
        type: "alert.number_unconfigured",
        subject: { type: "number", id: n.id },
        since: now,
        details: {
          phoneNumber: n.phoneNumber,
          voiceUrlAtTwilio: there?.voiceUrl ?? null,
          ...(there ? {} : { missingAtTwilio: true }),
        },
        now,
      });
      if (ok) raised++;
    }
  }
  return { raised };
}
