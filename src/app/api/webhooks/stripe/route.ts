import { jsonResponse, readBody } from "@/server/http/body";
import { errorResponse } from "@/server/http/error-response";
import { REQUEST_ID_HEADER, requestContextOf } from "@/server/http/request-context";
import { billing } from "@/server/services/billing/billing-strategy";
import { applyStripeEvent } from "@/server/services/billing/stripe-events/apply-stripe-event";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** Stripe's webhooks: the signature is checked on the raw body, before anything is parsed. */
export async function POST(req: Request): Promise<Response> {
  const { requestId } = requestContextOf(req.headers);
  try {
    // Local billing mode answers 404 before reading the body.
    const event = await billing().stripeWebhookEvent(() => readBody(req), req.headers.get("stripe-signature") ?? "");
    const outcome = await applyStripeEvent(event);
    return jsonResponse({ received: true, outcome }, 200, { [REQUEST_ID_HEADER]: requestId });
  } catch (err) {
    return errorResponse(err, req, requestId);
  }
}
