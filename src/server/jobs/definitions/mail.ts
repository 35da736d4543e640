import { z } from "zod";
import { defineJob } from "../job-definition";

/**
 * One email, durable (issue #28): sent in the transaction of the change that causes it where there is one
 * (email/queue-mail.ts), so a crash neither loses it nor sends it for a change that was rolled back. Retried
 * with backoff for about an hour while the SMTP server is away, and sent once per `messageId` (the SentMail
 * table; the same id is also the SMTP Message-ID). The body is sealed with ENCRYPTION_KEY: it may carry a
 * one-time link, and the job table is readable by whoever reads the database.
 */
export const mailJob = defineJob({
  name: "mail",
  payload: z.object({
    messageId: z.string().uuid(),
    /** What it is, for logs and metrics only: `verification`, `password-reset`, `alert.endpoint_failing`… */
    kind: z.string().min(1).max(100),
    to: z.string().min(3),
    subject: z.string().min(1),
    /** `encryptSecret(JSON.stringify({ text, html? }))`. */
    sealedBody: z.string().min(1),
  }),
  // 5 s, doubling, 12 times: an SMTP server that blinks or is down for most of an hour still gets the mail.
  queue: () => ({ retryLimit: 12, retryDelay: 5, retryBackoff: true, expireInSeconds: 60 }),
  work: { batchSize: 5, pollingIntervalSeconds: 1 },
});

export type MailJob = z.infer<typeof mailJob.payload>;
