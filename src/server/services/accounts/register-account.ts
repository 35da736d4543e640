import type { TRegisterInput } from "../../../shared/schemas/auth";
import { AppError } from "../../errors/app-error";
import { isUniqueViolation } from "../../db/client";
import { sqlTransaction } from "../../db/sql-transaction";
import { hashPassword } from "../../auth/password";
import { signToken } from "../../auth/tokens";
import { encryptSecret, generateWebhookSecret } from "../../crypto/secret-box";
import { issueApiKey } from "../api-keys/issue-api-key";
import { createCheckoutUrl } from "../billing/billing-provider";
import { startEmailVerification } from "./email-verification";
import { engineVoiceUrl, generateRoutingToken, sealRoutingToken } from "./engine-voice-url";

/** Account, its `Default` key and its secrets in one transaction: nothing half-written. */
export async function registerAccount(input: TRegisterInput) {
  const passwordHash = await hashPassword(input.password);
  const routingToken = generateRoutingToken();
  let created;
  try {
    created = await sqlTransaction(async (trx) => {
      const account = await trx
        .insertInto("Account")
        .values({
          email: input.email,
          passwordHash,
          companyName: input.companyName ?? null,
          webhookSecretEnc: encryptSecret(generateWebhookSecret()),
          ...sealRoutingToken(routingToken),
        })
        .returning(["id", "email", "companyName", "status"])
        .executeTakeFirstOrThrow();
      const key = await issueApiKey(trx, account.id, "Default");
      return { account, apiKey: key.key };
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new AppError("EMAIL_TAKEN");
    throw err;
  }
  const [{ token }, checkoutUrl] = await Promise.all([
    signToken("login", created.account.id),
    createCheckoutUrl(created.account.id),
    startEmailVerification({ accountId: created.account.id, email: created.account.email }),
  ]);
  return {
    account: created.account,
    apiKey: created.apiKey,
    token,
    checkoutUrl,
    engineVoiceUrl: engineVoiceUrl(routingToken),
  };
}
