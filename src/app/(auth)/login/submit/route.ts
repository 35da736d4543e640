import { safeRedirectPath } from "@/shared/safe-redirect";
import { errorSentence, formContext, formFields, sameOrigin, seeOther } from "@/server/rest/auth-form-post";
import { sessionSetCookie } from "@/server/auth/session-cookie";
import { AppError } from "@/server/errors/app-error";
import { createCaller } from "@/server/trpc/root";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/**
 * The log-in form without JavaScript: the same `auth.login` procedure (same
 * password rules and rate limits) as next-auth's credentials callback, then
 * the same session cookie, then on to the page asked for.
 */
export async function POST(req: Request): Promise<Response> {
  const ctx = formContext(req);
  let fields: Record<string, string> = {};
  const back = (message: string) => {
    const q = new URLSearchParams({ error: message, email: (fields.email ?? "").slice(0, 254) });
    const returnTo = safeRedirectPath(fields.callbackUrl);
    if (returnTo !== "/dashboard") q.set("callbackUrl", returnTo);
    return seeOther(`/login?${q}`);
  };
  try {
    if (!sameOrigin(req)) throw new AppError("FORBIDDEN", "Log in from this site's own log-in page.");
    fields = await formFields(req);
    const { token } = await createCaller(ctx).auth.login({
      email: fields.email ?? "",
      password: fields.password ?? "",
    });
    const cookie = await sessionSetCookie(token);
    if (!cookie) throw new Error("Login produced an unusable token.");
    return seeOther(safeRedirectPath(fields.callbackUrl), cookie);
  } catch (err) {
    return back(errorSentence(err, ctx.requestId));
  }
}
