import { errorSentence, formContext, formFields, sameOrigin, seeOther } from "@/server/rest/auth-form-post";
import { AppError } from "@/server/errors/app-error";
import { createCaller } from "@/server/trpc/root";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** The confirm button of a mailed link (verification, or a new address). */
export async function POST(req: Request): Promise<Response> {
  const ctx = formContext(req);
  let fields: Record<string, string> = {};
  const page = () => (fields.kind === "change" ? "/verify-email/new-address" : "/verify-email");
  try {
    if (!sameOrigin(req)) throw new AppError("FORBIDDEN", "Use this site's own page.");
    fields = await formFields(req);
    const caller = createCaller(ctx).settings;
    if (fields.kind === "change") {
      await caller.confirmEmailChange({ token: fields.token ?? "" });
      return seeOther("/login?notice=email-changed");
    }
    await caller.verifyEmail({ token: fields.token ?? "" });
    return seeOther("/verify-email?done=1");
  } catch (err) {
    return seeOther(
      `${page()}?${new URLSearchParams({ token: (fields.token ?? "").slice(0, 200), error: errorSentence(err, ctx.requestId) })}`,
    );
  }
}
