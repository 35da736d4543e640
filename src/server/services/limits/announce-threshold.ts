import type { SqlTransaction } from "../../db/sql-transaction";
import type { EngineCall } from "../calls/call-row";
import { usageThresholdMail } from "../../email/account-mails";
import { queueMail } from "../../email/queue-mail";
import { buildEvent } from "../../webhooks/event-envelope";
import type { Emit } from "../../webhooks/enqueue-event";
import type { CrossedThreshold } from "../usage/record-usage";

/**
 * A threshold the month just crossed (docs/decisions.md §17): usage.threshold_reached and its email, both
 * durable and both in the transaction that recorded the crossing, so each goes out once. The account has
 * no endpoint of its own yet (§15 is planned), so the event goes to the crossing call's onCallEndUrl, where
 * that call's call.ended goes too.
 */
export async function announceThreshold(
  trx: SqlTransaction,
  emit: Emit,
  opts: { accountId: string; call: EngineCall; threshold: CrossedThreshold },
): Promise<void> {
  const { accountId, call, threshold } = opts;
  await emit({
    accountId,
    url: call.onCallEndUrl,
    event: buildEvent("usage.threshold_reached", {
      threshold: threshold.threshold,
      monthlyBudget: threshold.monthlyBudget,
      spent: threshold.spent,
      month: threshold.month,
      callSid: call.callSid,
      phoneNumberId: call.phoneNumberId,
    }),
  });
  const account = await trx
    .selectFrom("Account")
    .select(["email", "deletedAt"])
    .where("id", "=", accountId)
    .executeTakeFirst();
  if (account && !account.deletedAt)
    await queueMail(usageThresholdMail(account.email, threshold), { kind: "usage-threshold", trx });
}
