import { randomUUID } from "node:crypto";
import { SignJWT, jwtVerify } from "jose";
import { env } from "../env";

/**
 * HS256 tokens signed with AUTH_SECRET. The audience separates their uses, so a
 * checkout link can never be presented as a login token or the reverse.
 *
 * Every token carries `iat`, `exp` and a `jti`; a token without them is refused,
 * so no token lives forever. Login tokens also carry `sv`, the account's session
 * version when they were issued: sign-out bumps the version and every older
 * token stops working (docs/decisions.md §5). Billing links are used once by `jti`.
 */
export type TokenPurpose = "login" | "checkout" | "portal";

const LIFETIME_SECONDS: Record<TokenPurpose, number> = {
  login: 24 * 3600,
  checkout: 7 * 24 * 3600,
  portal: 3600,
};

const ISSUER = "routekit";

export type TokenClaims = { accountId: string; jti: string; sessionVersion: number; expiresAt: Date };

function key(): Uint8Array {
  return new TextEncoder().encode(env().authSecret);
}

/** `sessionVersion` matters only for login tokens; a new account's is 0. */
export async function signToken(
  purpose: TokenPurpose,
  accountId: string,
  opts: { sessionVersion?: number } = {},
): Promise<{ token: string; expiresAt: Date; jti: string }> {
  const now = Math.floor(Date.now() / 1000);
  const exp = now + LIFETIME_SECONDS[purpose];
  const jti = randomUUID();
  const claims = purpose === "login" ? { sv: opts.sessionVersion ?? 0 } : {};
  const token = await new SignJWT(claims)
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(accountId)
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
    if (purpose === "login") {
      if (typeof payload.sv !== "number" || !Number.isInteger(payload.sv) || payload.sv < 0) return null;
      sessionVersion = payload.sv;
    }
    return { accountId: payload.sub, jti: payload.jti, sessionVersion, expiresAt: new Date(payload.exp * 1000) };
  } catch {
    return null;
  }
}
