import { callbackClient } from "../http/callback-client";
import { db } from "../../db/client";
import { AppError } from "../../errors/app-error";
import { attemptDelivery } from "../delivery/attempt-delivery";
import type { EventType } from "../event-envelope";
import { billingPlan } from "../../services/billing/billing-plan";
import { enforceRateLimits, POLICIES } from "../../rate-limit/rate-limiter";
import { notOwnedOrMissing } from "../../services/phone-numbers/phone-number-dto";
import { sampleEvent } from "./sample-event";
import { getDelivery } from "./webhook-deliveries";

import { EVENT_URL_FIELD as URL_FIELD } from "../../schemas/events";

/**
 * Sends a signed sample event (`data.test = true`) to the number's URL for
 * `type` now, through the same attempt as real deliveries (signing, the one
 * outbound client and its URL policy, the delivery log), and answers the
 * delivery with its attempt. A test is sent once: a failure is recorded as
 * FAILED rather than retried for a day, since the customer is watching.
 * At most 10 a minute per account (docs/decisions.md §20): the URL is the
 * customer's to choose, so tests must not become a way to flood one.
 */
export async function sendTestEvent(opts: { accountId: string; phoneNumberId: string; type: EventType; now?: Date }) {
  await enforceRateLimits([{ key: `webhook-test:${opts.accountId}`, policy: POLICIES.webhookTest }]);
  const number = await db().phoneNumber.findFirst({ where: { id: opts.phoneNumberId, accountId: opts.accountId } });
  if (!number) return notOwnedOrMissing(opts.phoneNumberId);
  const field = URL_FIELD[opts.type];
  const url = number[field];
  if (!url) {
    throw new AppError("VALIDATION_FAILED", `This number has no ${field}; set one to receive ${opts.type} events.`, {
      details: [{ path: "type", message: `the number has no ${field}` }],
    });
  }
  const plan = await billingPlan();
  const event = sampleEvent({
    type: opts.type,
    phoneNumberId: number.id,
    phoneNumber: number.phoneNumber,
    perMinuteRate: plan.perMinuteRate,
    now: opts.now,
  });
  const delivery = await db().webhookDelivery.create({
    data: {
      accountId: opts.accountId,
      eventId: event.id,
      eventType: event.type,
      callSid: event.data.callSid,
      url,
      payload: JSON.stringify(event),
      nextAttemptAt: new Date(),
    },
    select: { id: true },
  });
  const outcome = await attemptDelivery({ deliveryId: delivery.id, expectedAttempt: 0 }, { client: callbackClient() });
  if (outcome === "retry-scheduled") {
    // The retry job it scheduled finds the delivery no longer PENDING and skips.
    await db().webhookDelivery.updateMany({
      where: { id: delivery.id, status: "PENDING", attemptCount: 1 },
      data: { status: "FAILED", nextAttemptAt: null },
    });
  }
  return getDelivery({ accountId: opts.accountId, id: delivery.id });
}
