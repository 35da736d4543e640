import { NextResponse, type NextRequest } from "next/server";
import { sessionAuthorization } from "@/server/auth/dashboard-session";

/**
 * Every dashboard page needs a session: without one (or with an expired one)
 * the browser goes to log-in and comes back afterwards. The dashboard layout
 * checks the account behind the session as well.
 */
export async function proxy(req: NextRequest): Promise<NextResponse> {
  const cookies = Object.fromEntries(req.cookies.getAll().map((c) => [c.name, c.value]));
  if (await sessionAuthorization({ headers: req.headers, cookies })) return NextResponse.next();
  const login = new URL("/login", req.url);
  login.searchParams.set("callbackUrl", req.nextUrl.pathname + req.nextUrl.search);
  return NextResponse.redirect(login);
}

export const config = { matcher: ["/dashboard", "/dashboard/:path*"] };
