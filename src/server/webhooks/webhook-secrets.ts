import { decryptSecret } from "../crypto/secret-box";

/** docs/decisions.md §8: after a rotation the previous secret keeps signing for 24 hours (unless retired sooner). */
export const ROTATION_OVERLAP_MS = 24 * 3600_000;

type SecretColumns = {
  webhookSecretEnc: string;
  previousWebhookSecretEnc: string | null;
  previousWebhookSecretExpiresAt: Date | null;
};

/** The secrets every signature is made with now: the current one, and the previous one for 24 hours after a rotation. */
export function signingSecrets(account: SecretColumns, now: Date = new Date()): string[] {
  const secrets = [decryptSecret(account.webhookSecretEnc)];
  if (
    account.previousWebhookSecretEnc &&
    account.previousWebhookSecretExpiresAt &&
    account.previousWebhookSecretExpiresAt > now
  ) {
    secrets.push(decryptSecret(account.previousWebhookSecretEnc));
  }
  return secrets;
}
