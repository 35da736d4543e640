import { db } from "../../db/client";
import { now as sqlNow } from "../../db/kysely";
import { sqlTransaction } from "../../db/sql-transaction";
import { type AnswerPolicy, applyAnswerPolicy } from "../../../shared/schemas/answer-policy";
import type { TUpdatePhoneNumberInput } from "../../../shared/schemas/phone-numbers";
import { storedShadowOf } from "../../../shared/schemas/shadow";
import { type AuditOrigin, recordAudit } from "../audit/record-audit";
import { configurePhoneNumberAtTwilio } from "./configure-phone-number";
import { notOwnedOrMissing, numberMinutesToday, toPhoneNumberDto } from "./phone-number-dto";
import { storedJson } from "./register-phone-number";

export async function listPhoneNumbers(opts: { accountId: string }) {
  const numbers = await db().phoneNumber.findMany({
    where: { accountId: opts.accountId },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  const today = await numberMinutesToday(
    opts.accountId,
    numbers.map((n) => n.id),
  );
  return { phoneNumbers: numbers.map((n) => toPhoneNumberDto(n, today.get(n.id))) };
}

export async function getPhoneNumber(opts: { accountId: string; id: string }) {
  const n = await db().phoneNumber.findFirst({ where: { id: opts.id, accountId: opts.accountId } });
  if (!n) return notOwnedOrMissing(opts.id);
  const today = await numberMinutesToday(opts.accountId, [n.id]);
  return { phoneNumber: toPhoneNumberDto(n, today.get(n.id)) };
}

export async function updatePhoneNumber(opts: {
  accountId: string;
  input: TUpdatePhoneNumberInput;
  origin: AuditOrigin;
}) {
  const {
    id,
    onCallStartUrl,
    onCallEndUrl,
    onErrorUrl,
    configureTwilio,
    answerTimeoutMs,
    fallback,
    lastResort,
    dailyMinuteCap,
    listen,
    shadow,
  } = opts.input;
  // The answer policy's fields apply one by one over what is stored; read first, written by the update below.
  let answerPolicy: AnswerPolicy | null | undefined;
  if (answerTimeoutMs !== undefined || fallback !== undefined || lastResort !== undefined) {
    const current = await db().phoneNumber.findFirst({
      where: { id, accountId: opts.accountId },
      select: { answerPolicy: true },
    });
    if (!current) return notOwnedOrMissing(id);
    answerPolicy = applyAnswerPolicy(current.answerPolicy as AnswerPolicy | null, {
      answerTimeoutMs,
      fallback,
      lastResort,
    });
  }
  const data = {
    ...(onCallStartUrl !== undefined && { onCallStartUrl }),
    ...(onCallEndUrl !== undefined && { onCallEndUrl }),
    ...(onErrorUrl !== undefined && { onErrorUrl }),
    ...(dailyMinuteCap !== undefined && { dailyMinuteCap }),
    ...(listen !== undefined && { listen }),
    ...(answerPolicy !== undefined && { answerPolicy: storedJson(answerPolicy) }),
    // docs/decisions.md §23: set whole (its defaults filled in, when it was set kept for its report), or removed.
    ...(shadow !== undefined && { shadow: storedJson(shadow && storedShadowOf(shadow, new Date())) }),
  };
  // Twilio first: when it refuses or cannot be reached, nothing of the request has been applied.
  const configured = configureTwilio
    ? await configurePhoneNumberAtTwilio({ accountId: opts.accountId, id, origin: opts.origin })
    : null;
  if (Object.keys(data).length === 0) return configured ?? getPhoneNumber({ accountId: opts.accountId, id });
  const n = await sqlTransaction(async (trx) => {
    // Ownership is part of the write's WHERE, so no check-then-act gap.
    const row = await trx
      .updateTable("PhoneNumber")
      .set({ ...data, updatedAt: sqlNow() })
      .where("id", "=", id)
      .where("accountId", "=", opts.accountId)
      .returningAll()
      .executeTakeFirst();
    if (!row) return null;
    // The names of the fields changed and the cap, never the URLs: a URL may carry a token of the customer's.
    const changed = Object.keys(data).filter((k) => k !== "answerPolicy" && k !== "shadow");
    if (changed.length || answerPolicy !== undefined)
      await recordAudit(trx, {
        accountId: opts.accountId,
        origin: opts.origin,
        action: "phone_number.updated",
        target: { type: "phone_number", id: row.id },
        details: {
          phoneNumber: row.phoneNumber,
          changed,
          ...(answerPolicy !== undefined && {
            answerPolicyChanged: (["answerTimeoutMs", "fallback", "lastResort"] as const).filter(
              (k) => opts.input[k] !== undefined,
            ),
          }),
          ...(dailyMinuteCap !== undefined && { dailyMinuteCap }),
          ...(listen !== undefined && { listen }),
        },
      });
    // Setting or clearing a shadow has its own entry (docs/decisions.md §23): the URL's host, never its path or query.
    if (shadow !== undefined)
      await recordAudit(trx, {
        accountId: opts.accountId,
        origin: opts.origin,
        action: shadow ? "phone_number.shadow_set" : "phone_number.shadow_cleared",
        target: { type: "phone_number", id: row.id },
        details: {
          phoneNumber: row.phoneNumber,
          ...(shadow && {
            host: new URL(shadow.onCallStartUrl).host,
            sampleRate: shadow.sampleRate ?? 1,
            until: shadow.until ?? null,
          }),
        },
      });
    return row;
  });
  if (!n) return notOwnedOrMissing(id);
  const today = await numberMinutesToday(opts.accountId, [n.id]);
  return { phoneNumber: toPhoneNumberDto(n, today.get(n.id)) };
}
