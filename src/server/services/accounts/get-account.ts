import { AppError } from "../../errors/app-error";
import { db } from "../../db/client";
import { decryptSecret } from "../../crypto/secret-box";
import { engineVoiceUrlOf } from "./engine-voice-url";

export async function getAccount(opts: { accountId: string }) {
  const account = await db().account.findUnique({
    where: { id: opts.accountId },
    select: {
      id: true,
      email: true,
      companyName: true,
      status: true,
      createdAt: true,
      webhookSecretEnc: true,
      routingTokenEnc: true,
      legacyRoutingToken: true,
      _count: { select: { phoneNumbers: true, apiKeys: { where: { revokedAt: null } } } },
    },
  });
  if (!account) throw new AppError("NOT_FOUND", "No such account.");
  return {
    account: {
      id: account.id,
      email: account.email,
      companyName: account.companyName,
      status: account.status,
      createdAt: account.createdAt.toISOString(),
      webhookSecret: decryptSecret(account.webhookSecretEnc),
      engineVoiceUrl: engineVoiceUrlOf(account),
      _count: { phoneNumbers: account._count.phoneNumbers, apiKeys: account._count.apiKeys },
    },
  };
}
