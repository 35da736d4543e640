import type { AccountRead } from "../../auth/api-key-sql";
import { AppError } from "../../errors/app-error";
import { db } from "../../db/client";
import { decryptSecret } from "../../crypto/secret-box";
import { engineVoiceUrlOf } from "./engine-voice-url";

/**
 * The account as GET /api/account shows it. `read` is that row when the
 * request's authentication already read it (an API key: one statement for
 * both); otherwise (a login token, the dashboard) it is read here. The webhook
 * secret and the engine URL only for a role that sees secrets (not a viewer: docs/decisions.md §18).
 */
export async function getAccount(opts: { accountId: string; read?: AccountRead; showSecret: boolean }) {
  const account = opts.read ?? (await readAccount(opts.accountId));
  return {
    account: {
      id: account.id,
      email: account.email,
      companyName: account.companyName,
      status: account.status,
      createdAt: account.createdAt.toISOString(),
      // Both are credentials: the secret signs events, and without a Twilio connection the URL is a bearer secret.
      ...(opts.showSecret && {
        webhookSecret: decryptSecret(account.webhookSecretEnc),
        engineVoiceUrl: engineVoiceUrlOf(account),
      }),
      _count: { phoneNumbers: account.phoneNumbers, apiKeys: account.apiKeys },
    },
  };
}

async function readAccount(accountId: string): Promise<AccountRead> {
  const account = await db().account.findUnique({
    where: { id: accountId },
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
  const { _count, ...columns } = account;
  return { ...columns, phoneNumbers: _count.phoneNumbers, apiKeys: _count.apiKeys };
}
