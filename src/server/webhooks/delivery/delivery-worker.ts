import type PgBoss from "pg-boss";
import { callbackClient } from "../http/callback-client";
import { db } from "../../db/client";
import { deliveryClaims, deliveryLease, jobQueue, registerFetchLoop } from "../../jobs/job-queue";
import { logger } from "../../logger";
import { attemptDelivery, type Admission, type AttemptDeps, type AttemptTarget } from "./attempt-delivery";
import { DELIVERY_QUEUE, type DeliveryJob } from "../enqueue-event";

export const ATTEMPT_RETENTION_DAYS = 30;

/**
 * Attempts in flight on one instance. Each waits on its receiver (up to 10 s)
 * holding no database connection, so many can: 200 hanging receivers cost
 * 200 sockets, not workers.
 */
export const MAX_IN_FLIGHT = 200;
/**
 * Attempts one account may have in flight on one instance while other
 * accounts have work waiting: a customer whose endpoint hangs holds at most
 * 10 slots. When no other account's work is due, an account whose endpoint
 * answers fast may take more (up to MAX_IN_FLIGHT - RESERVED_SLOTS), so one
 * customer's backlog drains at the instance's rate: the cap bounds fairness,
 * not throughput.
 */
export const ACCOUNT_IN_FLIGHT_CAP = 10;
/**
 * Slots only accounts whose endpoint last answered fast may take: slow,
 * failing, or not yet seen accounts together hold at most MAX_IN_FLIGHT minus
 * these, so any number of hanging customers leaves room for healthy ones, and
 * so does one customer's burst.
 */
export const RESERVED_SLOTS = 40;
/** An attempt answered within this, and not a failure, makes its account fast. */
export const FAST_ANSWER_MS = 1_000;
/** A job over its account's cap (only a job sent without its account) waits this long, plus up to as much again, before it is tried again. */
export const CAP_DEFER_MS = 500;
/**
 * A backed-off endpoint's jobs wait until the back-off ends, spread over at
 * least this or a quarter of the wait, so its end releases a trickle, not the
 * whole backlog at once (the account's cap then bounds what runs).
 */
export const BACKOFF_SPREAD_MS = 5_000;
/** Jobs taken in one fetch: one query for many jobs when a backlog waits, and free slots filled soon. */
const FETCH_MAX = 50;
/** With slots all taken, wait this long after one frees before fetching, so one fetch fills several. */
const REFILL_COALESCE_MS = 5;
/** Finished and put-back jobs are written together: one lost in a crash only re-runs a job that then skips or waits again. */
const COMPLETE_FLUSH_MS = 20;
/** While one account bursts past its cap, other accounts' work is looked for at least this often (and at once on a local send). */
const FAIR_RECHECK_MS = 50;
/** Accounts remembered as fast, at most (the oldest forgotten first). */
const FAST_MEMORY = 10_000;

export type DeliveryWorkerOptions = {
  deps?: Partial<AttemptDeps>;
  maxInFlight?: number;
  accountCap?: number;
  reservedSlots?: number;
  /** How often to look for jobs when none are known to wait (jobs sent by this process wake it at once). */
  pollingIntervalSeconds?: number;
};

/**
 * Runs deliveries on this instance (docs/decisions.md §8): jobs are claimed as slots
 * free up and each attempt runs on its own, so a slow receiver delays nothing
 * but its own attempt. The claim itself is fair (job-queue.ts
 * `deliveryClaims`): it passes over the jobs of accounts at their cap, which
 * wait in the queue untouched until one of their slots frees, and it gives
 * slow or unknown accounts only part of the slots. A job whose endpoint is
 * backed off is moved, in place, to when the back-off ends, without an
 * attempt, so the customer's retry schedule is not spent on our own
 * scheduling and no job is made for it. A job is leased; the lease of every
 * job held is renewed while it runs, and a crashed instance's jobs come back
 * to any instance when their lease runs out.
 */
export async function startDeliveryWorker(opts: DeliveryWorkerOptions = {}): Promise<void> {
  const boss = await jobQueue();
  const lease = await deliveryLease();
  const claims = await deliveryClaims(DELIVERY_QUEUE);
  const maxInFlight = opts.maxInFlight ?? MAX_IN_FLIGHT;
  const loop = new DeliveryLoop(boss, lease, claims, {
    deps: { client: callbackClient(), ...opts.deps },
    maxInFlight,
    accountCap: opts.accountCap ?? ACCOUNT_IN_FLIGHT_CAP,
    reserved: Math.min(opts.reservedSlots ?? RESERVED_SLOTS, Math.floor(maxInFlight / 2)),
    pollMs: (opts.pollingIntervalSeconds ?? 0.25) * 1000,
  });
  registerFetchLoop(DELIVERY_QUEUE, { wake: () => loop.wake(), stop: () => loop.stop() });
  void loop.run();
}

type Lease = Awaited<ReturnType<typeof deliveryLease>>;
type Claims = Awaited<ReturnType<typeof deliveryClaims>>;
type Job = PgBoss.Job<DeliveryJob>;
/** A job this instance holds: whose it is (once known) and whether it took a slot of the slow accounts' share. */
type Held = { account: string | null; slow: boolean };

class DeliveryLoop {
  private readonly held = new Map<string, Held>();
  private readonly perAccount = new Map<string, number>();
  private slowHeld = 0;
  /** Accounts whose endpoint last answered fast on this instance, oldest first. */
  private readonly fast = new Map<string, true>();
  private completed: string[] = [];
  private putBacks: { id: string; until: Date }[] = [];
  private flushTimer: NodeJS.Timeout | null = null;
  private stopped = false;
  /** Work may wait (a send here, a slot freed while jobs waited): do not sleep after this fill. */
  private again = false;
  /** Slots or caps held work back at the last fill: a freed slot fills again. */
  private wanting = false;
  private refill: NodeJS.Timeout | null = null;
  /** When a fill last found no other account's work due (bursting is allowed until FAIR_RECHECK_MS after). */
  private othersIdleAt = 0;
  private signal: (() => void) | null = null;
  private idle: (() => void) | null = null;
  private readonly heartbeat: NodeJS.Timeout;
  private loopDone: Promise<void> = Promise.resolve();

  constructor(
    private readonly boss: PgBoss,
    private readonly lease: Lease,
    private readonly claims: Claims,
    private readonly cfg: {
      deps: AttemptDeps;
      maxInFlight: number;
      accountCap: number;
      reserved: number;
      pollMs: number;
    },
  ) {
    // Several renewals per lease, so one slow or lost renewal does not let a live attempt's job expire.
    this.heartbeat = setInterval(() => void this.renew(), (lease.seconds * 1000) / 4);
    this.heartbeat.unref();
  }

  /** Jobs were just sent from this process: look now, other accounts' included. */
  wake(): void {
    this.othersIdleAt = 0;
    this.again = true;
    this.signal?.();
  }

  run(): Promise<void> {
    this.loopDone = this.fetchLoop();
    return this.loopDone;
  }

  private async fetchLoop(): Promise<void> {
    while (!this.stopped) {
      this.again = false;
      let more = false;
      try {
        more = await this.fill();
      } catch (err) {
        logger().error({ err }, "delivery jobs could not be fetched");
      }
      if (!more && !this.again && !this.stopped) await this.pause(this.cfg.pollMs);
    }
  }

  /** One round of claims; true when more work is known to wait and slots are free for it. */
  private async fill(): Promise<boolean> {
    const { maxInFlight, accountCap, reserved } = this.cfg;
    const free = maxInFlight - this.held.size;
    this.wanting = free <= 0;
    if (free <= 0) return false;
    const skip: string[] = [];
    const rooms = new Map<string, number>();
    for (const [account, n] of this.perAccount) {
      if (n >= accountCap) skip.push(account);
      else rooms.set(account, accountCap - n);
    }
    const burstable = skip.filter((a) => this.fast.has(a));
    const burstRoom = maxInFlight - reserved - this.held.size;
    const bursting = burstable.length > 0 && burstRoom > 0 && Date.now() - this.othersIdleAt < FAIR_RECHECK_MS;

    let claimed = 0;
    let short = true;
    if (!bursting) {
      const want = Math.min(free, FETCH_MAX);
      const slowRoom = maxInFlight - reserved - this.slowHeld;
      const base = { skip, rooms, room: accountCap };
      let jobs: Job[];
      if (slowRoom >= want) {
        jobs = await this.claim({ ...base, limit: want, only: null });
      } else {
        // The slow accounts' share is (nearly) taken: fast accounts first, then the slow ones in what is left of it.
        const fastOnly = [...this.fast.keys()].filter((a) => !skip.includes(a));
        jobs = fastOnly.length ? await this.claim({ ...base, limit: want, only: fastOnly }) : [];
        if (jobs.length < want && slowRoom > 0) {
          jobs = jobs.concat(
            await this.claim({
              ...base,
              skip: skip.concat(fastOnly),
              limit: Math.min(want - jobs.length, slowRoom),
              only: null,
            }),
          );
        } else if (slowRoom <= 0) this.wanting = true;
      }
      claimed += jobs.length;
      short = jobs.length < want;
      if (short) this.othersIdleAt = Date.now();
      // Caps held some back: when a slot of theirs frees, look again.
      if (skip.length || slowRoom < want) this.wanting = true;
    }
    // No other account's work is due: a fast account at its cap may use the slots the others do not need.
    const burstNow = maxInFlight - reserved - this.held.size;
    const fastCapped = [...this.perAccount].filter(([a, n]) => n >= accountCap && this.fast.has(a)).map(([a]) => a);
    if (short && fastCapped.length && burstNow > 0) {
      const jobs = await this.claim({
        skip: [],
        rooms: new Map(),
        room: burstNow,
        limit: Math.min(burstNow, FETCH_MAX),
        only: fastCapped,
      });
      claimed += jobs.length;
      this.wanting = true;
      if (jobs.length === Math.min(burstNow, FETCH_MAX) && this.held.size < maxInFlight - reserved) return true;
    }
    // An account that reached its cap in this fill may have more behind it: a freed slot of its fills again.
    const capped = [...this.perAccount].filter(([, n]) => n >= accountCap).map(([a]) => a);
    if (capped.length || this.slowHeld >= maxInFlight - reserved) this.wanting = true;
    // A full claim means more wait; so may one cut short by an account reaching its cap (others' work may lie past its jobs).
    const newlyCapped = capped.some((a) => !skip.includes(a));
    return claimed > 0 && (!short || newlyCapped) && this.held.size < maxInFlight;
  }

  private async claim(req: Parameters<Claims["claim"]>[0]): Promise<Job[]> {
    if (this.stopped) return [];
    const jobs = (await this.claims.claim(req)) as Job[];
    if (this.stopped) {
      // Claimed as the queue stopped: their lease brings them back to another instance.
      return [];
    }
    for (const job of jobs) {
      const account = job.data.accountId ?? null;
      const slow = account !== null && !this.fast.has(account);
      this.held.set(job.id, { account, slow });
      if (account !== null) this.perAccount.set(account, (this.perAccount.get(account) ?? 0) + 1);
      if (slow) this.slowHeld++;
      void this.start(job);
    }
    return jobs;
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

  /** A slot freed: if work was held back for want of one, fill again soon (a few frees share one claim). */
  private poke(): void {
    if (!this.wanting || this.stopped) return;
    this.refill ??= setTimeout(() => {
      this.refill = null;
      this.again = true;
      this.signal?.();
    }, REFILL_COALESCE_MS);
  }

  private remember(account: string, fast: boolean): void {
    this.fast.delete(account);
    if (!fast) return;
    this.fast.set(account, true);
    if (this.fast.size > FAST_MEMORY) this.fast.delete(this.fast.keys().next().value!);
  }

  /** The job's slot and its account's share, given back once. */
  private release(jobId: string): void {
    const h = this.held.get(jobId);
    if (!h) return;
    this.held.delete(jobId);
    if (h.slow) this.slowHeld--;
    if (h.account !== null) {
      const left = (this.perAccount.get(h.account) ?? 1) - 1;
      if (left > 0) this.perAccount.set(h.account, left);
      else this.perAccount.delete(h.account);
    }
    if (this.held.size === 0) this.idle?.();
    this.poke();
  }

  private async start(job: Job): Promise<void> {
    let deferUntil: Date | null = null;
    const admit = (target: AttemptTarget): Admission => {
      const now = Date.now();
      // A redeliver the customer asked for goes out now: they have likely just fixed the endpoint.
      if (target.endpointBackoffUntil && target.endpointBackoffUntil.getTime() > now && !target.requested) {
        const wait = target.endpointBackoffUntil.getTime() - now;
        deferUntil = new Date(
          target.endpointBackoffUntil.getTime() + Math.random() * Math.max(BACKOFF_SPREAD_MS, wait / 4),
        );
        return null;
      }
      const h = this.held.get(job.id);
      if (h && h.account === null) {
        // Sent without its account: capped here, after the claim.
        const n = this.perAccount.get(target.accountId) ?? 0;
        if (n >= this.cfg.accountCap) {
          deferUntil = new Date(now + CAP_DEFER_MS * (1 + Math.random()));
          return null;
        }
        h.account = target.accountId;
        this.perAccount.set(target.accountId, n + 1);
      }
      return {
        release: (result) => {
          if (result) this.remember(target.accountId, !result.endpointFailed && result.latencyMs < FAST_ANSWER_MS);
          this.release(job.id);
        },
      };
    };
    try {
      const outcome = await attemptDelivery(job.data, { ...this.cfg.deps, admit });
      if (outcome === "deferred" && deferUntil) this.putBack(job.id, deferUntil);
      else this.complete(job.id);
    } catch (err) {
      // Our own failure (the database), not the receiver's: pg-boss retries the job; an attempt already recorded is skipped then.
      logger().error({ err, deliveryId: job.data.deliveryId }, "delivery attempt could not be recorded");
      await this.boss
        .fail(DELIVERY_QUEUE, job.id, { message: err instanceof Error ? err.message : String(err) })
        .catch(() => undefined);
    } finally {
      this.release(job.id);
    }
  }

  /** Not now: the same job, moved to later. */
  private putBack(id: string, until: Date): void {
    this.putBacks.push({ id, until });
    this.flushTimer ??= setTimeout(() => void this.flush(), COMPLETE_FLUSH_MS);
  }

  private complete(id: string): void {
    this.completed.push(id);
    this.flushTimer ??= setTimeout(() => void this.flush(), COMPLETE_FLUSH_MS);
  }

  private async flush(): Promise<void> {
    this.flushTimer = null;
    const ids = this.completed;
    const later = this.putBacks;
    this.completed = [];
    this.putBacks = [];
    // Lost, the jobs expire and run again: a completed one skips (its attempt is recorded), a put-back one is put back again.
    await Promise.all([
      ids.length &&
        this.boss
          .complete(DELIVERY_QUEUE, ids)
          .catch((err: unknown) =>
            logger().warn({ err, count: ids.length }, "delivery jobs could not be marked complete"),
          ),
      later.length &&
        this.claims
          .putBack(later)
          .catch((err: unknown) => logger().warn({ err, count: later.length }, "delivery jobs could not be put back")),
    ]);
  }

  private async renew(): Promise<void> {
    if (!this.held.size) return;
    await this.lease
      .renew(DELIVERY_QUEUE, [...this.held.keys()])
      .catch((err: unknown) => logger().warn({ err }, "delivery leases could not be renewed"));
  }

  /** Stops fetching and waits (up to 11 s, one attempt's timeout) for the attempts in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.signal?.();
    if (this.refill) clearTimeout(this.refill);
    await this.loopDone;
    if (this.held.size) {
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
