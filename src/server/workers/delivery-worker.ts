import { callbackClient } from "../webhooks/http/callback-client";
import { db } from "../db/client";
import { registerFetchLoop } from "../jobs/job-queue";
import type { ClaimedDelivery, ClaimRequest, DeliveryQueue } from "../jobs/delivery-queue/delivery-queue";
import { DELIVERY_QUEUE, deliveryQueue } from "../jobs/delivery-queue/postgres-delivery-queue";
import { logger } from "../logger";
import { attemptDelivery, type AttemptDeps } from "../services/deliveries/attempt-delivery";
import { DeliveryFairness, type FairnessConfig } from "./delivery-fairness";

const ATTEMPT_RETENTION_DAYS = 30;

/**
 * Attempts in flight on one instance. Each waits on its receiver (up to 10 s) holding no database
 * connection, so many can: 200 hanging receivers cost 200 sockets, not workers.
 */
const MAX_IN_FLIGHT = 200;
/**
 * Attempts one destination (a lane: one URL of one account) may have in flight on one instance while other
 * work waits, and attempts one account may have in flight to its destinations not known fast, together
 * (delivery-fairness.ts).
 */
export const ACCOUNT_IN_FLIGHT_CAP = 10;
/** Slots only destinations that last answered fast may take (delivery-fairness.ts). */
const RESERVED_SLOTS = 40;
/** An attempt answered within this, and not a failure, makes its destination fast. */
const FAST_ANSWER_MS = 1_000;
/**
 * A backed-off endpoint's deliveries wait until the back-off ends, spread over at least this or a quarter of
 * the wait, so its end releases a trickle, not the whole backlog at once.
 */
const BACKOFF_SPREAD_MS = 5_000;
/** While one destination bursts past its cap, other accounts' work is looked for at least this often (and at once on a local send). */
const FAIR_RECHECK_MS = 50;
/** Destinations remembered as fast or slow, at most (the least recently answered forgotten first). */
const FAST_MEMORY = 10_000;
/** A backed-off destination's new deliveries are looked at this often at most, not one by one (delivery-fairness.ts). */
const BACKOFF_SKIP_MS = 5_000;
/** Deliveries taken in one claim: one statement for many when a backlog waits, and free slots filled soon. */
const CLAIM_MAX = 50;
/** With slots all taken, wait this long after one frees before claiming, so one claim fills several. */
const REFILL_COALESCE_MS = 5;
/** Put-backs are written together. */
const PUT_BACK_FLUSH_MS = 20;

export type DeliveryWorkerOptions = {
  deps?: Partial<AttemptDeps>;
  maxInFlight?: number;
  accountCap?: number;
  reservedSlots?: number;
  /** How often to look for deliveries when none are known to wait (those queued by this process wake it at once). */
  pollingIntervalSeconds?: number;
};

/**
 * Runs deliveries on this instance (docs/decisions.md §8): deliveries are claimed from the queue
 * (jobs/delivery-queue/) as slots free up, within the limits the fairness policy sets (delivery-fairness.ts),
 * and each attempt runs on its own, so a slow receiver delays nothing but its own attempt. A delivery whose
 * endpoint is backed off goes back to the queue, due when the back-off ends, without an attempt. The lease of
 * every delivery held is renewed while it runs; a crashed instance's come back to any instance when theirs ends.
 */
export async function startDeliveryWorker(opts: DeliveryWorkerOptions = {}): Promise<void> {
  const maxInFlight = opts.maxInFlight ?? MAX_IN_FLIGHT;
  const fairness = new DeliveryFairness({
    maxInFlight,
    accountCap: opts.accountCap ?? ACCOUNT_IN_FLIGHT_CAP,
    reserved: Math.min(opts.reservedSlots ?? RESERVED_SLOTS, Math.floor(maxInFlight / 2)),
    claimMax: CLAIM_MAX,
    fairRecheckMs: FAIR_RECHECK_MS,
    fastAnswerMs: FAST_ANSWER_MS,
    memory: FAST_MEMORY,
    backoffSkipMs: BACKOFF_SKIP_MS,
  } satisfies FairnessConfig);
  const loop = new DeliveryLoop(deliveryQueue(), fairness, {
    deps: { client: callbackClient(), ...opts.deps },
    pollMs: (opts.pollingIntervalSeconds ?? 0.25) * 1000,
  });
  registerFetchLoop(DELIVERY_QUEUE, { wake: () => loop.wake(), stop: () => loop.stop() });
  void loop.run();
}

/** The loop: claims what the policy allows, runs each attempt, renews leases, and gives slots back. */
class DeliveryLoop {
  private stopped = false;
  /** Work may wait (queued here, or a slot freed while work waited): do not sleep after this round. */
  private again = false;
  private refill: NodeJS.Timeout | null = null;
  private putBacks: { id: string; until: Date }[] = [];
  private flushTimer: NodeJS.Timeout | null = null;
  private signal: (() => void) | null = null;
  private idle: (() => void) | null = null;
  private readonly heartbeat: NodeJS.Timeout;
  private loopDone: Promise<void> = Promise.resolve();

  constructor(
    private readonly queue: DeliveryQueue,
    private readonly fairness: DeliveryFairness,
    private readonly cfg: { deps: AttemptDeps; pollMs: number },
  ) {
    // Several renewals per lease, so one slow or lost renewal does not let a live attempt's lease run out.
    this.heartbeat = setInterval(() => void this.renew(), (queue.leaseSeconds * 1000) / 4);
    this.heartbeat.unref();
  }

  /** Deliveries were just queued by this process: look now, other accounts' included. */
  wake(): void {
    this.fairness.othersMayWait();
    this.again = true;
    this.signal?.();
  }

  run(): Promise<void> {
    this.loopDone = this.claimLoop();
    return this.loopDone;
  }

  private async claimLoop(): Promise<void> {
    while (!this.stopped) {
      this.again = false;
      let more = false;
      try {
        more = await this.round();
      } catch (err) {
        logger().error({ err }, "deliveries could not be claimed");
      }
      if (!more && !this.again && !this.stopped) await this.pause(this.cfg.pollMs);
    }
  }

  /** One round of claims; true when more work is known to wait and slots are free for it. */
  private async round(): Promise<boolean> {
    const { requests, want, bursting } = this.fairness.start();
    let got = 0;
    for (const req of requests) {
      const limit = Math.min(req.limit, want - got);
      if (limit <= 0) break;
      got += await this.claim({ ...req, limit });
    }
    this.fairness.mainDone(got, want, bursting);
    const burst = this.fairness.burst();
    const burstGot = burst ? await this.claim(burst) : 0;
    return this.fairness.finish(burst ? { got: burstGot, limit: burst.limit } : null);
  }

  private async claim(req: ClaimRequest): Promise<number> {
    if (this.stopped) return 0;
    const claimed = await this.queue.claim(req);
    // Claimed as the worker stopped: their lease brings them back to another instance.
    if (this.stopped) return 0;
    for (const d of claimed) {
      this.fairness.take(d);
      void this.start(d);
    }
    return claimed.length;
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

  /** A slot freed: if work was held back for want of one, claim again soon (a few frees share one claim). */
  private release(id: string, result?: Parameters<DeliveryFairness["release"]>[1]): void {
    this.fairness.release(id, result);
    if (this.fairness.inFlight === 0) this.idle?.();
    if (!this.fairness.wanting || this.stopped) return;
    this.refill ??= setTimeout(() => {
      this.refill = null;
      this.again = true;
      this.signal?.();
    }, REFILL_COALESCE_MS);
  }

  private async start(d: ClaimedDelivery): Promise<void> {
    let deferUntil: Date | null = null;
    const admit: NonNullable<AttemptDeps["admit"]> = (target) => {
      const now = Date.now();
      // A redeliver the customer asked for goes out now: they have likely just fixed the endpoint.
      if (target.endpointBackoffUntil && target.endpointBackoffUntil.getTime() > now && !target.requested) {
        const wait = target.endpointBackoffUntil.getTime() - now;
        this.fairness.backOff(d.lane, target.endpointBackoffUntil.getTime());
        deferUntil = new Date(
          target.endpointBackoffUntil.getTime() + Math.random() * Math.max(BACKOFF_SPREAD_MS, wait / 4),
        );
        return null;
      }
      return { release: (result) => this.release(d.id, result) };
    };
    try {
      const outcome = await attemptDelivery(
        { deliveryId: d.id, expectedAttempt: d.attemptCount, traceparent: d.traceparent ?? undefined },
        { ...this.cfg.deps, admit },
      );
      if (outcome === "deferred" && deferUntil) this.putBack(d.id, deferUntil);
    } catch (err) {
      // Our own failure (the database), not the receiver's: the lease brings the delivery back, and an
      // attempt already recorded is fenced off by its count.
      logger().error({ err, deliveryId: d.id }, "delivery attempt could not be recorded");
    } finally {
      this.release(d.id);
    }
  }

  /** Not now: the same delivery, due later. */
  private putBack(id: string, until: Date): void {
    this.putBacks.push({ id, until });
    this.flushTimer ??= setTimeout(() => void this.flush(), PUT_BACK_FLUSH_MS);
  }

  private async flush(): Promise<void> {
    this.flushTimer = null;
    const later = this.putBacks;
    this.putBacks = [];
    // Lost, they come back when their lease ends, and are put back again.
    await this.queue
      .putBack(later)
      .catch((err: unknown) => logger().warn({ err, count: later.length }, "deliveries could not be put back"));
  }

  private async renew(): Promise<void> {
    const held = this.fairness.heldIds();
    if (!held.length) return;
    await this.queue
      .renew(held)
      .catch((err: unknown) => logger().warn({ err }, "delivery leases could not be renewed"));
  }

  /** Stops claiming and waits (up to 11 s, one attempt's timeout) for the attempts in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.signal?.();
    if (this.refill) clearTimeout(this.refill);
    await this.loopDone;
    if (this.fairness.inFlight) {
      await new Promise<void>((resolve) => {
        this.idle = resolve;
        setTimeout(resolve, 11_000).unref();
      });
    }
    clearInterval(this.heartbeat);
    if (this.flushTimer) clearTimeout(this.flushTimer);
    await this.flush();
  }
}

export async function pruneOldAttempts(now: Date = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - ATTEMPT_RETENTION_DAYS * 24 * 3600_000);
  const { count } = await db().webhookAttempt.deleteMany({ where: { attemptedAt: { lt: cutoff } } });
  return count;
}
