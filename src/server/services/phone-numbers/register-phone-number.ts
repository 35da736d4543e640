import { AppError } from "../../errors/app-error";
import { db, isUniqueViolation } from "../../db/client";
import { sqlTransaction } from "../../db/sql-transaction";
import { type AuditOrigin, recordAudit } from "../audit/record-audit";
import { findTwilioNumber, type TwilioIncomingNumber } from "../../integrations/twilio/twilio-account-api";
import { toProviderError } from "../../integrations/twilio/twilio-provider-error";
import { logger } from "../../logger";
import { applyAnswerPolicy } from "../../../shared/schemas/answer-policy";
import type { TCreatePhoneNumberInput } from "../../../shared/schemas/phone-numbers";
import { accountEngineVoiceUrl } from "../accounts/engine-voice-url";
import { twilioCredentialsOf } from "../twilio-connection/twilio-connection-credentials";
import { toPhoneNumberDto } from "./phone-number-dto";
import { pointNumberAtEngine } from "./twilio-number-setup";
import { PHONE_NUMBERS_MAX_ITEMS } from "../../../shared/schemas/bounds";

/** docs/decisions.md §10: numbers nobody has proven are first-come, so an account may hold only so many. */
const UNVERIFIED_NUMBER_LIMIT = 25;

/**
 * Registers a number. With a Twilio connection the number must be one of that
 * Twilio account's incoming numbers; it is then registered verified, takes the
 * number over from another account's unverified registration, and (unless
 * `configureTwilio: false`) is pointed at the engine URL at Twilio.
 */
export async function registerPhoneNumber(opts: {
  accountId: string;
  input: TCreatePhoneNumberInput;
  origin: AuditOrigin;
}) {
  const { accountId, input } = opts;
  const creds = await twilioCredentialsOf(accountId);
  let owned: TwilioIncomingNumber | null = null;
  if (creds) {
    try {
      owned = await findTwilioNumber(creds, input.phoneNumber);
    } catch (err) {
      throw toProviderError(err, "check who owns the number");
    }
    if (!owned)
      throw new AppError(
        "NUMBER_NOT_OWNED",
        `${input.phoneNumber} is not an incoming number of your Twilio account ${creds.accountSid}.`,
      );
  }

  const created = await insertNumber({ accountId, input, twilioSid: owned?.sid ?? null, origin: opts.origin });
  if (!creds || !owned || input.configureTwilio === false) return { phoneNumber: toPhoneNumberDto(created) };

  try {
    await pointNumberAtEngine(creds, owned.sid, await accountEngineVoiceUrl(accountId));
  } catch (err) {
    // Undone, so a retry starts clean: a 201 always means the number is set up as asked. Its audit entry
    // goes with it, as though the registration had rolled back (docs/decisions.md §18).
    await sqlTransaction(async (trx) => {
      await trx.deleteFrom("PhoneNumber").where("id", "=", created.id).where("accountId", "=", accountId).execute();
      await trx
        .deleteFrom("AuditLogEntry")
        .where("accountId", "=", accountId)
        .where("action", "=", "phone_number.created")
        .where("targetId", "=", created.id)
        .execute();
    });
    throw toProviderError(err, "set the number up");
  }
  const configured = await db().phoneNumber.update({ where: { id: created.id }, data: { twilioConfigured: true } });
  return { phoneNumber: toPhoneNumberDto(configured) };
}

async function insertNumber(opts: {
  accountId: string;
  input: TCreatePhoneNumberInput;
  twilioSid: string | null;
  origin: AuditOrigin;
}) {
  const { accountId, input, twilioSid } = opts;
  const verified = twilioSid !== null;
  try {
    return await sqlTransaction(async (trx) => {
      // One registration at a time per account: the unverified count below cannot be raced past the limit.
      await trx.selectFrom("Account").select("id").where("id", "=", accountId).forUpdate().execute();
      const { held } = await trx
        .selectFrom("PhoneNumber")
        .select((eb) => eb.fn.countAll<string>().as("held"))
        .where("accountId", "=", accountId)
        .executeTakeFirstOrThrow();
      if (Number(held) >= PHONE_NUMBERS_MAX_ITEMS)
        throw new AppError(
          "NUMBER_LIMIT_REACHED",
          `This account holds ${PHONE_NUMBERS_MAX_ITEMS} numbers, the most it may; release one to register another.`,
        );
      if (verified) {
        // Ownership beats first-come: another account's unproven claim on the number is released (its history stays).
        const squatters = await trx
          .selectFrom("PhoneNumber")
          .select(["id", "accountId"])
          .where("phoneNumber", "=", input.phoneNumber)
          .where("verified", "=", false)
          .where("accountId", "!=", accountId)
          .execute();
        if (squatters.length > 0) {
          await trx
            .deleteFrom("PhoneNumber")
            .where(
              "id",
              "in",
              squatters.map((s) => s.id),
            )
            .where("verified", "=", false)
            .execute();
          logger().info(
            { accountId, releasedFrom: squatters.map((s) => s.accountId), phoneNumber: input.phoneNumber },
            "verified registration took a number over from an unverified one",
          );
        }
      } else {
        const { unverified } = await trx
          .selectFrom("PhoneNumber")
          .select((eb) => eb.fn.countAll<string>().as("unverified"))
          .where("accountId", "=", accountId)
          .where("verified", "=", false)
          .executeTakeFirstOrThrow();
        if (Number(unverified) >= UNVERIFIED_NUMBER_LIMIT) {
          throw new AppError(
            "NUMBER_LIMIT_REACHED",
            `This account holds ${UNVERIFIED_NUMBER_LIMIT} unverified numbers, the most it may; connect Twilio to register numbers you own without a limit.`,
          );
        }
      }
      const row = await trx
        .insertInto("PhoneNumber")
        .values({
          accountId,
          phoneNumber: input.phoneNumber,
          onCallStartUrl: input.onCallStartUrl,
          onCallEndUrl: input.onCallEndUrl,
          onErrorUrl: input.onErrorUrl ?? null,
          answerPolicy: storedJson(applyAnswerPolicy(null, input)),
          dailyMinuteCap: input.dailyMinuteCap ?? null,
          listen: input.listen ?? false,
          verified,
          twilioSid,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      await recordAudit(trx, {
        accountId,
        origin: opts.origin,
        action: "phone_number.created",
        target: { type: "phone_number", id: row.id },
        details: { phoneNumber: row.phoneNumber, verified },
      });
      return row;
    });
  } catch (err) {
    // The unique index decides a race: of two concurrent registrations exactly one wins.
    if (isUniqueViolation(err)) throw new AppError("NUMBER_TAKEN", `${input.phoneNumber} is already registered.`);
    throw err;
  }
}

/** A jsonb value as its text: node-postgres and PGlite both read it as jsonb, and an array stays JSON. */
export function storedJson(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}
