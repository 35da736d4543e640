import { now as sqlNow } from "../../db/kysely";
import { sqlTransaction } from "../../db/sql-transaction";
import { decryptSecret, encryptSecret, generateWebhookSecret } from "../../crypto/secret-box";
import { ROTATION_OVERLAP_MS } from "../../webhooks/webhook-secrets";
import { type AuditOrigin, recordAudit } from "../audit/record-audit";

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
export async function rotateWebhookSecret(opts: {
  accountId: string;
  expirePrevious?: boolean;
  now?: Date;
  origin: AuditOrigin;
}) {
  return sqlTransaction(async (trx) => {
    const now = opts.now ?? new Date();
    const current = await trx
      .selectFrom("Account")
      .select("webhookSecretEnc")
      .where("id", "=", opts.accountId)
      .forUpdate()
      .executeTakeFirst();
    if (!current) throw new Error("account not found");
    if (opts.expirePrevious) {
      await trx
        .updateTable("Account")
        .set({ previousWebhookSecretEnc: null, previousWebhookSecretExpiresAt: null, updatedAt: sqlNow() })
        .where("id", "=", opts.accountId)
        .execute();
      await recordAudit(trx, {
        accountId: opts.accountId,
        origin: opts.origin,
        action: "account.webhook_secret_previous_expired",
        target: { type: "account", id: opts.accountId },
      });
      return { webhookSecret: decryptSecret(current.webhookSecretEnc), previousSecretExpiresAt: null };
    }
    const secret = generateWebhookSecret();
    const expiresAt = new Date(now.getTime() + ROTATION_OVERLAP_MS);
    await trx
      .updateTable("Account")
      .set({
        webhookSecretEnc: encryptSecret(secret),
        previousWebhookSecretEnc: current.webhookSecretEnc,
        previousWebhookSecretExpiresAt: expiresAt,
        updatedAt: sqlNow(),
      })
      .where("id", "=", opts.accountId)
      .execute();
    await recordAudit(trx, {
      accountId: opts.accountId,
      origin: opts.origin,
      action: "account.webhook_secret_rotated",
      target: { type: "account", id: opts.accountId },
      details: { previousSecretExpiresAt: expiresAt.toISOString() },
    });
    return { webhookSecret: secret, previousSecretExpiresAt: expiresAt.toISOString() };
  });
}
