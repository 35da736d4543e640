import type { AccountStatus } from "@/generated/prisma/enums";
import { AppError } from "../errors/app-error";
import { db } from "../db/client";
import { API_KEY_PREFIX, hashApiKey, isWellFormedApiKey } from "./api-key-format";
import { findActiveKey, findActiveKeyWithAccountRead, touchKey, type AccountRead } from "./api-key-sql";
import { verifyToken } from "./tokens";

type AuthenticatedAccount = { id: string; email: string; status: AccountStatus };
/** `accountRead`: the account as GET /api/account shows it, when it was asked for and came with the key's look-up. */
export type Auth = {
  account: AuthenticatedAccount;
  via: "apiKey" | "jwt";
  apiKeyId: string | null;
  /** An API key's scope (docs/decisions.md §18); a login (the dashboard's) is `full`. */
  scope: "full" | "read-only";
  accountRead?: AccountRead;
};

const LAST_USED_RESOLUTION_MS = 60_000;

function bearerOf(authorization: string | null): string | null {
  if (!authorization) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return match?.[1] ?? null;
}

/**
 * `Authorization: Bearer …` → the account (docs/decisions.md §5). A value starting
 * `rtk_` is an API key: checksum checked offline, then one indexed look-up by
 * hash, no cache, so revocation holds on the next request on every instance.
 * With `readAccount`, that same statement also reads the account as
 * GET /api/account shows it, so that route costs one round trip.
 * Anything else is tried as a login JWT.
 */
export async function authenticate(authorization: string | null, opts: { readAccount?: boolean } = {}): Promise<Auth> {
  const credential = bearerOf(authorization);
  if (!credential) throw new AppError("UNAUTHORIZED", "Send `Authorization: Bearer <API key or login token>`.");

  if (credential.startsWith(API_KEY_PREFIX)) {
    if (!isWellFormedApiKey(credential)) throw new AppError("UNAUTHORIZED", "Invalid API key.");
    const keyHash = hashApiKey(credential);
    const key = opts.readAccount ? await findActiveKeyWithAccountRead(keyHash) : await findActiveKey(keyHash);
    if (!key) throw new AppError("UNAUTHORIZED", "Invalid API key.");
    const now = new Date();
    if (key.expiresAt && key.expiresAt.getTime() <= now.getTime())
      throw new AppError("UNAUTHORIZED", `This API key expired at ${key.expiresAt.toISOString()}.`);
    const scope = key.scope === "read-only" ? "read-only" : "full";
    if (!key.lastUsedAt || now.getTime() - key.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS)
      await touchKey(key.keyId, now, LAST_USED_RESOLUTION_MS);
    const account = { id: key.id, email: key.email, status: key.status };
    if (!opts.readAccount) return { account, via: "apiKey", apiKeyId: key.keyId, scope };
    const { keyId, lastUsedAt, expiresAt, scope: _scope, ...accountRead } = key as typeof key & AccountRead;
    return { account, via: "apiKey", apiKeyId: keyId, scope, accountRead };
  }

  const claims = await verifyToken("login", credential);
  if (!claims) throw new AppError("UNAUTHORIZED", "Invalid or expired token.");
  // The session version comes with the account in the one read: a token issued
  // before the last sign-out (or password change) is refused without another round trip.
  // A closed account's tokens are dead whatever their version (docs/decisions.md §20).
  // A session ended on its own ("Log out" in one browser) is refused by its jti, in the same read.
  const account = await db().account.findUnique({
    where: { id: claims.accountId },
    select: {
      id: true,
      email: true,
      status: true,
      sessionVersion: true,
      deletedAt: true,
      endedSessions: { where: { jti: claims.jti }, select: { jti: true } },
    },
  });
  if (
    !account ||
    account.deletedAt ||
    claims.sessionVersion < account.sessionVersion ||
    account.endedSessions.length > 0
  )
    throw new AppError("UNAUTHORIZED", "Invalid or expired token.");
  return {
    account: { id: account.id, email: account.email, status: account.status },
    via: "jwt",
    apiKeyId: null,
    scope: "full",
  };
}
