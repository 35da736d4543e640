import { safeRedirectPath } from "@/shared/safe-redirect";
import { errorSentence, formContext, formFields, sameOrigin, seeOther } from "@/server/rest/auth-form-post";
import { sessionSetCookie } from "@/server/auth/session-cookie";
import { AppError } from "@/server/errors/app-error";
import { createCaller } from "@/server/trpc/root";
import { toErrorResponse } from "@/server/errors/to-error-response";
import { TWO_FACTOR_PROMPT, secondFactorFields } from "@/shared/second-factor";

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
  // Back to the form with the email kept; never the password. With `twoFactor`, the form shows the code box,
  // and the password is typed again with the code.
  const back = (message: string, twoFactor: boolean) => {
    const q = new URLSearchParams({ error: message, email: (fields.email ?? "").slice(0, 254) });
    if (twoFactor) q.set("twoFactor", "1");
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
      ...secondFactorFields(fields.code),
    });
    const cookie = await sessionSetCookie(token);
    if (!cookie) throw new Error("Login produced an unusable token.");
    return seeOther(safeRedirectPath(fields.callbackUrl), cookie);
  } catch (err) {
    const needsCode = toErrorResponse(err).body.error.code === "TWO_FACTOR_REQUIRED";
    const message = needsCode
      ? `${TWO_FACTOR_PROMPT} Type your password again with it.`
      : errorSentence(err, ctx.requestId);
    return back(message, needsCode || Boolean(fields.code?.trim()));
  }
}
