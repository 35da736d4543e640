import { sqlTransaction } from "../../db/sql-transaction";
import { AppError } from "../../errors/app-error";
import { wakeDeliveryWorker } from "../../webhooks/enqueue-event";
import { enforceRateLimits, POLICIES } from "../../rate-limit/rate-limiter";
import { replayMatching } from "./webhook-deliveries";
import type { DeliveryStatus } from "@/generated/prisma/enums";
import { type AuditOrigin, recordAudit } from "../audit/record-audit";

/** docs/decisions.md §8: replay reaches back at most this far. */
const REPLAY_WINDOW_MS = 14 * 24 * 60 * 60 * 1000;

/**
 * Queues again the deliveries of the account with `status` created since
 * `since` (Svix's "recover"), at most 1,000 a call and one call a minute per
 * account (docs/decisions.md §20), so a replay cannot be turned into a flood of any
 * URL. Each gets one new cycle: a delivery still queued is left as it is, so
 * a second replay (or a redeliver) neither resets nor adds attempts.
 */
export async function replayDeliveries(opts: {
  accountId: string;
  since: Date;
  status: DeliveryStatus;
  /** Only this webhook endpoint's deliveries (docs/decisions.md §15). */
  endpointId?: string;
  now?: Date;
  origin: AuditOrigin;
}) {
  const now = opts.now ?? new Date();
  if (opts.since.getTime() < now.getTime() - REPLAY_WINDOW_MS) {
    throw new AppError("VALIDATION_FAILED", "since may be at most 14 days ago.", {
      details: [{ path: "since", message: "at most 14 days ago" }],
    });
  }
  if (opts.since.getTime() > now.getTime()) {
    throw new AppError("VALIDATION_FAILED", "since may not be in the future.", {
      details: [{ path: "since", message: "not in the future" }],
    });
  }
  await enforceRateLimits([{ key: `webhook-replay:${opts.accountId}`, policy: POLICIES.webhookReplay }]);
  const result = await sqlTransaction(async (trx) => {
    const replayed = await replayMatching(trx, {
      accountId: opts.accountId,
      status: opts.status,
      since: opts.since,
      endpointId: opts.endpointId,
    });
    // A replay that matched nothing changed nothing: no entry.
    if (replayed.queued > 0)
      await recordAudit(trx, {
        accountId: opts.accountId,
        origin: opts.origin,
        action: "webhook_delivery.replayed",
        target: opts.endpointId
          ? { type: "webhook_endpoint", id: opts.endpointId }
          : { type: "account", id: opts.accountId },
        details: {
          status: opts.status,
          since: opts.since.toISOString(),
          queued: replayed.queued,
          more: replayed.more,
        },
      });
    return replayed;
  });
  if (result.queued) wakeDeliveryWorker();
  return result;
}
