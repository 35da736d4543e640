import type { ClaimedDelivery, ClaimRequest } from "../jobs/delivery-queue/delivery-queue";
import type { AttemptResult } from "../services/deliveries/attempt-delivery";

/**
 * The delivery worker's fairness policy (docs/decisions.md §8, issue #28), in one place and with no I/O: what
 * each claim may take, from what this instance holds. The worker (delivery-worker.ts) asks for a round of
 * claims, makes them, and says what it took and what each attempt did; tests drive it with a fake clock.
 *
 * - A lane (one destination of one account) has at most `accountCap` attempts in flight here.
 * - An account's lanes not known fast share `accountCap` slots together: a customer whose endpoints hang holds
 *   at most that many, and none of its healthy destinations' slots. A lane not seen yet of an account whose
 *   share is taken may probe with one attempt.
 * - `reserved` of the `maxInFlight` slots are only for lanes known fast, so any number of hanging customers
 *   leaves room for healthy ones.
 * - When no other work is due, a fast lane at its cap may use the slots others do not need (up to
 *   `maxInFlight - reserved`), so one customer's backlog drains at the instance's rate: the caps bound
 *   fairness, not throughput.
 * - A lane whose endpoint is backed off is left in the queue for a while (at most `backoffSkipMs`, or until
 *   work is queued here: a redeliver goes out at once), so a hundred failing customers' new events cost a
 *   claim per lane now and then, not one per event.
 */
export type FairnessConfig = {
  maxInFlight: number;
  accountCap: number;
  reserved: number;
  /** Deliveries taken in one claim at most. */
  claimMax: number;
  /** While a fast lane bursts past its cap, other accounts' work is looked for at least this often. */
  fairRecheckMs: number;
  /** An attempt answered within this, and not a failure, makes its destination fast. */
  fastAnswerMs: number;
  /** Destinations remembered as fast or slow, at most (the least recently answered forgotten first). */
  memory: number;
  /** A backed-off lane is passed over for at most this long before its due work is looked at again. */
  backoffSkipMs: number;
};

type Held = { account: string; lane: string; slow: boolean };
type LaneHold = { account: string; n: number };

/** One round's first claims: each takes what the ones before it left of `want`. */
export type ClaimRound = { requests: ClaimRequest[]; want: number; bursting: boolean };

export class DeliveryFairness {
  private readonly held = new Map<string, Held>();
  /** Attempts in flight by lane. */
  private readonly perLane = new Map<string, LaneHold>();
  /** Attempts in flight to lanes not known fast, by account, and in all. */
  private readonly slowPerAccount = new Map<string, number>();
  private slowHeld = 0;
  /** Lanes that answered here, least recently first: their account, and whether the last answer was fast. */
  private readonly seen = new Map<string, { account: string; fast: boolean }>();
  /** The same lanes by account, and the fast ones: kept as answers arrive, never rebuilt. */
  private readonly seenByAccount = new Map<string, Set<string>>();
  private readonly fast = new Set<string>();
  /** Lanes whose endpoint is backed off, until when they are passed over (at most `memory` of them). */
  private readonly backedOff = new Map<string, number>();
  /** When a round last found no other work due (a fast lane may burst until fairRecheckMs after). */
  private othersIdleAt = Number.NEGATIVE_INFINITY;
  /** Where the lanes' turns stand (ClaimRequest.after): the last lane served, in the circle's order. */
  private cursor = "";
  private roundAfter = "";
  /** Slots or caps held work back at the last round: a freed slot should start another. */
  wanting = false;
  /** The round being made: what it held back, to tell what became capped in it. */
  private round: { skip: Set<string>; skipAccounts: Set<string>; claimed: number; short: boolean } | null = null;

  constructor(
    private readonly cfg: FairnessConfig,
    private readonly clock: () => number = Date.now,
  ) {}

  get inFlight(): number {
    return this.held.size;
  }
  heldIds(): string[] {
    return [...this.held.keys()];
  }
  isFast(lane: string): boolean {
    return this.fast.has(lane);
  }

  /** Work was just queued by this process: look at every account's now (a backed-off one's too: a redeliver). */
  othersMayWait(): void {
    this.othersIdleAt = Number.NEGATIVE_INFINITY;
    this.backedOff.clear();
  }

  /** A delivery of `lane` found its endpoint backed off until `untilMs`: pass the lane over until then, or a while. */
  backOff(lane: string, untilMs: number): void {
    this.backedOff.delete(lane);
    this.backedOff.set(lane, Math.min(untilMs, this.clock() + this.cfg.backoffSkipMs));
    if (this.backedOff.size > this.cfg.memory) this.backedOff.delete(this.backedOff.keys().next().value!);
  }

  /** The claims that start a round (none when every slot is taken). */
  start(): ClaimRound {
    const { maxInFlight, accountCap, reserved, claimMax } = this.cfg;
    const free = maxInFlight - this.held.size;
    this.wanting = free <= 0;
    const skip = new Set<string>();
    const rooms = new Map<string, number>();
    const full = new Set<string>();
    const accountRooms = new Map<string, number>();
    const fastLanes: string[] = [];
    for (const [account, n] of this.slowPerAccount) {
      if (n >= accountCap) full.add(account);
      else accountRooms.set(account, accountCap - n);
      for (const lane of this.seenByAccount.get(account) ?? []) {
        if (this.fast.has(lane)) fastLanes.push(lane);
        else if (n >= accountCap) skip.add(lane);
      }
    }
    for (const [lane, { account, n }] of this.perLane) {
      if (n >= accountCap || (full.has(account) && !this.fast.has(lane))) skip.add(lane);
      else rooms.set(lane, accountCap - n);
    }
    const now = this.clock();
    for (const [lane, until] of this.backedOff) {
      if (until <= now) this.backedOff.delete(lane);
      else skip.add(lane);
    }
    this.round = { skip, skipAccounts: full, claimed: 0, short: true };
    this.roundAfter = this.cursor;
    if (free <= 0) return { requests: [], want: 0, bursting: false };
    const burstRoom = maxInFlight - reserved - this.held.size;
    const bursting =
      burstRoom > 0 && now - this.othersIdleAt < this.cfg.fairRecheckMs && [...skip].some((l) => this.fast.has(l));
    if (bursting) return { requests: [], want: 0, bursting };

    const want = Math.min(free, claimMax);
    const slowRoom = maxInFlight - reserved - this.slowHeld;
    const base = {
      after: this.cursor,
      skip: [...skip],
      rooms,
      room: accountCap,
      skipAccounts: [...full],
      fastLanes,
      accountRooms,
      accountRoom: accountCap,
    };
    if (skip.size || full.size || slowRoom < want) this.wanting = true;
    if (slowRoom >= want) return { requests: [{ ...base, limit: want, only: null }], want, bursting };
    // The slow lanes' share is (nearly) taken: fast lanes first, then slow ones in what is left of the share.
    const fastOnly = [...this.fast].filter((l) => !skip.has(l));
    const requests: ClaimRequest[] = [];
    if (fastOnly.length) requests.push({ ...base, limit: want, only: fastOnly });
    if (slowRoom > 0) requests.push({ ...base, skip: base.skip.concat(fastOnly), limit: slowRoom, only: null });
    return { requests, want, bursting };
  }

  /** The main claims of the round are made: `got` of `want` came. */
  mainDone(got: number, want: number, bursting: boolean): void {
    if (!this.round) return;
    this.round.claimed += got;
    if (bursting) return;
    this.round.short = got < want;
    if (this.round.short) this.othersIdleAt = this.clock();
  }

  /** After a short round: a fast lane at its cap may take the slots no other work needs. */
  burst(): ClaimRequest | null {
    const { maxInFlight, reserved, accountCap, claimMax } = this.cfg;
    if (!this.round?.short) return null;
    const room = maxInFlight - reserved - this.held.size;
    if (room <= 0) return null;
    const capped = [...this.perLane].filter(([l, h]) => h.n >= accountCap && this.fast.has(l)).map(([l]) => l);
    if (!capped.length) return null;
    return {
      after: this.cursor,
      skip: [],
      rooms: new Map(),
      room,
      skipAccounts: [],
      fastLanes: capped,
      accountRooms: new Map(),
      accountRoom: room,
      limit: Math.min(room, claimMax),
      only: capped,
    };
  }

  /** Ends the round; true when more work is known to wait and slots are free for it (start another at once). */
  finish(burst: { got: number; limit: number } | null): boolean {
    const { maxInFlight, reserved, accountCap } = this.cfg;
    const round = this.round;
    this.round = null;
    if (!round) return false;
    if (burst) {
      round.claimed += burst.got;
      this.wanting = true;
      if (burst.got === burst.limit && this.held.size < maxInFlight - reserved) return true;
    }
    const capped = [...this.perLane].filter(([, h]) => h.n >= accountCap).map(([l]) => l);
    const sharesTaken = [...this.slowPerAccount].filter(([, n]) => n >= accountCap).map(([a]) => a);
    if (capped.length || sharesTaken.length || this.slowHeld >= maxInFlight - reserved) this.wanting = true;
    // A full claim means more wait; so may one cut short by a cap reached in it (others' work may lie behind).
    const newlyCapped = capped.some((l) => !round.skip.has(l)) || sharesTaken.some((a) => !round.skipAccounts.has(a));
    return round.claimed > 0 && (!round.short || newlyCapped) && this.held.size < maxInFlight;
  }

  /** A claimed delivery now holds a slot: its lane's, and its account's slow share unless its lane is fast. */
  take(d: Pick<ClaimedDelivery, "id" | "accountId" | "lane">): void {
    // The turn moves on to the furthest lane served, counted round the circle from where the round began.
    const behind = (l: string) => (l <= this.roundAfter ? 1 : 0);
    const [a, b] = [behind(d.lane), behind(this.cursor)];
    if (this.cursor === this.roundAfter || a > b || (a === b && d.lane > this.cursor)) this.cursor = d.lane;
    const slow = !this.fast.has(d.lane);
    this.held.set(d.id, { account: d.accountId, lane: d.lane, slow });
    const hold = this.perLane.get(d.lane);
    if (hold) hold.n++;
    else this.perLane.set(d.lane, { account: d.accountId, n: 1 });
    if (slow) {
      this.slowPerAccount.set(d.accountId, (this.slowPerAccount.get(d.accountId) ?? 0) + 1);
      this.slowHeld++;
    }
  }

  /** The delivery's slot is free (once; later calls do nothing), and how its attempt went, when it ran. */
  release(id: string, result?: AttemptResult): void {
    const h = this.held.get(id);
    if (!h) return;
    if (result) this.answered(h.account, h.lane, !result.endpointFailed && result.latencyMs < this.cfg.fastAnswerMs);
    this.held.delete(id);
    if (h.slow) {
      this.slowHeld--;
      const left = (this.slowPerAccount.get(h.account) ?? 1) - 1;
      if (left > 0) this.slowPerAccount.set(h.account, left);
      else this.slowPerAccount.delete(h.account);
    }
    const hold = this.perLane.get(h.lane);
    if (hold && --hold.n <= 0) this.perLane.delete(h.lane);
  }

  private answered(account: string, lane: string, fast: boolean): void {
    this.seen.delete(lane);
    this.seen.set(lane, { account, fast });
    if (fast) this.fast.add(lane);
    else this.fast.delete(lane);
    let lanes = this.seenByAccount.get(account);
    if (!lanes) this.seenByAccount.set(account, (lanes = new Set()));
    lanes.add(lane);
    if (this.seen.size > this.cfg.memory) {
      const [oldest, { account: owner }] = this.seen.entries().next().value!;
      this.seen.delete(oldest);
      this.fast.delete(oldest);
      const owned = this.seenByAccount.get(owner);
      owned?.delete(oldest);
      if (owned && !owned.size) this.seenByAccount.delete(owner);
    }
  }
}
