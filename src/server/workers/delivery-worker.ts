import type PgBoss from "pg-boss";
import { callbackClient } from "../webhooks/http/callback-client";
import { db } from "../db/client";
import { deliveryClaims, deliveryLease, jobQueue, registerFetchLoop } from "../jobs/job-queue";
import { logger } from "../logger";
import {
  attemptDelivery,
  type Admission,
  type AttemptDeps,
  type AttemptTarget,
} from "../services/deliveries/attempt-delivery";
import { DELIVERY_QUEUE, type DeliveryJob } from "../webhooks/enqueue-event";
import { deliveryLane } from "../jobs/definitions/webhook-delivery";

export const ATTEMPT_RETENTION_DAYS = 30;

/**
 * Attempts in flight on one instance. Each waits on its receiver (up to 10 s)
 * holding no database connection, so many can: 200 hanging receivers cost
 * 200 sockets, not workers.
 */
export const MAX_IN_FLIGHT = 200;
/**
 * Attempts one destination (a lane: one URL of one account) may have in
 * flight on one instance while other work waits, and attempts one account may
 * have in flight to its destinations not known fast, together: a customer
 * whose endpoints hang holds at most 10 slots, and they are not the slots of
 * that customer's healthy destinations (issue #28: fan-out to one hanging
 * destination delays nobody else). When no other work is due, a destination
 * that answers fast may take more (up to MAX_IN_FLIGHT - RESERVED_SLOTS), so
 * one customer's backlog drains at the instance's rate: the cap bounds
 * fairness, not throughput.
 */
export const ACCOUNT_IN_FLIGHT_CAP = 10;
/**
 * Slots only destinations that last answered fast may take: slow, failing,
 * or not yet seen destinations together hold at most MAX_IN_FLIGHT minus
 * these, so any number of hanging customers leaves room for healthy ones, and
 * so does one customer's burst.
 */
export const RESERVED_SLOTS = 40;
/** An attempt answered within this, and not a failure, makes its destination fast. */
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
/** Destinations remembered as fast or slow, at most (the oldest forgotten first). */
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
 * `deliveryClaims`): it passes over the jobs of destinations at their cap and
 * of accounts whose slow destinations hold their share, which wait in the
 * queue untouched until one of their slots frees, and it gives slow or
 * unknown destinations only part of the slots. A job whose endpoint is
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
/**
 * A job this instance holds: whose it is and where it goes (once known), and whether it took a slot of the
 * slow destinations' share (its account's, and the instance's).
 */
type Held = { account: string | null; lane: string | null; slow: boolean };

function increment(m: Map<string, number>, key: string): void {
  m.set(key, (m.get(key) ?? 0) + 1);
}
function decrement(m: Map<string, number>, key: string): void {
  const left = (m.get(key) ?? 1) - 1;
  if (left > 0) m.set(key, left);
  else m.delete(key);
}
/** A destination in flight: whose it is and how many attempts it holds. */
type LaneHold = { account: string; n: number };

class DeliveryLoop {
  private readonly held = new Map<string, Held>();
  /** Attempts in flight by lane. */
  private readonly perLane = new Map<string, LaneHold>();
  /** Attempts in flight to destinations not known fast, by account, and in all. */
  private readonly slowPerAccount = new Map<string, number>();
  private slowHeld = 0;
  /** Lanes whose destination has answered on this instance, oldest first: their account, and whether the last answer was fast. */
  private readonly seen = new Map<string, { account: string; fast: boolean }>();
  /** The same lanes, by account. */
  private readonly seenByAccount = new Map<string, Set<string>>();
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
    const skip = new Set<string>();
    const rooms = new Map<string, number>();
    // Accounts holding slots for slow destinations: their share's room, and their fast lanes, which it binds not.
    // An account whose share is taken gets no slot for a destination known slow (or in flight and not known
    // fast); one it has not seen here yet may probe with one attempt.
    const full = new Set<string>();
    const accountRooms = new Map<string, number>();
    const fastLanes: string[] = [];
    for (const [account, n] of this.slowPerAccount) {
      if (n >= accountCap) full.add(account);
      else accountRooms.set(account, accountCap - n);
      for (const lane of this.seenByAccount.get(account) ?? []) {
        if (this.isFast(lane)) fastLanes.push(lane);
        else if (n >= accountCap) skip.add(lane);
      }
    }
    for (const [lane, { account, n }] of this.perLane) {
      if (n >= accountCap || (full.has(account) && !this.isFast(lane))) skip.add(lane);
      else rooms.set(lane, accountCap - n);
    }
    const skipAccounts = [...full];
    const burstable = [...skip].filter((l) => this.isFast(l));
    const burstRoom = maxInFlight - reserved - this.held.size;
    const bursting = burstable.length > 0 && burstRoom > 0 && Date.now() - this.othersIdleAt < FAIR_RECHECK_MS;

    let claimed = 0;
    let short = true;
    if (!bursting) {
      const want = Math.min(free, FETCH_MAX);
      const slowRoom = maxInFlight - reserved - this.slowHeld;
      const base = {
        skip: [...skip],
        rooms,
        room: accountCap,
        skipAccounts,
        fastLanes,
        accountRooms,
        accountRoom: accountCap,
      };
      let jobs: Job[];
      if (slowRoom >= want) {
        jobs = await this.claim({ ...base, limit: want, only: null });
      } else {
        // The slow destinations' share is (nearly) taken: fast ones first, then the slow ones in what is left of it.
        const fastOnly = [...this.seen].filter(([l, v]) => v.fast && !skip.has(l)).map(([l]) => l);
        jobs = fastOnly.length ? await this.claim({ ...base, limit: want, only: fastOnly }) : [];
        if (jobs.length < want && slowRoom > 0) {
          jobs = jobs.concat(
            await this.claim({
              ...base,
              skip: base.skip.concat(fastOnly),
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
      if (skip.size || skipAccounts.length || slowRoom < want) this.wanting = true;
    }
    // No other work is due: a fast destination at its cap may use the slots the others do not need.
    const burstNow = maxInFlight - reserved - this.held.size;
    const fastCapped = [...this.perLane].filter(([l, h]) => h.n >= accountCap && this.isFast(l)).map(([l]) => l);
    if (short && fastCapped.length && burstNow > 0) {
      const jobs = await this.claim({
        skip: [],
        rooms: new Map(),
        room: burstNow,
        skipAccounts: [],
        fastLanes: fastCapped,
        accountRooms: new Map(),
        accountRoom: burstNow,
        limit: Math.min(burstNow, FETCH_MAX),
        only: fastCapped,
      });
      claimed += jobs.length;
      this.wanting = true;
      if (jobs.length === Math.min(burstNow, FETCH_MAX) && this.held.size < maxInFlight - reserved) return true;
    }
    // A lane or account that reached its cap in this fill may have more behind it: a freed slot of its fills again.
    const capped = [...this.perLane].filter(([, h]) => h.n >= accountCap).map(([l]) => l);
    const sharesTaken = [...this.slowPerAccount].filter(([, n]) => n >= accountCap).map(([a]) => a);
    if (capped.length || sharesTaken.length || this.slowHeld >= maxInFlight - reserved) this.wanting = true;
    // A full claim means more wait; so may one cut short by a cap reached (others' work may lie past its jobs).
    const newlyCapped = capped.some((l) => !skip.has(l)) || sharesTaken.some((a) => !skipAccounts.includes(a));
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
      // A job sent before lanes existed counts as its account's one lane.
      const lane = job.data.lane ?? account;
      const h: Held = { account, lane: null, slow: false };
      this.held.set(job.id, h);
      if (account !== null && lane !== null) this.take(h, account, lane);
      void this.start(job);
    }
    return jobs;
  }

  /** Counts a held job against its lane and, when its destination is not known fast, its account's slow share. */
  private take(h: Held, account: string, lane: string): void {
    h.account = account;
    h.lane = lane;
    h.slow = !this.isFast(lane);
    const hold = this.perLane.get(lane);
    if (hold) hold.n++;
    else this.perLane.set(lane, { account, n: 1 });
    if (h.slow) {
      increment(this.slowPerAccount, account);
      this.slowHeld++;
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

  /** A slot freed: if work was held back for want of one, fill again soon (a few frees share one claim). */
  private poke(): void {
    if (!this.wanting || this.stopped) return;
    this.refill ??= setTimeout(() => {
      this.refill = null;
      this.again = true;
      this.signal?.();
    }, REFILL_COALESCE_MS);
  }

  private isFast(lane: string): boolean {
    return this.seen.get(lane)?.fast === true;
  }

  private remember(account: string, lane: string, fast: boolean): void {
    this.seen.delete(lane);
    this.seen.set(lane, { account, fast });
    let lanes = this.seenByAccount.get(account);
    if (!lanes) this.seenByAccount.set(account, (lanes = new Set()));
    lanes.add(lane);
    if (this.seen.size > FAST_MEMORY) {
      const [oldest, { account: owner }] = this.seen.entries().next().value!;
      this.seen.delete(oldest);
      const owned = this.seenByAccount.get(owner);
      owned?.delete(oldest);
      if (owned && !owned.size) this.seenByAccount.delete(owner);
    }
  }

  /** The job's slot, its lane's and its account's share, given back once. */
  private release(jobId: string): void {
    const h = this.held.get(jobId);
    if (!h) return;
    this.held.delete(jobId);
    if (h.slow) {
      this.slowHeld--;
      if (h.account !== null) decrement(this.slowPerAccount, h.account);
    }
    const hold = h.lane === null ? undefined : this.perLane.get(h.lane);
    if (hold && --hold.n <= 0) this.perLane.delete(h.lane!);
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
      if (h && h.lane === null) {
        // Sent without its account: capped here, after the claim.
        const lane = deliveryLane(target.accountId, target.url);
        const { accountCap } = this.cfg;
        const slowTaken = !this.isFast(lane) && (this.slowPerAccount.get(target.accountId) ?? 0) >= accountCap;
        if ((this.perLane.get(lane)?.n ?? 0) >= accountCap || slowTaken) {
          deferUntil = new Date(now + CAP_DEFER_MS * (1 + Math.random()));
          return null;
        }
        this.take(h, target.accountId, lane);
      }
      const lane = h?.lane ?? deliveryLane(target.accountId, target.url);
      return {
        release: (result) => {
          if (result)
            this.remember(target.accountId, lane, !result.endpointFailed && result.latencyMs < FAST_ANSWER_MS);
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
