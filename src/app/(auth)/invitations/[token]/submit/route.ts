import { errorSentence, formContext, formFields, sameOrigin, seeOther } from "@/server/rest/auth-form-post";
import { sessionSetCookie } from "@/server/auth/session-cookie";
import { AppError } from "@/server/errors/app-error";
import { createCaller } from "@/server/trpc/root";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/**
 * The invitation form (docs/decisions.md §18): the same accept procedures, rate limits included, as
 * POST /api/invitations/accept/…, then the session cookie of the joined account, as the log-in form sets it.
 * A person with two-factor joins and is sent to log in, where the second factor is asked.
 */
export async function POST(req: Request, { params }: { params: Promise<{ token: string }> }): Promise<Response> {
  const ctx = formContext(req);
  const { token } = await params;
  const page = `/invitations/${encodeURIComponent(token)}`;
  try {
    if (!sameOrigin(req)) throw new AppError("FORBIDDEN", "Accept the invitation from this site's own page.");
    const fields = await formFields(req);
    const input = { token, password: fields.password ?? "" };
    const caller = createCaller(ctx).members;
    const joined =
      fields.mode === "sign-up" ? await caller.acceptWithSignUp(input) : await caller.acceptWithSignIn(input);
    if (!joined.token) return seeOther("/login?notice=joined-two-factor");
    const cookie = await sessionSetCookie(joined.token);
    if (!cookie) throw new Error("Accepting produced an unusable token.");
    return seeOther("/dashboard", cookie);
  } catch (err) {
    return seeOther(`${page}?${new URLSearchParams({ error: errorSentence(err, ctx.requestId) })}`);
  }
}
