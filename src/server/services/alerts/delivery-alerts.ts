import type { SqlTransaction } from "../../db/sql-transaction";
import { destinationSubject, raiseAlertIn } from "./raise-alert";

/** A delivery's last failed attempt, as the alert names it. */
export type ExhaustedDelivery = {
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
};

/**
 * Whether a delivery's last failure is an alert: not a sample event's (the customer is watching it fail), nor
 * an alert's own (an alert about an alert that could not be delivered would only cascade).
 */
export function exhaustionAlerts(d: Pick<ExhaustedDelivery, "eventType" | "payload">): boolean {
  if (d.eventType.startsWith("alert.")) return false;
  try {
    return (JSON.parse(d.payload) as { data?: { test?: unknown } }).data?.test !== true;
  } catch {
    return true;
  }
}

/**
 * alert.delivery_exhausted (docs/decisions.md §16), in the transaction that records the delivery's last failed
 * attempt (webhooks/delivery/attempt-delivery.ts): the alert, its events and its mail commit with that record
 * or not at all, so a crash between the two cannot lose it. At most once per destination and hour (raiseIn).
 */
export async function raiseDeliveryExhaustedIn(trx: SqlTransaction, d: ExhaustedDelivery): Promise<boolean> {
  const subject = await destinationSubject(trx, d.accountId, d.url, d.endpointId);
  return raiseAlertIn(trx, {
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
}
