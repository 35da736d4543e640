import { randomUUID } from "node:crypto";
import { encryptSecret } from "../crypto/secret-box";
import type { SqlTransaction } from "../db/sql-transaction";
import { mailJob } from "../jobs/definitions/mail";
import { onTransaction, sendJob, wakeWorker } from "../jobs/job-queue";
import type { MailMessage } from "./mail-message";

/**
 * The one way mail leaves Routekit: a durable `mail` job (jobs/definitions/mail.ts). With `trx`, the job is
 * written in that transaction, so the mail exists exactly when the change that causes it is committed.
 * Returns the message id (also the SMTP Message-ID).
 */
export async function queueMail(
  message: MailMessage,
  opts: { kind: string; trx?: SqlTransaction; messageId?: string },
): Promise<string> {
  const messageId = opts.messageId ?? randomUUID();
  await sendJob(
    mailJob,
    {
      messageId,
      kind: opts.kind,
      to: message.to,
      subject: message.subject,
      sealedBody: encryptSecret(JSON.stringify({ text: message.text, html: message.html })),
    },
    { singletonKey: messageId, ...(opts.trx && { db: onTransaction(opts.trx) }) },
  );
  // Outside a transaction the job is visible now: this instance's worker takes it at once rather than at its next poll.
  if (!opts.trx) wakeWorker(mailJob.name);
  return messageId;
}
