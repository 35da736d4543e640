import { decryptSecret } from "../crypto/secret-box";
import { kysely } from "../db/kysely";
import type { MailJob } from "../jobs/definitions/mail";
import { sendMail } from "./send-mail";

/**
 * Runs one `mail` job: sends it unless its message id was sent already, then records the id. A crash between
 * the SMTP server's "250 OK" and the record sends it again (at least once, never lost); anything else (a
 * retried batch, a job pg-boss hands out twice) finds the record and sends nothing.
 */
export async function deliverMail(job: MailJob): Promise<"sent" | "already-sent"> {
  const seen = await kysely().selectFrom("SentMail").select("id").where("id", "=", job.messageId).executeTakeFirst();
  if (seen) return "already-sent";
  const body = JSON.parse(decryptSecret(job.sealedBody)) as { text: string; html?: string };
  await sendMail({ to: job.to, subject: job.subject, text: body.text, html: body.html }, { messageId: job.messageId });
  await kysely()
    .insertInto("SentMail")
    .values({ id: job.messageId })
    .onConflict((oc) => oc.column("id").doNothing())
    .execute();
  return "sent";
}

/** Sent-mail records older than this are dropped (a job is never retried that late). */
const SENT_MAIL_KEPT_DAYS = 7;

export async function pruneSentMail(now: Date = new Date()): Promise<number> {
  const before = new Date(now.getTime() - SENT_MAIL_KEPT_DAYS * 86_400_000);
  const r = await kysely().deleteFrom("SentMail").where("sentAt", "<", before).executeTakeFirst();
  return Number(r.numDeletedRows);
}
