import { db } from "../db/client";
import { decryptSecret, encryptSecret, generateWebhookSecret } from "../crypto/secret-box";

export const ROTATION_OVERLAP_MS = 24 * 3600_000;

type SecretColumns = {
  webhookSecretEnc: string;
  previousWebhookSecretEnc: string | null;
  previousWebhookSecretExpiresAt: Date | null;
};

/** The secrets every signature is made with now: the current one, and the previous one for 24 hours after a rotation. */
export function signingSecrets(account: SecretColumns, now: Date = new Date()): string[] {
  const secrets = [decryptSecret(account.webhookSecretEnc)];
  if (account.previousWebhookSecretEnc && account.previousWebhookSecretExpiresAt && account.previousWebhookSecretExpiresAt > now) {
    secrets.push(decryptSecret(account.previousWebhookSecretEnc));
  }
  return secrets;
}

export async function rotateWebhookSecret(opts: { accountId: string; now?: Date }) {
  const now = opts.now ?? new Date();
  const secret = generateWebhookSecret();
  const expiresAt = new Date(now.getTime() + ROTATION_OVERLAP_MS);
  const current = await db().account.findUniqueOrThrow({ where: { id: opts.accountId }, select: { webhookSecretEnc: true } });
  await db().account.update({
    where: { id: opts.accountId },
    data: {
      webhookSecretEnc: encryptSecret(secret),
      previousWebhookSecretEnc: current.webhookSecretEnc,
      previousWebhookSecretExpiresAt: expiresAt,
    },
  });
  return { webhookSecret: secret, previousSecretExpiresAt: expiresAt.toISOString() };
}
