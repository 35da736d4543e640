import { callbackClient } from "../../webhooks/http/callback-client";
import { db } from "../../db/client";
import { AppError } from "../../errors/app-error";
import { settledValues } from "../../jobs/delivery-queue/postgres-delivery-queue";
import { attemptDelivery } from "./attempt-delivery";
import type { EventType } from "../../webhooks/event-envelope";
import { billingPlan } from "../billing/billing-plan";
import { enforceRateLimits, POLICIES } from "../../rate-limit/rate-limiter";
import { notOwnedOrMissing } from "../phone-numbers/phone-number-dto";
import { SAMPLE_CALLED, sampleEvent } from "./sample-event";
import { getDelivery } from "./webhook-deliveries";

import { EVENT_TYPES, EVENT_URL_FIELD as URL_FIELD } from "../../../shared/schemas/events";

type Destination = { url: string; endpointId: string | null; phoneNumberId: string | null; phoneNumber: string };

/** Where a test goes: the number's URL for the type, or the account endpoint asked for. */
async function destinationOf(opts: {
  accountId: string;
  phoneNumberId?: string;
  endpointId?: string;
  type: EventType;
}): Promise<Destination> {
  if (opts.endpointId) {
    if (opts.type === "call.started")
      throw new AppError(
        "VALIDATION_FAILED",
        "call.started goes to a number's onCallStartUrl only, never to an endpoint.",
        {
          details: [{ path: "type", message: "call.started cannot be sent to an endpoint" }],
        },
      );
    const endpoint = await db().webhookEndpoint.findFirst({
      where: { id: opts.endpointId, accountId: opts.accountId },
      select: { id: true, url: true },
    });
    if (!endpoint) throw new AppError("NOT_FOUND", "No such webhook endpoint.");
    return { url: endpoint.url, endpointId: endpoint.id, phoneNumberId: null, phoneNumber: SAMPLE_CALLED };
  }
  const type = opts.type;
  if (!(EVENT_TYPES as readonly string[]).includes(type))
    throw new AppError(
      "VALIDATION_FAILED",
      `A number's URLs receive ${EVENT_TYPES.join(", ")}; send ${type} to an endpoint.`,
      {
        details: [{ path: "type", message: `must be one of ${EVENT_TYPES.join(", ")} for a number` }],
      },
    );
  const number = await db().phoneNumber.findFirst({ where: { id: opts.phoneNumberId, accountId: opts.accountId } });
  if (!number) return notOwnedOrMissing(opts.phoneNumberId ?? "");
  const field = URL_FIELD[type as (typeof EVENT_TYPES)[number]];
  const url = number[field];
  if (!url) {
    throw new AppError("VALIDATION_FAILED", `This number has no ${field}; set one to receive ${type} events.`, {
      details: [{ path: "type", message: `the number has no ${field}` }],
    });
  }
  return { url, endpointId: null, phoneNumberId: number.id, phoneNumber: number.phoneNumber };
}

/**
 * Sends a signed sample event (`data.test = true`) to the number's URL for
 * `type`, or to one of the account's endpoints (docs/decisions.md §15), now, through the same attempt
 * as real deliveries (signing, the one outbound client and its URL policy, the delivery log), and
 * answers the delivery with its attempt. A test is sent once: a failure is recorded as
 * FAILED rather than retried for a day, since the customer is watching.
 * At most 10 a minute per account (docs/decisions.md §20): the URL is the
 * customer's to choose, so tests must not become a way to flood one.
 */
export async function sendTestEvent(opts: {
  accountId: string;
  phoneNumberId?: string;
  endpointId?: string;
  type: EventType;
  now?: Date;
}) {
  await enforceRateLimits([{ key: `webhook-test:${opts.accountId}`, policy: POLICIES.webhookTest }]);
  const destination = await destinationOf(opts);
  const plan = await billingPlan();
  const event = sampleEvent({
    type: opts.type,
    phoneNumberId: destination.phoneNumberId,
    phoneNumber: destination.phoneNumber,
    perMinuteRate: plan.perMinuteRate,
    now: opts.now,
  });
  const delivery = await db().webhookDelivery.create({
    data: {
      accountId: opts.accountId,
      eventId: event.id,
      eventType: event.type,
      callSid: event.data.callSid,
      url: destination.url,
      endpointId: destination.endpointId,
      payload: JSON.stringify(event),
      nextAttemptAt: new Date(),
    },
    select: { id: true },
  });
  const outcome = await attemptDelivery({ deliveryId: delivery.id, expectedAttempt: 0 }, { client: callbackClient() });
  if (outcome === "retry-scheduled") {
    // A test event is sent once: the retry its attempt scheduled is taken off the queue with it.
    await db().webhookDelivery.updateMany({
      where: { id: delivery.id, status: "PENDING", attemptCount: 1 },
      data: { status: "FAILED", nextAttemptAt: null, ...settledValues(null) },
    });
  }
  return getDelivery({ accountId: opts.accountId, id: delivery.id });
}
