import { SignJWT, jwtVerify } from "jose";
import { env } from "../env";

/**
 * HS256 tokens signed with AUTH_SECRET. The audience separates their uses, so a
 * checkout link can never be presented as a login token or the reverse.
 */
export type TokenPurpose = "login" | "checkout" | "portal";

const LIFETIME_SECONDS: Record<TokenPurpose, number> = {
  login: 24 * 3600,
  checkout: 7 * 24 * 3600,
  portal: 3600,
};

const ISSUER = "routekit";

function key(): Uint8Array {
  return new TextEncoder().encode(env().authSecret);
}

export async function signToken(purpose: TokenPurpose, accountId: string): Promise<{ token: string; expiresAt: Date }> {
  const now = Math.floor(Date.now() / 1000);
  const exp = now + LIFETIME_SECONDS[purpose];
  const token = await new SignJWT({})
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(accountId)
    .setIssuer(ISSUER)
    .setAudience(`${ISSUER}:${purpose}`)
    .setIssuedAt(now)
    .setExpirationTime(exp)
    .sign(key());
  return { token, expiresAt: new Date(exp * 1000) };
}

/** The account id, or null for any invalid, expired or wrong-purpose token. */
export async function verifyToken(purpose: TokenPurpose, token: string): Promise<string | null> {
  try {
    const { payload } = await jwtVerify(token, key(), {
      algorithms: ["HS256"],
      issuer: ISSUER,
      audience: `${ISSUER}:${purpose}`,
    });
    return typeof payload.sub === "string" && payload.sub ? payload.sub : null;
  } catch {
    return null;
  }
}
