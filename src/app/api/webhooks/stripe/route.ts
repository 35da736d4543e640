import Stripe from "stripe";
import { env } from "@/server/env";
import { AppError } from "@/server/errors/app-error";
import { jsonResponse, readBody } from "@/server/http/body";
import { errorResponse } from "@/server/http/error-response";
import { REQUEST_ID_HEADER, requestContextOf } from "@/server/http/request-context";
import { applyStripeEvent } from "@/server/integrations/stripe/apply-stripe-event";
import { stripe } from "@/server/integrations/stripe/stripe-client";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** Stripe's webhooks: the signature is checked on the raw body, before anything is parsed. */
export async function POST(req: Request): Promise<Response> {
  const { requestId } = requestContextOf(req.headers);
  try {
    if (env().billingMode !== "stripe") throw new AppError("NOT_FOUND", "Stripe is not configured on this service.");
    const raw = await readBody(req);
    let event: Stripe.Event;
    try {
      event = stripe().webhooks.constructEvent(raw, req.headers.get("stripe-signature") ?? "", env().stripe.webhookSecret!);
    } catch {
      throw new AppError("VALIDATION_FAILED", "Invalid Stripe-Signature.", { details: [{ path: "stripe-signature", message: "does not verify" }] });
    }
    const outcome = await applyStripeEvent(event);
    return jsonResponse({ received: true, outcome }, 200, { [REQUEST_ID_HEADER]: requestId });
  } catch (err) {
    return errorResponse(err, req, requestId);
  }
}
