import type { PhoneNumber } from "@/generated/prisma/client";
import { db } from "../../db/client";
import { AppError } from "../../errors/app-error";

/** A number as the API shows it; the one shape every phone-number service answers with. */
export function toPhoneNumberDto(n: PhoneNumber) {
  return {
    id: n.id,
    phoneNumber: n.phoneNumber,
    onCallStartUrl: n.onCallStartUrl,
    onCallEndUrl: n.onCallEndUrl,
    onErrorUrl: n.onErrorUrl,
    isActive: n.isActive,
    verified: n.verified,
    twilioConfigured: n.twilioConfigured,
    createdAt: n.createdAt.toISOString(),
  };
}

/** docs/decisions.md §6: another account's number is 403 NUMBER_NOT_OWNED, an unknown id 404. */
export async function notOwnedOrMissing(id: string): Promise<never> {
  const exists = await db().phoneNumber.findUnique({ where: { id }, select: { id: true } });
  throw exists ? new AppError("NUMBER_NOT_OWNED") : new AppError("NOT_FOUND", "No such phone number.");
}
