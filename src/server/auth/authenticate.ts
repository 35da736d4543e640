import type { AccountStatus } from "@/generated/prisma/enums";
import { AppError } from "../errors/app-error";
import { db } from "../db/client";
import { API_KEY_PREFIX, hashApiKey, isWellFormedApiKey } from "./api-key-format";
import { verifyToken } from "./tokens";

export type AuthenticatedAccount = { id: string; email: string; status: AccountStatus };
export type Auth = { account: AuthenticatedAccount; via: "apiKey" | "jwt"; apiKeyId: string | null };

const LAST_USED_RESOLUTION_MS = 60_000;

function bearerOf(authorization: string | null): string | null {
  if (!authorization) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return match?.[1] ?? null;
}

/**
 * `Authorization: Bearer …` → the account (decisions §5). A value starting
 * `rtk_` is an API key: checksum checked offline, then one indexed look-up by
 * hash, no cache, so revocation holds on the next request on every instance.
 * Anything else is tried as a login JWT.
 */
export async function authenticate(authorization: string | null): Promise<Auth> {
  const credential = bearerOf(authorization);
  if (!credential) throw new AppError("UNAUTHORIZED", "Send `Authorization: Bearer <API key or login token>`.");

  if (credential.startsWith(API_KEY_PREFIX)) {
    if (!isWellFormedApiKey(credential)) throw new AppError("UNAUTHORIZED", "Invalid API key.");
    const key = await db().apiKey.findUnique({
      where: { keyHash: hashApiKey(credential) },
      select: { id: true, revokedAt: true, lastUsedAt: true, account: { select: { id: true, email: true, status: true } } },
    });
    if (!key || key.revokedAt) throw new AppError("UNAUTHORIZED", "Invalid API key.");
    const now = Date.now();
    if (!key.lastUsedAt || now - key.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
      // Conditional, so concurrent requests on several instances write at most once a minute.
      await db().apiKey.updateMany({
        where: { id: key.id, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: new Date(now - LAST_USED_RESOLUTION_MS) } }] },
        data: { lastUsedAt: new Date(now) },
      });
    }
    return { account: key.account, via: "apiKey", apiKeyId: key.id };
  }

  const claims = await verifyToken("login", credential);
  if (!claims) throw new AppError("UNAUTHORIZED", "Invalid or expired token.");
  // The session version comes with the account in the one read: a token issued
  // before the last sign-out (or password change) is refused without another round trip.
  const account = await db().account.findUnique({ where: { id: claims.accountId }, select: { id: true, email: true, status: true, sessionVersion: true } });
  if (!account || claims.sessionVersion < account.sessionVersion) throw new AppError("UNAUTHORIZED", "Invalid or expired token.");
  return { account: { id: account.id, email: account.email, status: account.status }, via: "jwt", apiKeyId: null };
}
