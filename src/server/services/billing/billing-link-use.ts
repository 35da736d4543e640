import { db, isUniqueViolation } from "../../db/client";
import type { SqlTransaction } from "../../db/sql-transaction";
import { verifyToken, type TokenClaims } from "../../auth/tokens";

/**
 * Local billing links act once (docs/decisions.md §4): the token's `jti` is recorded in
 * the transaction of the action, so two POSTs of one link (a double click, a
 * replay) act once and a used link is gone. A link of a closed account is
 * gone too (docs/decisions.md §20): it was issued before the closing, since a closed
 * account can no longer ask for one.
 */
export class LinkUsedError extends Error {}

/** The claims of an unused link of this kind, else null (forged, expired, wrong kind, used, or of a closed account). */
export async function unusedLink(kind: "checkout" | "portal", token: string): Promise<TokenClaims | null> {
  const claims = await verifyToken(kind, token);
  if (!claims) return null;
  const [used, open] = await Promise.all([
    db().billingLinkUse.findUnique({ where: { jti: claims.jti }, select: { jti: true } }),
    db().account.findFirst({ where: { id: claims.accountId, deletedAt: null }, select: { id: true } }),
  ]);
  return used || !open ? null : claims;
}

/** Records the link as used in `trx`; throws LinkUsedError when it already was. */
export async function spendLink(trx: SqlTransaction, claims: TokenClaims): Promise<void> {
  try {
    // A savepoint-free insert: a unique violation aborts the transaction, which is what we want.
    await trx.insertInto("BillingLinkUse").values({ jti: claims.jti, accountId: claims.accountId }).execute();
  } catch (err) {
    if (isUniqueViolation(err)) throw new LinkUsedError("billing link already used");
    throw err;
  }
}
