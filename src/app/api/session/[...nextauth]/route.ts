import NextAuth from "next-auth";
import { authOptions } from "@/server/auth/dashboard-session";

// next-auth's endpoints (csrf, callback/credentials, session, signout) for the dashboard.
export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type RouteContext = { params: Promise<{ nextauth: string[] }> };
const handler = (req: Request, ctx: RouteContext) => NextAuth(req as never, ctx as never, authOptions()) as Promise<Response>;
export { handler as GET, handler as POST };
