import { db } from "../../db/client";

/**
 * Ends every dashboard session and login token of the account at once (sign-out,
 * and later a password change): they carry the session version they were
 * issued under, and `authenticate` refuses any older than the account's.
 * API keys are separate credentials and keep working.
 */
export async function endAllSessions(opts: { accountId: string }): Promise<{ loggedOut: true }> {
  await db().account.update({ where: { id: opts.accountId }, data: { sessionVersion: { increment: 1 } } });
  return { loggedOut: true };
}
