import type { AccountStatus } from "@/generated/prisma/enums";
import { AppError } from "../errors/app-error";
import { API_KEY_PREFIX, hashApiKey, isWellFormedApiKey } from "./api-key-format";
import type { Role } from "../../shared/roles";
import {
  findActiveKey,
  findActiveKeyWithAccountRead,
  findSessionMember,
  touchKey,
  type AccountRead,
} from "./api-key-sql";
import { verifyToken } from "./tokens";

type AuthenticatedAccount = { id: string; email: string; status: AccountStatus; requireTwoFactor?: boolean };
/** The signed-in person behind a login token (docs/decisions.md §18); an API key has none. */
export type AuthenticatedUser = { id: string; email: string; twoFactorEnabled: boolean };
/** `accountRead`: the account as GET /api/account shows it, when it was asked for and came with the key's look-up. */
export type Auth = {
  account: AuthenticatedAccount;
  via: "apiKey" | "jwt";
  apiKeyId: string | null;
  /** The key's public prefix (`rtk_live_ab12…`): how the audit log names a key. */
  apiKeyPrefix: string | null;
  /** The member who made the key, if still known. */
  apiKeyMadeBy?: string | null;
  user: AuthenticatedUser | null;
  /** What the caller may do (src/shared/roles.ts): a member's role in the account, or the role a key was made with. */
  role: Role;
  /** An API key's scope (docs/decisions.md §18); a login (the dashboard's) is `full`. */
  scope: "full" | "read-only";
  /** A login token's id, so that this one session can be ended. */
  jti?: string;
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
 * Anything else is tried as a login JWT: the user's membership of its account
 * is read with it, so a removed member or a changed role counts at once.
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
    const base: Auth = {
      account,
      via: "apiKey",
      apiKeyId: key.keyId,
      apiKeyPrefix: key.keyPrefix,
      apiKeyMadeBy: key.createdByUserId,
      user: null,
      role: key.role,
      scope,
    };
    if (!opts.readAccount) return base;
    const {
      keyId,
      keyPrefix,
      role,
      createdByUserId,
      lastUsedAt,
      expiresAt,
      scope: _scope,
      ...accountRead
    } = key as typeof key & AccountRead;
    return { ...base, accountRead };
  }

  const claims = await verifyToken("login", credential);
  if (!claims) throw new AppError("UNAUTHORIZED", "Invalid or expired token.");
  // The session version comes with the membership and the account in the one read: a token issued before
  // the user's last sign-out (or password change) is refused without another round trip, and so is one whose
  // user is no longer a member. A closed account's tokens are dead whatever their version (docs/decisions.md §20).
  // A session ended on its own ("Log out" in one browser) is refused by its jti, in the same read.
  const member = await findSessionMember(claims.userId, claims.accountId, claims.jti);
  if (!member || member.deletedAt || claims.sessionVersion < member.sessionVersion || member.ended)
    throw new AppError("UNAUTHORIZED", "Invalid or expired token.");
  return {
    account: { id: member.id, email: member.email, status: member.status, requireTwoFactor: member.requireTwoFactor },
    via: "jwt",
    apiKeyId: null,
    apiKeyPrefix: null,
    user: { id: member.userId, email: member.userEmail, twoFactorEnabled: member.twoFactorEnabledAt !== null },
    role: member.role,
    scope: "full",
    jti: claims.jti,
  };
}

/** The person behind the request, for what only a person does (their password, two-factor, invitations): not an API key. */
export function signedInUser(auth: Auth): AuthenticatedUser {
  if (!auth.user) throw new AppError("FORBIDDEN", "Only a signed-in person can do this, not an API key.");
  return auth.user;
}

/** Who makes a key with these credentials: the member, or for a key made with a key, that key's maker and role. */
export function keyMakerOf(auth: Auth): { userId: string | null; role: Role } {
  return { userId: auth.user?.id ?? auth.apiKeyMadeBy ?? null, role: auth.role };
}
