import { statusLabel } from "@/shared/format";
import { html, notFoundPage, pageResponse, planSentence, servePage, toDashboard } from "../../billing-page";
import { billing, type CheckoutNotShown } from "@/server/services/billing/billing-strategy";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Ctx = { params: Promise<{ token: string }> };

function redirectOrError(result: CheckoutNotShown, method: string): Response {
  if (result.outcome === "redirect")
    return new Response(null, { status: 303, headers: { location: result.url, "cache-control": "no-store" } });
  if (result.outcome === "provider-unavailable") {
    return pageResponse(
      "Checkout not available",
      html`<p data-testid="billing-result">${result.message} Reload this page in a minute.</p>`,
      { status: 502, method },
    );
  }
  return notFoundPage(method, "checkout");
}

/** GET and HEAD show the plan and a Pay button; nothing changes (docs/decisions.md §4). */
async function show(req: Request, ctx: Ctx): Promise<Response> {
  return servePage(req, async () => {
    const { token } = await ctx.params;
    const view = await billing().viewCheckoutLink(token);
    if (view.outcome !== "show") return redirectOrError(view, req.method);
    const payable = view.status !== "ACTIVE";
    const body = html`
<p>Account <strong>${view.email}</strong> · status <strong data-testid="account-status" title="${view.status}">${statusLabel(view.status)}</strong></p>
<p data-testid="billing-plan">Plan: ${planSentence(view.plan)}</p>
${
  payable
    ? html`<div class="actions"><form method="post"><button type="submit" data-testid="pay">Pay and activate</button></form></div>`
    : html`<p data-testid="billing-result">Your account is already active. Nothing more to pay.</p>`
}
<p class="muted">Local billing mode: no payment provider is configured, so the Pay button stands in for paying.</p>`;
    return pageResponse("Routekit checkout", body, { method: req.method });
  });
}

/** The Pay button: completes payment once, then back to the dashboard. */
async function pay(req: Request, ctx: Ctx): Promise<Response> {
  return servePage(req, async () => {
    const { token } = await ctx.params;
    const result = await billing().payCheckoutLink(token);
    return result.outcome === "paid" ? toDashboard() : redirectOrError(result, req.method);
  });
}

export { show as GET, show as HEAD, pay as POST };
