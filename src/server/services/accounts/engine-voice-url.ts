import { createHash, randomBytes } from "node:crypto";
import { ENGINE_PATH_PREFIX } from "../../../shared/engine-path";
import { decryptSecret, encryptSecret } from "../../crypto/secret-box";
import { db } from "../../db/client";
import { env } from "../../env";

/** docs/decisions.md §7: `{PUBLIC_BASE_URL}/api/engine/voice/{routingToken}`. */
export function engineVoiceUrl(routingToken: string): string {
  return `${env().publicBaseUrl}${ENGINE_PATH_PREFIX}${routingToken}`;
}

/** 192 random bits: unguessable, URL-safe. */
export function generateRoutingToken(): string {
  return `rt_${randomBytes(24).toString("base64url")}`;
}

/**
 * A routing token is a bearer secret (docs/decisions.md §7): the database keeps its
 * SHA-256 for the engine's look-up and an encrypted copy to show the URL,
 * never the token itself.
 */
export function hashRoutingToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/** The columns a new routing token is stored in. */
export function sealRoutingToken(token: string): { routingTokenHash: string; routingTokenEnc: string } {
  return { routingTokenHash: hashRoutingToken(token), routingTokenEnc: encryptSecret(token) };
}

/** The account's engine URL, from the stored (encrypted) token. */
export function engineVoiceUrlOf(account: {
  routingTokenEnc: string | null;
  legacyRoutingToken?: string | null;
}): string {
  const token = account.routingTokenEnc ? decryptSecret(account.routingTokenEnc) : account.legacyRoutingToken;
  if (!token) throw new Error("account has no routing token");
  return engineVoiceUrl(token);
}

/** The engine URL of an account by id. */
export async function accountEngineVoiceUrl(accountId: string): Promise<string> {
  const account = await db().account.findUniqueOrThrow({
    where: { id: accountId },
    select: { routingTokenEnc: true, legacyRoutingToken: true },
  });
  return engineVoiceUrlOf(account);
}

/**
 * Accounts made before tokens were hashed: the migration computed their hash;
 * here their plaintext token is encrypted and cleared. Idempotent, so every
 * instance may run it at start.
 */
export async function sealLegacyRoutingTokens(): Promise<number> {
  const legacy = await db().account.findMany({
    where: { legacyRoutingToken: { not: null } },
    select: { id: true, legacyRoutingToken: true },
  });
  for (const a of legacy) {
    await db().account.updateMany({
      where: { id: a.id, legacyRoutingToken: a.legacyRoutingToken },
      data: { routingTokenEnc: encryptSecret(a.legacyRoutingToken!), legacyRoutingToken: null },
    });
  }
  return legacy.length;
}

type RoutingTokenHashes = {
  routingTokenHash: string;
  previousRoutingTokenHash: string | null;
  previousRoutingTokenExpiresAt: Date | null;
};

/**
 * Whether a URL (a number's voice URL at Twilio, say) is this account's engine
 * URL, the current one or the previous one while it still works. Compared by
 * token hash, since the previous token itself is not kept.
 */
export function isEngineVoiceUrlOf(url: string | null, account: RoutingTokenHashes, now: Date = new Date()): boolean {
  const prefix = `${env().publicBaseUrl}${ENGINE_PATH_PREFIX}`;
  if (!url?.startsWith(prefix)) return false;
  const hash = hashRoutingToken(url.slice(prefix.length));
  if (hash === account.routingTokenHash) return true;
  return (
    hash === account.previousRoutingTokenHash &&
    account.previousRoutingTokenExpiresAt !== null &&
    account.previousRoutingTokenExpiresAt > now
  );
}
