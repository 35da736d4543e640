import { errorSentence, formContext, formFields, sameOrigin, seeOther } from "@/server/rest/auth-form-post";
import { AppError } from "@/server/errors/app-error";
import { createCaller } from "@/server/trpc/root";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** The new password without JavaScript; then log-in with a notice (every session has ended). */
export async function POST(req: Request): Promise<Response> {
  const ctx = formContext(req);
  let token = "";
  try {
    if (!sameOrigin(req)) throw new AppError("FORBIDDEN", "Use this site's own page.");
    const fields = await formFields(req);
    token = fields.token ?? "";
    await createCaller(ctx).settings.resetPassword({ token, password: fields.password ?? "" });
    return seeOther("/login?notice=password-reset");
  } catch (err) {
    return seeOther(
      `/reset-password?${new URLSearchParams({ token: token.slice(0, 200), error: errorSentence(err, ctx.requestId) })}`,
    );
  }
}
