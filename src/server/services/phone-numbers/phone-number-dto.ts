import type { PhoneNumber } from "@/generated/prisma/client";
import { db } from "../../db/client";
import { AppError } from "../../errors/app-error";
import { kysely } from "../../db/kysely";
import { answerPolicyDto } from "../../../shared/schemas/answer-policy";
import { shadowDto } from "../../../shared/schemas/shadow";
import { numberDayPeriod } from "../usage/usage-periods";

/** A number as the API shows it; the one shape every phone-number service answers with. */
export function toPhoneNumberDto(
  n: Omit<PhoneNumber, "answerPolicy" | "shadow"> & { answerPolicy: unknown; shadow: unknown },
  /** Billed minutes of the number's calls that ended today (numberMinutesToday); 0 for a number just registered. */
  minutesToday = 0,
) {
  return {
    id: n.id,
    phoneNumber: n.phoneNumber,
    onCallStartUrl: n.onCallStartUrl,
    onCallEndUrl: n.onCallEndUrl,
    onErrorUrl: n.onErrorUrl,
    ...answerPolicyDto(n.answerPolicy),
    isActive: n.isActive,
    verified: n.verified,
    twilioConfigured: n.twilioConfigured,
    dailyMinuteCap: n.dailyMinuteCap,
    listen: n.listen,
    minutesToday,
    shadow: shadowDto(n.shadow),
    createdAt: n.createdAt.toISOString(),
  };
}

/** docs/decisions.md §6: another account's number is 403 NUMBER_NOT_OWNED, an unknown id 404. */
export async function notOwnedOrMissing(id: string): Promise<never> {
  const exists = await db().phoneNumber.findUnique({ where: { id }, select: { id: true } });
  throw exists ? new AppError("NUMBER_NOT_OWNED") : new AppError("NOT_FOUND", "No such phone number.");
}

/** Today's billed minutes (UTC) of each number, from the running totals the daily cap reads (docs/decisions.md §17). */
export async function numberMinutesToday(
  accountId: string,
  ids: string[],
  at = new Date(),
): Promise<Map<string, number>> {
  if (!ids.length) return new Map();
  const periods = new Map(ids.map((id) => [numberDayPeriod(id, at), id]));
  const rows = await kysely()
    .selectFrom("UsageTotal")
    .select(["period", "billedMinutes"])
    .where("accountId", "=", accountId)
    .where((eb) => eb("period", "=", eb.fn.any(eb.val([...periods.keys()]))))
    .execute();
  return new Map(rows.map((r) => [periods.get(r.period) ?? "", Number(r.billedMinutes)]));
}
