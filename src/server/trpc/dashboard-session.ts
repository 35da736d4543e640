import type { NextAuthOptions, User } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { getToken, type JWT } from "next-auth/jwt";
import { safeRedirectPath } from "@/shared/safe-redirect";
import { env } from "../env";
import { toErrorResponse } from "../errors/to-error-response";
import { requestContextOf } from "../http/request-context";
import { createCaller } from "./root";
import { endSession } from "../services/accounts/end-session";
import { verifyToken } from "../auth/tokens";

/**
 * The dashboard's session (docs/decisions.md §5): next-auth with a credentials
 * provider and JWT sessions. Logging in goes through the same `auth.login`
 * procedure as `POST /api/auth/login` (same password rules, same rate limits),
 * and the session carries the login JWT it returns, so every dashboard request
 * is authenticated exactly like a REST request with that token.
 *
 * next-auth lives under SESSION_BASE_PATH (boot points NEXTAUTH_URL there).
 */
/** The login JWT lives 24 hours; the session never outlives it. */
const SESSION_MAX_AGE_SECONDS = 24 * 3600;

type LoginUser = User & { loginToken: string; loginTokenExpiresAt: string };
type SessionJwt = JWT & { loginToken?: string; loginTokenExpiresAt?: string };

export function authOptions(): NextAuthOptions {
  return {
    secret: env().authSecret,
    session: { strategy: "jwt", maxAge: SESSION_MAX_AGE_SECONDS },
    jwt: { maxAge: SESSION_MAX_AGE_SECONDS },
    pages: { signIn: "/login", error: "/login" },
    providers: [
      CredentialsProvider({
        name: "Email and password",
        credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
        async authorize(credentials, req): Promise<LoginUser> {
          const caller = createCaller({
            ...requestContextOf((req.headers ?? {}) as Record<string, string | undefined>),
            authorization: null,
          });
          try {
            const { token, expiresAt } = await caller.auth.login({
              email: credentials?.email ?? "",
              password: credentials?.password ?? "",
            });
            const claims = await verifyToken("login", token);
            if (!claims) throw new Error("Login produced an unusable token.");
            return { id: claims.userId, loginToken: token, loginTokenExpiresAt: expiresAt };
          } catch (err) {
            // next-auth hands the message to the login page as `error`; keep it the API's sentence.
            throw new Error(toErrorResponse(err).body.error.message);
          }
        },
      }),
    ],
    events: {
      // However the browser signs out (the dashboard's Log out, or next-auth's own sign-out page),
      // this browser's session ends: its login token is refused from now on, so a copy of the
      // cookie is useless too. Other browsers stay signed in; "Sign out everywhere" (POST
      // /api/auth/logout) ends them all.
      async signOut({ token }) {
        const loginToken = (token as SessionJwt | null)?.loginToken;
        if (loginToken) await endSession(loginToken);
      },
    },
    callbacks: {
      // Every callbackUrl next-auth takes (query, cookie or form body) goes through the one redirect guard; it never throws, so `%` is no 500.
      redirect({ url, baseUrl }) {
        const origin = new URL(baseUrl).origin;
        return `${origin}${safeRedirectPath(url, { origin })}`;
      },
      jwt({ token, user }) {
        if (user) {
          const u = user as LoginUser;
          return { sub: u.id, loginToken: u.loginToken, loginTokenExpiresAt: u.loginTokenExpiresAt };
        }
        return token;
      },
      // The browser learns its user id, never the login JWT (the cookie is httpOnly).
      session({ session, token }) {
        return { expires: session.expires, user: { id: token.sub } } as typeof session;
      },
    },
  };
}

/** The `Authorization` value for procedures called on behalf of the session in these cookies, if any. */
export async function sessionAuthorization(req: {
  headers: Headers | Record<string, string>;
  cookies: Record<string, string>;
}): Promise<string | null> {
  const token = (await getToken({ req: req as never, secret: env().authSecret })) as SessionJwt | null;
  if (!token?.loginToken) return null;
  if (token.loginTokenExpiresAt && Date.parse(token.loginTokenExpiresAt) <= Date.now()) return null;
  return `Bearer ${token.loginToken}`;
}

/** Cookies of a fetch Request as the plain record next-auth reads. */
export function cookiesOf(req: Request): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (req.headers.get("cookie") ?? "").split(";")) {
    const i = part.indexOf("=");
    if (i > 0) out[part.slice(0, i).trim()] = decodeURIComponent(part.slice(i + 1).trim());
  }
  return out;
}
