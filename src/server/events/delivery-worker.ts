import type PgBoss from "pg-boss";
import { callbackClient } from "../callbacks/callback-client";
import { db } from "../db/client";
import { sqlTransaction } from "../db/sql-transaction";
import { deliveryLease, jobQueue, onTransaction, registerFetchLoop } from "../jobs/job-queue";
import { logger } from "../logger";
import { attemptDelivery, type Admission, type AttemptDeps, type AttemptTarget } from "./attempt-delivery";
import { DELIVERY_QUEUE, scheduleAttempt, type DeliveryJob } from "./enqueue-event";

export const ATTEMPT_RETENTION_DAYS = 30;

/**
 * Attempts in flight on one instance. Each waits on its receiver (up to 10 s)
 * holding no database connection, so many can: 200 hanging receivers cost
 * 200 sockets, not workers.
 */
export const MAX_IN_FLIGHT = 200;
/**
 * Attempts one account may have in flight on one instance: a customer whose
 * endpoint hangs holds at most 10 of the 200 slots, so it takes 20 such
 * customers at once to fill an instance, and the endpoint's back-off
 * (endpoint-health.ts) frees their slots within seconds. 10 in flight still
 * carries 1,000 events/s per account to an endpoint answering in 10 ms.
 */
export const ACCOUNT_IN_FLIGHT_CAP = 10;
/** A job over its account's cap waits this long (plus up to as much again, spread) before it is tried again. */
export const CAP_DEFER_MS = 500;
/** Jobs taken in one fetch: one query for many jobs when a backlog waits, and free slots filled soon. */
const FETCH_MAX = 50;
/** With slots all taken, wait this long after one frees before fetching, so one fetch fills several. */
const REFILL_COALESCE_MS = 5;
/** Finished jobs are marked complete together: a completion lost in a crash only re-runs a job that then skips. */
const COMPLETE_FLUSH_MS = 20;

export type DeliveryWorkerOptions = {
  deps?: Partial<AttemptDeps>;
  maxInFlight?: number;
  accountCap?: number;
  /** How often to look for jobs when none are known to wait (jobs sent by this process wake it at once). */
  pollingIntervalSeconds?: number;
};

/**
 * Runs deliveries on this instance (docs/decisions.md §8): jobs are fetched from
 * pg-boss as slots free up and each attempt runs on its own, so a slow
 * receiver delays nothing but its own attempt. Before an attempt, a job whose
 * account is at its cap, or whose endpoint is backed off, is put back for
 * later without being attempted (a new job for the same attempt, in one
 * transaction with completing this one), so the customer's retry schedule is
 * not spent on our own scheduling. A job is leased; the lease of every
 * attempt in flight is renewed while it runs, and a crashed instance's jobs
 * come back to any instance when their lease runs out.
 */
export async function startDeliveryWorker(opts: DeliveryWorkerOptions = {}): Promise<void> {
  const boss = await jobQueue();
  const lease = await deliveryLease();
  const loop = new DeliveryLoop(boss, lease, {
    deps: { client: callbackClient(), ...opts.deps },
    maxInFlight: opts.maxInFlight ?? MAX_IN_FLIGHT,
    accountCap: opts.accountCap ?? ACCOUNT_IN_FLIGHT_CAP,
    pollMs: (opts.pollingIntervalSeconds ?? 0.25) * 1000,
  });
  registerFetchLoop(DELIVERY_QUEUE, { wake: () => loop.wake(), stop: () => loop.stop() });
  void loop.run();
}

type Lease = Awaited<ReturnType<typeof deliveryLease>>;
type Job = PgBoss.Job<DeliveryJob>;

class DeliveryLoop {
  private readonly running = new Set<string>();
  private readonly perAccount = new Map<string, number>();
  private completed: string[] = [];
  private completeTimer: NodeJS.Timeout | null = null;
  private stopped = false;
  private backlog = false;
  private signal: (() => void) | null = null;
  private idle: (() => void) | null = null;
  private readonly heartbeat: NodeJS.Timeout;
  private loopDone: Promise<void> = Promise.resolve();

  constructor(
    private readonly boss: PgBoss,
    private readonly lease: Lease,
    private readonly cfg: { deps: AttemptDeps; maxInFlight: number; accountCap: number; pollMs: number },
  ) {
    // Several renewals per lease, so one slow or lost renewal does not let a live attempt's job expire.
    this.heartbeat = setInterval(() => void this.renew(), (lease.seconds * 1000) / 4);
    this.heartbeat.unref();
  }

  wake(): void {
    this.backlog = true;
    this.signal?.();
  }

  run(): Promise<void> {
    this.loopDone = this.fetchLoop();
    return this.loopDone;
  }

  private async fetchLoop(): Promise<void> {
    while (!this.stopped) {
      const free = this.cfg.maxInFlight - this.running.size;
      if (free <= 0) {
        await this.pause(this.cfg.pollMs);
        if (this.running.size < this.cfg.maxInFlight) await new Promise((r) => setTimeout(r, REFILL_COALESCE_MS));
        continue;
      }
      const want = Math.min(free, FETCH_MAX);
      this.backlog = false;
      let jobs: Job[] = [];
      try {
        jobs = await this.boss.fetch<DeliveryJob>(DELIVERY_QUEUE, { batchSize: want });
      } catch (err) {
        logger().error({ err }, "delivery jobs could not be fetched");
      }
      if (this.stopped) {
        // Fetched as the queue stopped: their lease brings them back to another instance.
        break;
      }
      for (const job of jobs) void this.start(job);
      // A full fetch means more wait; otherwise sleep until woken (a send here, or a slot after a backlog) or the poll.
      if (jobs.length < want && !this.backlog) await this.pause(this.cfg.pollMs);
    }
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const self = this;
      function done() {
        clearTimeout(timer);
        if (self.signal === done) self.signal = null;
        resolve();
      }
      this.signal = done;
    });
  }

  private async start(job: Job): Promise<void> {
    this.running.add(job.id);
    let deferUntil: Date | null = null;
    const admit = (target: AttemptTarget): Admission => {
      const now = Date.now();
      // A redeliver the customer asked for goes out now: they have likely just fixed the endpoint.
      if (target.endpointBackoffUntil && target.endpointBackoffUntil.getTime() > now && !target.requested) {
        // Spread over a few seconds, so the jobs held back do not all probe the endpoint at the same moment.
        deferUntil = new Date(target.endpointBackoffUntil.getTime() + Math.random() * 5_000);
        return null;
      }
      const n = this.perAccount.get(target.accountId) ?? 0;
      if (n >= this.cfg.accountCap) {
        deferUntil = new Date(now + CAP_DEFER_MS * (1 + Math.random()));
        return null;
      }
      this.perAccount.set(target.accountId, n + 1);
      let released = false;
      return {
        release: () => {
          if (released) return;
          released = true;
          const left = (this.perAccount.get(target.accountId) ?? 1) - 1;
          if (left > 0) this.perAccount.set(target.accountId, left);
          else this.perAccount.delete(target.accountId);
        },
      };
    };
    try {
      const outcome = await attemptDelivery(job.data, { ...this.cfg.deps, admit });
      if (outcome === "deferred" && deferUntil) await this.defer(job, deferUntil);
      else this.complete(job.id);
    } catch (err) {
      // Our own failure (the database), not the receiver's: pg-boss retries the job; an attempt already recorded is skipped then.
      logger().error({ err, deliveryId: job.data.deliveryId }, "delivery attempt could not be recorded");
      await this.boss.fail(DELIVERY_QUEUE, job.id, { message: err instanceof Error ? err.message : String(err) }).catch(() => undefined);
    } finally {
      this.running.delete(job.id);
      if (this.running.size === 0) this.idle?.();
      // Slots were all taken: more jobs may wait behind them.
      if (this.running.size === this.cfg.maxInFlight - 1) this.wake();
    }
  }

  /** Not now: the same attempt as a new job for later, and this one done, together. */
  private async defer(job: Job, until: Date): Promise<void> {
    await sqlTransaction(async (trx) => {
      const tx = onTransaction(trx);
      await scheduleAttempt(tx, job.data, until);
      await this.boss.complete(DELIVERY_QUEUE, job.id, { deferredUntil: until.toISOString() }, { db: tx });
    });
  }

  private complete(id: string): void {
    this.completed.push(id);
    this.completeTimer ??= setTimeout(() => void this.flush(), COMPLETE_FLUSH_MS);
  }

  private async flush(): Promise<void> {
    this.completeTimer = null;
    const ids = this.completed;
    this.completed = [];
    if (!ids.length) return;
    // Lost, the jobs expire and run again, and skip: their attempts are recorded.
    await this.boss.complete(DELIVERY_QUEUE, ids).catch((err: unknown) => logger().warn({ err, count: ids.length }, "delivery jobs could not be marked complete"));
  }

  private async renew(): Promise<void> {
    if (!this.running.size) return;
    await this.lease.renew(DELIVERY_QUEUE, [...this.running]).catch((err: unknown) => logger().warn({ err }, "delivery leases could not be renewed"));
  }

  /** Stops fetching and waits (up to 11 s, one attempt's timeout) for the attempts in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.signal?.();
    await this.loopDone;
    if (this.running.size) {
      await new Promise<void>((resolve) => {
        this.idle = resolve;
        setTimeout(resolve, 11_000).unref();
      });
    }
    clearInterval(this.heartbeat);
    if (this.completeTimer) clearTimeout(this.completeTimer);
    await this.flush();
  }
}

export async function pruneOldAttempts(now: Date = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - ATTEMPT_RETENTION_DAYS * 24 * 3600_000);
  const { count } = await db().webhookAttempt.deleteMany({ where: { attemptedAt: { lt: cutoff } } });
  return count;
}
