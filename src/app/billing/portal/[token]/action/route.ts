import { localPortalAction } from "@/server/services/billing/local-portal";
import { env } from "@/server/env";

export const dynamic = "force-dynamic";

/** The portal page's form: apply the action, then back to the page (POST-redirect-GET). */
export async function POST(req: Request, ctx: { params: Promise<{ token: string }> }): Promise<Response> {
  const { token } = await ctx.params;
  const action = String((await req.formData()).get("action") ?? "");
  if (env().billingMode !== "local" || (action !== "cancel" && action !== "resume")) return new Response("Bad request", { status: 400 });
  const status = await localPortalAction(token, action);
  if (status === null) return new Response("This link is invalid or has expired.", { status: 403 });
  return new Response(null, { status: 303, headers: { location: `${env().publicBaseUrl}/billing/portal/${token}` } });
}
