import type { Prisma } from "@/generated/prisma/client";
import { generateApiKey, hashApiKey, keyPrefixOf } from "../../auth/api-key-format";

/** Creates a key row inside the caller's transaction; the plaintext leaves only through the return value. */
export async function issueApiKey(tx: Prisma.TransactionClient, accountId: string, label: string | null) {
  const key = generateApiKey();
  const row = await tx.apiKey.create({
    data: { accountId, label, keyPrefix: keyPrefixOf(key), keyHash: hashApiKey(key) },
    select: { id: true, keyPrefix: true, label: true, createdAt: true },
  });
  return { ...row, key };
}
