import type { PhoneNumber } from "@/generated/prisma/client";
import { AppError } from "../../errors/app-error";
import { db, isUniqueViolation } from "../../db/client";
import type { TCreatePhoneNumberInput, TUpdatePhoneNumberInput } from "../../schemas/phone-numbers";

export function toPhoneNumberDto(n: PhoneNumber) {
  return {
    id: n.id,
    phoneNumber: n.phoneNumber,
    onCallStartUrl: n.onCallStartUrl,
    onCallEndUrl: n.onCallEndUrl,
    onErrorUrl: n.onErrorUrl,
    isActive: n.isActive,
    createdAt: n.createdAt.toISOString(),
  };
}

/** The unique index decides a race: of two concurrent registrations exactly one wins. */
export async function createPhoneNumber(opts: { accountId: string; input: TCreatePhoneNumberInput }) {
  const { input } = opts;
  try {
    const created = await db().phoneNumber.create({
      data: {
        accountId: opts.accountId,
        phoneNumber: input.phoneNumber,
        onCallStartUrl: input.onCallStartUrl,
        onCallEndUrl: input.onCallEndUrl,
        onErrorUrl: input.onErrorUrl ?? null,
      },
    });
    return { phoneNumber: toPhoneNumberDto(created) };
  } catch (err) {
    if (isUniqueViolation(err)) throw new AppError("NUMBER_TAKEN", `${input.phoneNumber} is already registered.`);
    throw err;
  }
}

export async function listPhoneNumbers(opts: { accountId: string }) {
  const numbers = await db().phoneNumber.findMany({
    where: { accountId: opts.accountId },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  return { phoneNumbers: numbers.map(toPhoneNumberDto) };
}

/** decisions §6: another account's number is 403 NUMBER_NOT_OWNED, an unknown id 404. */
async function notOwnedOrMissing(id: string): Promise<never> {
  const exists = await db().phoneNumber.findUnique({ where: { id }, select: { id: true } });
  throw exists ? new AppError("NUMBER_NOT_OWNED") : new AppError("NOT_FOUND", "No such phone number.");
}

export async function getPhoneNumber(opts: { accountId: string; id: string }) {
  const n = await db().phoneNumber.findFirst({ where: { id: opts.id, accountId: opts.accountId } });
  if (!n) return notOwnedOrMissing(opts.id);
  return { phoneNumber: toPhoneNumberDto(n) };
}

export async function updatePhoneNumber(opts: { accountId: string; input: TUpdatePhoneNumberInput }) {
  const { id, onCallStartUrl, onCallEndUrl, onErrorUrl } = opts.input;
  const data = {
    ...(onCallStartUrl !== undefined && { onCallStartUrl }),
    ...(onCallEndUrl !== undefined && { onCallEndUrl }),
    ...(onErrorUrl !== undefined && { onErrorUrl }),
  };
  if (Object.keys(data).length === 0) return getPhoneNumber({ accountId: opts.accountId, id });
  // Ownership is part of the write's WHERE, so no check-then-act gap.
  const updated = await db().phoneNumber.updateManyAndReturn({ where: { id, accountId: opts.accountId }, data });
  const n = updated[0];
  if (!n) return notOwnedOrMissing(id);
  return { phoneNumber: toPhoneNumberDto(n) };
}

/** Releases the number for anyone to register again; usage history keeps its own copy of the numbers. */
export async function deletePhoneNumber(opts: { accountId: string; id: string }) {
  const deleted = await db().phoneNumber.deleteMany({ where: { id: opts.id, accountId: opts.accountId } });
  if (deleted.count === 0) return notOwnedOrMissing(opts.id);
  return { deleted: true as const };
}
