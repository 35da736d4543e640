import { db } from "../../db/client";

/**
 * Ends every dashboard session and login token of the person at once, in every
 * account they belong to (sign-out everywhere): they carry the session version
 * they were issued under, and `authenticate` refuses any older than the user's.
 * API keys belong to accounts, not to people, and keep working.
 */
export async function endAllSessions(opts: { userId: string }): Promise<{ loggedOut: true }> {
  await db().user.update({ where: { id: opts.userId }, data: { sessionVersion: { increment: 1 } } });
  return { loggedOut: true };
}
