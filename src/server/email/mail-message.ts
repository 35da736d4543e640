/** One message as every transport takes it: a plain-text part always, HTML optional. */
export type MailMessage = { to: string; subject: string; text: string; html?: string };

/** What the outbox keeps of a message (one JSON file each). */
export type OutboxEntry = MailMessage & { id: string; from: string; createdAt: string };
