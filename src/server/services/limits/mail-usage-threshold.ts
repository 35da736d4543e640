import { kysely } from "../../db/kysely";
import { usageThresholdMail } from "../../email/account-mails";
import { queueMail } from "../../email/queue-mail";
import type { UsageThresholdMail } from "../../jobs/definitions/usage-threshold-mail";

/**
 * A `usage-threshold-mail` job queued before the durable mail job existed: handed on to it (new crossings
 * queue their mail directly, services/limits/announce-threshold.ts). A closed account is mailed nothing.
 */
export async function mailUsageThreshold(job: UsageThresholdMail): Promise<void> {
  const account = await kysely()
    .selectFrom("Account")
    .select(["email", "deletedAt"])
    .where("id", "=", job.accountId)
    .executeTakeFirst();
  if (!account || account.deletedAt) return;
  await queueMail(usageThresholdMail(account.email, job), { kind: "usage-threshold" });
}
