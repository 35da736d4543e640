import Stripe from "stripe";
import { AppError } from "../../errors/app-error";
import { logger } from "../../logger";

export const STRIPE_UNREACHABLE_MESSAGE = "The payment provider could not be reached; try again shortly.";
export const STRIPE_REFUSED_MESSAGE =
  "The payment provider refused our request. This is a configuration problem on our side and has been logged; try again later or contact support.";

// Stripe echoes a masked key in authentication errors; logs keep none of it.
const redactKeys = (text: string) => text.replace(/\b(sk|rk|pk)_(live|test)_\S*/g, "[redacted key]");

/**
 * A Stripe failure → the one error the API answers (502 PROVIDER_UNAVAILABLE,
 * docs/decisions.md §3), told apart in message and log level: a 4xx from Stripe (a
 * wrong price id, a revoked key) is our misconfiguration, logged at error with
 * Stripe's code and message, and retrying will not help; a 5xx, 429 or a
 * network failure is Stripe being unavailable, logged at warn.
 */
export function stripeFailure(err: unknown, action: string): AppError {
  if (err instanceof AppError) return err;
  const status = err instanceof Stripe.errors.StripeError ? err.statusCode : undefined;
  if (
    err instanceof Stripe.errors.StripeError &&
    status !== undefined &&
    status >= 400 &&
    status < 500 &&
    status !== 429
  ) {
    logger().error(
      {
        action,
        stripe: {
          status,
          type: err.type,
          code: err.code ?? null,
          param: err.param ?? null,
          message: redactKeys(err.message),
          requestId: err.requestId ?? null,
        },
      },
      "Stripe refused our request: check STRIPE_SECRET_KEY and the STRIPE_PRICE_* settings",
    );
    return new AppError("PROVIDER_UNAVAILABLE", STRIPE_REFUSED_MESSAGE, { cause: err });
  }
  logger().warn(
    { action, status: status ?? null, err: redactKeys(err instanceof Error ? err.message : String(err)) },
    "Stripe could not be reached",
  );
  return new AppError("PROVIDER_UNAVAILABLE", STRIPE_UNREACHABLE_MESSAGE, { cause: err });
}
