import type { TRegisterInput } from "../../../shared/schemas/auth";
import { AppError } from "../../errors/app-error";
import { isUniqueViolation } from "../../db/client";
import { sqlTransaction } from "../../db/sql-transaction";
import { hashPassword } from "../../auth/password";
import { signLoginToken } from "../../auth/tokens";
import { encryptSecret, generateWebhookSecret } from "../../crypto/secret-box";
import { issueApiKey } from "../api-keys/issue-api-key";
import { createCheckoutUrl } from "../billing/billing-provider";
import { startEmailVerification } from "./email-verification";
import { engineVoiceUrl, generateRoutingToken, sealRoutingToken } from "./engine-voice-url";

/**
 * A new user and a new account with that user as its owner (docs/decisions.md §18), its `Default` key and its
 * secrets in one transaction: nothing half-written. An address any user already signs in with is taken.
 */
export async function registerAccount(input: TRegisterInput) {
  const passwordHash = await hashPassword(input.password);
  const routingToken = generateRoutingToken();
  let created;
  try {
    created = await sqlTransaction(async (trx) => {
      const user = await trx
        .insertInto("User")
        .values({ email: input.email, passwordHash })
        .returning(["id", "sessionVersion"])
        .executeTakeFirstOrThrow();
      const account = await trx
        .insertInto("Account")
        .values({
          email: input.email,
          companyName: input.companyName ?? null,
          webhookSecretEnc: encryptSecret(generateWebhookSecret()),
          ...sealRoutingToken(routingToken),
        })
        .returning(["id", "email", "companyName", "status"])
        .executeTakeFirstOrThrow();
      await trx.insertInto("Membership").values({ accountId: account.id, userId: user.id, role: "owner" }).execute();
      await trx.updateTable("User").set({ lastAccountId: account.id }).where("id", "=", user.id).execute();
      const key = await issueApiKey(trx, account.id, "Default", { userId: user.id, role: "owner" });
      return { account, user, apiKey: key.key };
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new AppError("EMAIL_TAKEN");
    throw err;
  }
  const [{ token }, checkoutUrl] = await Promise.all([
    signLoginToken({
      userId: created.user.id,
      accountId: created.account.id,
      sessionVersion: created.user.sessionVersion,
    }),
    createCheckoutUrl(created.account.id),
    startEmailVerification({ userId: created.user.id, accountId: created.account.id, email: created.account.email }),
  ]);
  return {
    account: created.account,
    apiKey: created.apiKey,
    token,
    checkoutUrl,
    engineVoiceUrl: engineVoiceUrl(routingToken),
  };
}
