import { errorSentence, formContext, formFields, sameOrigin, seeOther } from "@/server/rest/auth-form-post";
import { AppError } from "@/server/errors/app-error";
import { createCaller } from "@/server/trpc/root";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** "Forgot password?" without JavaScript: the same procedure, the same answer for every address. */
export async function POST(req: Request): Promise<Response> {
  const ctx = formContext(req);
  try {
    if (!sameOrigin(req)) throw new AppError("FORBIDDEN", "Ask from this site's own page.");
    const fields = await formFields(req);
    await createCaller(ctx).settings.requestPasswordReset({ email: fields.email ?? "" });
    return seeOther("/forgot-password?sent=1");
  } catch (err) {
    return seeOther(`/forgot-password?${new URLSearchParams({ error: errorSentence(err, ctx.requestId) })}`);
  }
}
