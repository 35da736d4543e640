import { env } from "@/server/env";
import { notFoundPage, servePage, toDashboard } from "../../../billing-page";
import { billing } from "@/server/services/billing/billing-strategy";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Ctx = { params: Promise<{ token: string }> };

/** Resuming needs no confirmation (it only restores service), but it is still only a POST. */
async function resume(req: Request, ctx: Ctx): Promise<Response> {
  return servePage(req, async () => {
    const { token } = await ctx.params;
    const outcome = await billing().applyPortalAction(token, "resume");
    return outcome === "not-found" ? notFoundPage(req.method, "billing portal") : toDashboard();
  });
}

/** Opening the action's address changes nothing: back to the portal page. */
async function show(_req: Request, ctx: Ctx): Promise<Response> {
  const { token } = await ctx.params;
  return new Response(null, {
    status: 303,
    headers: { location: `${env().publicBaseUrl}/billing/portal/${encodeURIComponent(token)}` },
  });
}

export { show as GET, show as HEAD, resume as POST };
