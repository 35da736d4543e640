import { db } from "../../db/client";
import type { TUpdatePhoneNumberInput } from "../../schemas/phone-numbers";
import { configurePhoneNumberAtTwilio } from "./configure-phone-number";
import { notOwnedOrMissing, toPhoneNumberDto } from "./phone-number-dto";

export async function listPhoneNumbers(opts: { accountId: string }) {
  const numbers = await db().phoneNumber.findMany({
    where: { accountId: opts.accountId },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  return { phoneNumbers: numbers.map(toPhoneNumberDto) };
}

export async function getPhoneNumber(opts: { accountId: string; id: string }) {
  const n = await db().phoneNumber.findFirst({ where: { id: opts.id, accountId: opts.accountId } });
  if (!n) return notOwnedOrMissing(opts.id);
  return { phoneNumber: toPhoneNumberDto(n) };
}

export async function updatePhoneNumber(opts: { accountId: string; input: TUpdatePhoneNumberInput }) {
  const { id, onCallStartUrl, onCallEndUrl, onErrorUrl, configureTwilio } = opts.input;
  const data = {
    ...(onCallStartUrl !== undefined && { onCallStartUrl }),
    ...(onCallEndUrl !== undefined && { onCallEndUrl }),
    ...(onErrorUrl !== undefined && { onErrorUrl }),
  };
  // Twilio first: when it refuses or cannot be reached, nothing of the request has been applied.
  const configured = configureTwilio ? await configurePhoneNumberAtTwilio({ accountId: opts.accountId, id }) : null;
  if (Object.keys(data).length === 0) return configured ?? getPhoneNumber({ accountId: opts.accountId, id });
  // Ownership is part of the write's WHERE, so no check-then-act gap.
  const updated = await db().phoneNumber.updateManyAndReturn({ where: { id, accountId: opts.accountId }, data });
  const n = updated[0];
  if (!n) return notOwnedOrMissing(id);
  return { phoneNumber: toPhoneNumberDto(n) };
}
