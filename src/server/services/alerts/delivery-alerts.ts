import { kysely } from "../../db/kysely";
import { logger } from "../../logger";
import { destinationSubject, raiseAlert } from "./raise-alert";

/**
 * alert.delivery_exhausted (docs/decisions.md §16), raised by the delivery worker right after it records a
 * delivery's last failed attempt. Not for a sample event (the customer is watching it fail) nor for an
 * alert's own delivery (an alert about an alert that could not be delivered would only cascade). Never throws.
 */
export async function noteDeliveryExhausted(d: {
  deliveryId: string;
  accountId: string;
  eventId: string;
  eventType: string;
  url: string;
  endpointId: string | null;
  payload: string;
  attempts: number;
  statusCode: number | null;
  error: string | null;
  at: Date;
}): Promise<void> {
  if (d.eventType.startsWith("alert.")) return;
  try {
    if ((JSON.parse(d.payload) as { data?: { test?: unknown } }).data?.test === true) return;
    const subject = await destinationSubject(kysely(), d.accountId, d.url, d.endpointId);
    await raiseAlert({
      accountId: d.accountId,
      type: "alert.delivery_exhausted",
      subject,
      since: d.at,
      details: {
        deliveryId: d.deliveryId,
        eventId: d.eventId,
        eventType: d.eventType,
        attempts: d.attempts,
        lastStatusCode: d.statusCode,
        lastError: d.error,
      },
      now: d.at,
    });
  } catch (err) {
    logger().warn(
      { err: err instanceof Error ? err.message : String(err), deliveryId: d.deliveryId },
      "delivery_exhausted alert not raised",
    );
  }
}
