import { db } from "../../db/client";
import { inPrismaTransaction, kysely } from "../../db/kysely";
import { decryptSecret, encryptSecret, generateWebhookSecret } from "../../crypto/secret-box";
import { ROTATION_OVERLAP_MS } from "../../webhooks/webhook-secrets";

/**
 * POST /api/account/webhook-secret (docs/decisions.md §8). Rotations of one account are
 * serialized on its row (`SELECT … FOR UPDATE`), so of two at once the second
 * keeps the first's new secret as its previous one: every secret ever returned
 * signs events until it is rotated out twice or expires.
 *
 * `expirePrevious: true` does not rotate: it retires the previous secret now
 * (after receivers have the new one) and answers the current secret with
 * `previousSecretExpiresAt: null`, meaning only the current secret signs.
 */
export async function rotateWebhookSecret(opts: { accountId: string; expirePrevious?: boolean; now?: Date }) {
  return db().$transaction(async (tx) => {
    const now = opts.now ?? new Date();
    const rows = await inPrismaTransaction(
      tx,
      kysely().selectFrom("Account").select("webhookSecretEnc").where("id", "=", opts.accountId).forUpdate(),
    );
    const current = rows[0];
    if (!current) throw new Error("account not found");
    if (opts.expirePrevious) {
      await tx.account.update({
        where: { id: opts.accountId },
        data: { previousWebhookSecretEnc: null, previousWebhookSecretExpiresAt: null },
      });
      return { webhookSecret: decryptSecret(current.webhookSecretEnc), previousSecretExpiresAt: null };
    }
    const secret = generateWebhookSecret();
    const expiresAt = new Date(now.getTime() + ROTATION_OVERLAP_MS);
    await tx.account.update({
      where: { id: opts.accountId },
      data: {
        webhookSecretEnc: encryptSecret(secret),
        previousWebhookSecretEnc: current.webhookSecretEnc,
        previousWebhookSecretExpiresAt: expiresAt,
      },
    });
    return { webhookSecret: secret, previousSecretExpiresAt: expiresAt.toISOString() };
  });
}
