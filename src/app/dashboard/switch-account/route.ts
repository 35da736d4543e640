import { formContext, formFields, sameOrigin, seeOther } from "@/server/rest/auth-form-post";
import { toErrorResponse } from "@/server/errors/to-error-response";
import { logger } from "@/server/logger";
import { sessionSetCookie } from "@/server/auth/session-cookie";
import { AppError } from "@/server/errors/app-error";
import { createCaller } from "@/server/trpc/root";
import { cookiesOf, sessionAuthorization } from "@/server/trpc/dashboard-session";
import { endSession } from "@/server/services/accounts/end-session";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/**
 * The account switcher (docs/decisions.md §18), a form post so it works without JavaScript: the session's
 * person gets a login token for the chosen account (`auth.switchAccount`, refused for an account they are
 * not in), the browser's session cookie is replaced by one for it, and the session it came from ends.
 */
export async function POST(req: Request): Promise<Response> {
  const ctx = formContext(req);
  try {
    if (!sameOrigin(req)) throw new AppError("FORBIDDEN", "Switch accounts from the dashboard itself.");
    const authorization = await sessionAuthorization({ headers: req.headers, cookies: cookiesOf(req) });
    if (!authorization) return seeOther("/login?callbackUrl=%2Fdashboard");
    const fields = await formFields(req);
    const { token } = await createCaller({ ...ctx, authorization }).auth.switchAccount({
      accountId: fields.accountId ?? "",
    });
    const cookie = await sessionSetCookie(token);
    if (!cookie) throw new Error("Switching produced an unusable token.");
    await endSession(authorization.replace(/^Bearer /, ""));
    return seeOther("/dashboard", cookie);
  } catch (err) {
    // The switcher shows a fixed sentence for this, never text carried in the address; an unexpected failure is logged.
    if (toErrorResponse(err).unexpected) logger().error({ err, requestId: ctx.requestId }, "account switch failed");
    return seeOther("/dashboard?switch=refused");
  }
}
