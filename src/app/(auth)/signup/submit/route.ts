import { errorSentence, formContext, formFields, sameOrigin, seeOther } from "@/server/rest/auth-form-post";
import { sessionSetCookie } from "@/server/auth/session-cookie";
import { env } from "@/server/env";
import { AppError } from "@/server/errors/app-error";
import { createCaller } from "@/server/trpc/root";
import { NEW_KEY_COOKIE, NEW_KEY_PATH } from "../welcome/new-key-cookie";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/**
 * The sign-up form without JavaScript: `auth.register` (same rules and limits
 * as the API), a session from the login token it returns, and the first API
 * key handed to /signup/welcome in a cookie only that page receives, for ten
 * minutes, since a redirect cannot carry it safely in the URL.
 */
export async function POST(req: Request): Promise<Response> {
  const ctx = formContext(req);
  let fields: Record<string, string> = {};
  try {
    if (!sameOrigin(req)) throw new AppError("FORBIDDEN", "Sign up from this site's own sign-up page.");
    fields = await formFields(req);
    const companyName = (fields.companyName ?? "").trim() || null;
    const result = await createCaller(ctx).auth.register({
      email: fields.email ?? "",
      password: fields.password ?? "",
      companyName,
    });
    const session = await sessionSetCookie(result.token);
    const secure = env().publicBaseUrl.startsWith("https://") ? "; Secure" : "";
    const res = seeOther(NEW_KEY_PATH, session ?? undefined);
    res.headers.append(
      "set-cookie",
      `${NEW_KEY_COOKIE}=${result.apiKey}; Path=${NEW_KEY_PATH}; Max-Age=600; HttpOnly; SameSite=Strict${secure}`,
    );
    return res;
  } catch (err) {
    const q = new URLSearchParams({
      error: errorSentence(err, ctx.requestId),
      email: (fields.email ?? "").slice(0, 254),
      companyName: (fields.companyName ?? "").slice(0, 200),
    });
    return seeOther(`/signup?${q}`);
  }
}
