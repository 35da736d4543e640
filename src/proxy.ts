import { NextResponse, type NextRequest } from "next/server";
import { sessionAuthorization } from "@/server/auth/dashboard-session";
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

  const headers = new Headers(req.headers);
  headers.set("content-security-policy", policy);
  const res = NextResponse.next({ request: { headers } });
  res.headers.set("content-security-policy", policy);
  return res;
}

// Pages only: API answers, /docs and Next.js's static files carry their own policies (src/server/main.ts, src/app/docs).
export const config = {
  matcher: ["/((?!api/|api$|docs|_next/static|_next/image|favicon.ico).*)"],
};
