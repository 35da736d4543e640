import { randomUUID } from "node:crypto";
import { SignJWT, jwtVerify } from "jose";
import { env } from "../env";

/**
 * HS256 tokens signed with AUTH_SECRET. The audience separates their uses, so a
 * checkout link can never be presented as a login token or the reverse.
 *
 * Every token carries `iat`, `exp` and a `jti`; a token without them is refused,
 * so no token lives forever. Billing links name their account as subject and are
 * used once by `jti`. A login token names its user as subject and the account it
 * signed in to as `acc` (docs/decisions.md §18), and carries `sv`, the user's
 * session version when it was issued: sign-out bumps the version and every older
 * token stops working (docs/decisions.md §5). A login token from before users
 * existed has no `acc`: its subject is the account, whose owner kept its id.
 */
export type TokenPurpose = "login" | "checkout" | "portal";

const LIFETIME_SECONDS: Record<TokenPurpose, number> = {
  login: 24 * 3600,
  checkout: 7 * 24 * 3600,
  portal: 3600,
};

const ISSUER = "routekit";

/** `userId` is the subject: for a billing link, the account's id. */
export type TokenClaims = { accountId: string; userId: string; jti: string; sessionVersion: number; expiresAt: Date };

function key(): Uint8Array {
  return new TextEncoder().encode(env().authSecret);
}

/** A billing link for an account. */
export async function signToken(
  purpose: Exclude<TokenPurpose, "login">,
  accountId: string,
): Promise<{ token: string; expiresAt: Date; jti: string }> {
  return sign(purpose, accountId, {});
}

/** A login token: the user, signed in to one of their accounts; a new user's session version is 0. */
export async function signLoginToken(opts: {
  userId: string;
  accountId: string;
  sessionVersion: number;
}): Promise<{ token: string; expiresAt: Date; jti: string }> {
  return sign("login", opts.userId, { sv: opts.sessionVersion, acc: opts.accountId });
}

async function sign(
  purpose: TokenPurpose,
  subject: string,
  claims: Record<string, string | number>,
): Promise<{ token: string; expiresAt: Date; jti: string }> {
  const now = Math.floor(Date.now() / 1000);
  const exp = now + LIFETIME_SECONDS[purpose];
  const jti = randomUUID();
  const token = await new SignJWT(claims)
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(subject)
    .setIssuer(ISSUER)
    .setAudience(`${ISSUER}:${purpose}`)
    .setIssuedAt(now)
    .setExpirationTime(exp)
    .setJti(jti)
    .sign(key());
  return { token, expiresAt: new Date(exp * 1000), jti };
}

/** The token's claims, or null for any invalid, expired, incomplete or wrong-purpose token. */
export async function verifyToken(purpose: TokenPurpose, token: string): Promise<TokenClaims | null> {
  try {
    const { payload } = await jwtVerify(token, key(), {
      algorithms: ["HS256"],
      issuer: ISSUER,
      audience: `${ISSUER}:${purpose}`,
      requiredClaims: ["exp", "iat", "jti", "sub"],
    });
    if (
      typeof payload.sub !== "string" ||
      !payload.sub ||
      typeof payload.jti !== "string" ||
      typeof payload.exp !== "number"
    )
      return null;
    let sessionVersion = 0;
    let accountId = payload.sub;
    if (purpose === "login") {
      if (typeof payload.sv !== "number" || !Number.isInteger(payload.sv) || payload.sv < 0) return null;
      sessionVersion = payload.sv;
      if (payload.acc !== undefined) {
        if (typeof payload.acc !== "string" || !payload.acc) return null;
        accountId = payload.acc;
      }
    }
    return {
      accountId,
      userId: payload.sub,
      jti: payload.jti,
      sessionVersion,
      expiresAt: new Date(payload.exp * 1000),
    };
  } catch {
    return null;
  }
}
