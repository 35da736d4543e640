import { html, notFoundPage, pageResponse, servePage, toDashboard } from "../../../billing-page";
import { billing } from "@/server/services/billing/billing-strategy";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Ctx = { params: Promise<{ token: string }> };

/** The confirmation step (GET/HEAD): says what cancelling does; only its button (a POST) cancels. */
async function confirm(req: Request, ctx: Ctx): Promise<Response> {
  return servePage(req, async () => {
    const { token } = await ctx.params;
    const view = await billing().viewPortal(token);
    if (!view) return notFoundPage(req.method, "billing portal");
    if (view.status !== "ACTIVE") {
      return pageResponse(
        "Nothing to cancel",
        html`<p data-testid="billing-result">This account's subscription is not active (status ${view.status}).</p>`,
        { method: req.method },
      );
    }
    const body = html`
<p data-testid="billing-result">Cancel the subscription of <strong>${view.email}</strong>? The account is suspended at once: calls to your numbers are rejected and numbers cannot be changed until you resume.</p>
<div class="actions">
<form method="post"><button type="submit" class="danger" data-testid="confirm-cancel">Yes, cancel the subscription</button></form>
<a href="/billing/portal/${encodeURIComponent(token)}">No, keep it</a>
</div>`;
    return pageResponse("Cancel the subscription?", body, { method: req.method });
  });
}

async function cancel(req: Request, ctx: Ctx): Promise<Response> {
  return servePage(req, async () => {
    const { token } = await ctx.params;
    const outcome = await billing().applyPortalAction(token, "cancel");
    return outcome === "not-found" ? notFoundPage(req.method, "billing portal") : toDashboard();
  });
}

export { confirm as GET, confirm as HEAD, cancel as POST };
