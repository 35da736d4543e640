import "server-only";
import { encode } from "next-auth/jwt";
import { verifyToken } from "@/server/auth/tokens";
import { env } from "@/server/env";

/**
 * The dashboard session cookie for a login JWT, for the forms that work
 * without JavaScript (they post to route handlers, not to next-auth's client).
 * Same name, contents and lifetime as next-auth's own, so next-auth and
 * `sessionAuthorization` read it like any other session.
 */
const MAX_AGE_SECONDS = 24 * 3600;

function secure(): boolean {
  return env().publicBaseUrl.startsWith("https://");
}

function sessionCookieName(): string {
  return secure() ? "__Secure-next-auth.session-token" : "next-auth.session-token";
}

/** A `Set-Cookie` value carrying the session for this login token, or null if the token does not verify. */
export async function sessionSetCookie(loginToken: string): Promise<string | null> {
  const claims = await verifyToken("login", loginToken);
  if (!claims) return null;
  const value = await encode({
    token: { sub: claims.userId, loginToken, loginTokenExpiresAt: claims.expiresAt.toISOString() },
    secret: env().authSecret,
    maxAge: MAX_AGE_SECONDS,
  });
  const expires = new Date(Date.now() + MAX_AGE_SECONDS * 1000).toUTCString();
  return `${sessionCookieName()}=${value}; Path=/; Expires=${expires}; HttpOnly; SameSite=Lax${secure() ? "; Secure" : ""}`;
}
