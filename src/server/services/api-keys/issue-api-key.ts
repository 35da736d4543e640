import { generateApiKey, hashApiKey, keyPrefixOf } from "../../auth/api-key-format";
import type { SqlTransaction } from "../../db/sql-transaction";
import type { Role } from "../../../shared/roles";

/**
 * Who makes a key (docs/decisions.md §18): the member (null when a key makes a key for a maker no longer known)
 * and the role the key will act with, never more than the maker's own.
 */
export type KeyMaker = { userId: string | null; role: Role };

/** Creates a key row inside the caller's transaction; the plaintext leaves only through the return value. */
export async function issueApiKey(
  trx: SqlTransaction,
  accountId: string,
  label: string | null,
  maker: KeyMaker,
  limits: { scope: "full" | "read-only"; expiresAt: Date | null } = { scope: "full", expiresAt: null },
) {
  const key = generateApiKey();
  const row = await trx
    .insertInto("ApiKey")
    .values({
      accountId,
      label,
      keyPrefix: keyPrefixOf(key),
      keyHash: hashApiKey(key),
      createdByUserId: maker.userId,
      role: maker.role,
      ...limits,
    })
    .returning(["id", "keyPrefix", "label", "scope", "expiresAt", "role", "createdAt"])
    .executeTakeFirstOrThrow();
  return { ...row, key };
}
