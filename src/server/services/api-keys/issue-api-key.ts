import { generateApiKey, hashApiKey, keyPrefixOf } from "../../auth/api-key-format";
import type { SqlTransaction } from "../../db/sql-transaction";

/** Creates a key row inside the caller's transaction; the plaintext leaves only through the return value. */
export async function issueApiKey(
  trx: SqlTransaction,
  accountId: string,
  label: string | null,
  limits: { scope: "full" | "read-only"; expiresAt: Date | null } = { scope: "full", expiresAt: null },
) {
  const key = generateApiKey();
  const row = await trx
    .insertInto("ApiKey")
    .values({ accountId, label, keyPrefix: keyPrefixOf(key), keyHash: hashApiKey(key), ...limits })
    .returning(["id", "keyPrefix", "label", "scope", "expiresAt", "createdAt"])
    .executeTakeFirstOrThrow();
  return { ...row, key };
}
