import { NextResponse, type NextRequest } from "next/server";
import { authenticate } from "@/server/auth/authenticate";
import { sessionAuthorization } from "@/server/trpc/dashboard-session";
import { safeRedirectPath } from "@/shared/safe-redirect";
import { env } from "@/server/env";
import { pageContentSecurityPolicy } from "@/server/http/security-headers";

/**
 * Every page gets a Content-Security-Policy with a fresh nonce: Next.js reads
 * it from the request's header and puts it on its inline bootstrap scripts
 * (which is why pages render per request; see the root layout).
 *
 * Every dashboard page also needs a session: without one (or with an expired
 * one) the browser goes to log-in and comes back afterwards. The dashboard
 * layout checks the account behind the session as well.
 *
 * A signed-in visitor has nothing to do on the home, log-in or sign-up page:
 * they go to the dashboard (or the page log-in was asked to return to).
 */
export async function proxy(req: NextRequest): Promise<NextResponse> {
  const nonce = Buffer.from(crypto.randomUUID()).toString("base64");
  const policy = pageContentSecurityPolicy(nonce, env().nodeEnv === "development");

  const path = req.nextUrl.pathname;
  if (path === "/dashboard" || path.startsWith("/dashboard/")) {
    const cookies = Object.fromEntries(req.cookies.getAll().map((c) => [c.name, c.value]));
    if (!(await sessionAuthorization({ headers: req.headers, cookies }))) {
      const login = new URL("/login", req.url);
      login.searchParams.set("callbackUrl", req.nextUrl.pathname + req.nextUrl.search);
      return NextResponse.redirect(login);
    }
  }

  if (SIGNED_IN_ELSEWHERE.has(path) && (await signedIn(req))) {
    const target = new URL(safeRedirectPath(req.nextUrl.searchParams.get("callbackUrl")), req.url);
    return NextResponse.redirect(SIGNED_IN_ELSEWHERE.has(target.pathname) ? new URL("/dashboard", req.url) : target);
  }

  const headers = new Headers(req.headers);
  headers.set("content-security-policy", policy);
  const res = NextResponse.next({ request: { headers } });
  res.headers.set("content-security-policy", policy);
  return res;
}

const SIGNED_IN_ELSEWHERE = new Set(["/", "/login", "/signup"]);

// The account behind the session must still accept it (signed out everywhere, or gone, is not signed in), or /login and the dashboard would bounce a stale cookie between them.
async function signedIn(req: NextRequest): Promise<boolean> {
  const cookies = Object.fromEntries(req.cookies.getAll().map((c) => [c.name, c.value]));
  const authorization = await sessionAuthorization({ headers: req.headers, cookies });
  if (!authorization) return false;
  return authenticate(authorization).then(
    () => true,
    () => false,
  );
}

// Pages only: API answers, /docs, the billing route handlers and Next.js's static files carry their own policies (src/server/main.ts, src/app/docs, src/app/billing/billing-page.ts).
export const config = {
  matcher: ["/((?!api/|api$|docs|billing/checkout/|billing/portal/|_next/static|_next/image|favicon.ico).*)"],
};
