import { db } from "../../db/client";
import { verifyToken } from "../../auth/tokens";

/**
 * Ends one dashboard session ("Log out": this browser only), where `endAllSessions` ends them all.
 * The session's login token is refused from now on by its `jti` (authenticate.ts); the row lives
 * until the token would have expired anyway, and ended rows past that are pruned here, so the
 * table holds at most the sessions ended within one token lifetime.
 * A token that no longer verifies ends nothing: it is refused already.
 */
export async function endSession(loginToken: string): Promise<{ ended: boolean }> {
  const claims = await verifyToken("login", loginToken);
  if (!claims) return { ended: false };
  const now = new Date();
  await db().endedSession.upsert({
    where: { jti: claims.jti },
    create: { jti: claims.jti, userId: claims.userId, expiresAt: claims.expiresAt },
    update: {},
  });
  await db().endedSession.deleteMany({ where: { expiresAt: { lt: now } } });
  return { ended: true };
}
