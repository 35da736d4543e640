import { statusLabel } from "@/shared/format";
import { html, notFoundPage, pageResponse, planSentence, servePage } from "../../billing-page";
import { billing } from "@/server/services/billing/billing-strategy";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** Local billing mode's portal (GET/HEAD): the plan, and cancel (after a confirmation) or resume. */
async function show(req: Request, ctx: { params: Promise<{ token: string }> }): Promise<Response> {
  return servePage(req, async () => {
    const { token } = await ctx.params;
    const view = await billing().viewPortal(token);
    if (!view) return notFoundPage(req.method, "billing portal");
    const base = `/billing/portal/${encodeURIComponent(token)}`;
    const body = html`
<p>Account <strong>${view.email}</strong> · status <strong data-testid="account-status" title="${view.status}">${statusLabel(view.status)}</strong></p>
<p data-testid="billing-plan">Plan: ${planSentence(view.plan)}</p>
<div class="actions">
${view.status === "ACTIVE" ? html`<a href="${base}/cancel" data-testid="cancel">Cancel subscription…</a>` : ""}
${view.status === "SUSPENDED" ? html`<form method="post" action="${base}/resume"><button type="submit" class="ok" data-testid="resume">Resume subscription</button></form>` : ""}
</div>
${view.status === "INACTIVE" ? html`<p>Checkout is not complete yet: start it from the billing page of your dashboard.</p>` : ""}
<p class="muted">Local billing mode: no payment provider is configured; cancelling suspends the account, resuming re-activates it. This link works for one action within an hour.</p>`;
    return pageResponse("Routekit billing", body, { method: req.method });
  });
}

export { show as GET, show as HEAD };
