import { db } from "../db/client";
import { CallbackRequestError, type CallbackClient } from "../callbacks/callback-http-client";
import { nextRetry, parseRetryAfter } from "./retry-schedule";
import { scheduleAttempt, type DeliveryJob } from "./enqueue-event";
import { signingSecrets } from "./webhook-secrets";
import { webhookHeaders } from "./webhook-signature";

export const ATTEMPT_TIMEOUT_MS = 10_000;
export const EXCERPT_BYTES = 1024;

export type AttemptDeps = { client: CallbackClient; now?: () => Date; random?: () => number; timeoutMs?: number };
export type AttemptOutcome = "delivered" | "retry-scheduled" | "failed" | "skipped";

/**
 * One attempt of one delivery: sign, POST through the one outbound client,
 * record the attempt and decide what comes next, all of it in one
 * transaction with the next attempt's job. A job whose attempt was already
 * made (a re-run after a crash, or a schedule a manual retry superseded) is
 * skipped, so it never sends twice.
 */
export async function attemptDelivery(job: DeliveryJob, deps: AttemptDeps): Promise<AttemptOutcome> {
  const now = deps.now ?? (() => new Date());
  const delivery = await db().webhookDelivery.findUnique({
    where: { id: job.deliveryId },
    include: { account: { select: { webhookSecretEnc: true, previousWebhookSecretEnc: true, previousWebhookSecretExpiresAt: true } } },
  });
  if (!delivery || delivery.status !== "PENDING" || delivery.attemptCount !== job.expectedAttempt) return "skipped";

  const startedAt = now();
  const headers = webhookHeaders({ id: delivery.eventId, body: delivery.payload, secrets: signingSecrets(delivery.account, startedAt), now: startedAt });
  let statusCode: number | null = null;
  let excerpt: string | null = null;
  let error: string | null = null;
  let retryAfter: number | null = null;
  let latencyMs: number;
  let retryable = true;
  const clock = performance.now();
  try {
    const res = await deps.client.send({ url: delivery.url, headers, body: delivery.payload, timeoutMs: deps.timeoutMs ?? ATTEMPT_TIMEOUT_MS, maxResponseBytes: EXCERPT_BYTES });
    statusCode = res.status;
    excerpt = res.body;
    latencyMs = Math.round(res.durationMs);
    retryAfter = parseRetryAfter(res.headers["retry-after"], startedAt);
  } catch (err) {
    latencyMs = Math.round(performance.now() - clock);
    if (err instanceof CallbackRequestError) {
      error = `${err.kind}: ${err.message}`;
      // A URL our policy now refuses will not get better by waiting.
      retryable = err.kind !== "invalid_url";
    } else {
      error = "internal: the request could not be made";
    }
  }

  const ok = statusCode !== null && statusCode >= 200 && statusCode < 300;
  const cycleAttempts = delivery.cycleAttempts + 1;
  const decision = ok ? null : retryable ? nextRetry({ attempt: cycleAttempts, status: statusCode, retryAfterSeconds: retryAfter, random: deps.random }) : { retry: false as const, reason: "not retryable" };
  const finishedAt = now();

  return db().$transaction(async (tx) => {
    await tx.webhookAttempt.create({
      data: { deliveryId: delivery.id, attemptedAt: startedAt, url: delivery.url, statusCode, latencyMs, responseExcerpt: excerpt, error },
    });
    const common = { attemptCount: delivery.attemptCount + 1, cycleAttempts, lastAttemptAt: startedAt };
    const outcome: AttemptOutcome = ok ? "delivered" : decision?.retry ? "retry-scheduled" : "failed";
    const nextAttemptAt = decision?.retry ? new Date(finishedAt.getTime() + decision.delayMs) : null;
    // Conditional on the count we read: if another attempt of this delivery was
    // recorded meanwhile, ours stays in the log but does not rewrite the state.
    const { count } = await tx.webhookDelivery.updateMany({
      where: { id: delivery.id, attemptCount: delivery.attemptCount },
      data: {
        ...common,
        nextAttemptAt,
        ...(outcome === "delivered" && { status: "DELIVERED" as const, deliveredAt: finishedAt }),
        ...(outcome === "failed" && { status: "FAILED" as const }),
      },
    });
    if (count === 0) return "skipped" as const;
    if (nextAttemptAt) await scheduleAttempt(tx, { deliveryId: delivery.id, expectedAttempt: common.attemptCount }, nextAttemptAt);
    return outcome;
  });
}
