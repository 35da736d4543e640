import { sqlTransaction } from "../../db/sql-transaction";
import { AppError } from "../../errors/app-error";
import { DELIVERY_QUEUE } from "../../events/enqueue-event";
import { wakeWorker } from "../../jobs/job-queue";
import { restartCycles } from "./webhook-deliveries";
import type { DeliveryStatus } from "@/generated/prisma/enums";

/** docs/decisions.md §8: replay reaches back at most this far. */
export const REPLAY_WINDOW_MS = 14 * 24 * 60 * 60 * 1000;

/**
 * Queues again every delivery of the account with `status` created since
 * `since` (Svix's "recover"). Each matching delivery gets one new cycle: the
 * restart is the same conditional update as a single redeliver, so a second
 * replay at once (or a redeliver) finds them already waiting and queues none.
 */
export async function replayDeliveries(opts: { accountId: string; since: Date; status: DeliveryStatus; now?: Date }) {
  const now = opts.now ?? new Date();
  if (opts.since.getTime() < now.getTime() - REPLAY_WINDOW_MS) {
    throw new AppError("VALIDATION_FAILED", "since may be at most 14 days ago.", { details: [{ path: "since", message: "at most 14 days ago" }] });
  }
  if (opts.since.getTime() > now.getTime()) {
    throw new AppError("VALIDATION_FAILED", "since may not be in the future.", { details: [{ path: "since", message: "not in the future" }] });
  }
  const queued = await sqlTransaction((trx) => restartCycles(trx, { accountId: opts.accountId, status: opts.status, since: opts.since }));
  if (queued) wakeWorker(DELIVERY_QUEUE);
  return { queued };
}
