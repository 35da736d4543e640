// The delivery worker's fairness policy (src/server/workers/delivery-fairness.ts), driven by hand with a fake
// clock: what each claim may take, from what the instance holds. The integration suites (delivery-fairness,
// delivery-isolation) run the same policy against real receivers.
import { describe, expect, it } from "vitest";
import { DeliveryFairness, type FairnessConfig } from "../../src/server/workers/delivery-fairness";

const CONFIG: FairnessConfig = {
  maxInFlight: 40,
  accountCap: 3,
  reserved: 10,
  claimMax: 50,
  fairRecheckMs: 50,
  fastAnswerMs: 1_000,
  memory: 100,
  backoffSkipMs: 5_000,
};

function policy(config: Partial<FairnessConfig> = {}) {
  let t = 1_000_000;
  const clock = { now: () => t, advance: (ms: number) => (t += ms) };
  const fairness = new DeliveryFairness({ ...CONFIG, ...config }, clock.now);
  let seq = 0;
  /** Takes `n` deliveries of `account` to `lane`; answers their ids. */
  const take = (account: string, lane: string, n = 1) =>
    Array.from({ length: n }, () => {
      const id = `d${seq++}`;
      fairness.take({ id, accountId: account, lane });
      return id;
    });
  /** One attempt on `lane` that answered fast (or slowly / failed), then released. */
  const answer = (account: string, lane: string, fast: boolean) => {
    const [id] = take(account, lane);
    fairness.release(id!, { endpointFailed: false, latencyMs: fast ? 10 : 5_000 });
  };
  return { fairness, clock, take, answer };
}

describe("delivery fairness", () => {
  it("a free instance claims in one request, nothing held back, lanes not yet known fast kept out of the reserved slots", () => {
    const { fairness } = policy();
    const round = fairness.start();
    expect(round.bursting).toBe(false);
    expect(round.want).toBe(40);
    expect(round.requests).toHaveLength(1);
    expect(round.requests[0]).toMatchObject({ limit: 30, only: null, skip: [], skipAccounts: [], room: 3 });
    const roomy = policy({ maxInFlight: 200, reserved: 40 }).fairness.start();
    expect(roomy.requests.map((r) => [r.limit, r.only])).toEqual([[50, null]]);
  });

  it("a lane at its cap is skipped; a lane below it gets only what is left of its cap", () => {
    const { fairness, take } = policy();
    take("acct-a", "lane-a", 3);
    take("acct-b", "lane-b", 1);
    const [req] = fairness.start().requests;
    expect(req!.skip).toContain("lane-a");
    expect(req!.rooms.get("lane-b")).toBe(2);
    expect(fairness.wanting).toBe(true);
  });

  it("an account's lanes not known fast share its cap: when taken, its slow lanes wait and an unseen lane may only probe", () => {
    const { fairness, take, answer } = policy();
    answer("acct-a", "slow-1", false);
    answer("acct-a", "fast-1", true);
    take("acct-a", "slow-1", 2);
    take("acct-a", "unseen", 1);
    const [req] = fairness.start().requests;
    expect(req!.skipAccounts).toEqual(["acct-a"]);
    expect(req!.skip).toContain("slow-1");
    expect(req!.skip).not.toContain("fast-1");
    expect(req!.fastLanes).toEqual(["fast-1"]);
  });

  it("a fast lane's attempts do not count against its account's slow share", () => {
    const { fairness, take, answer } = policy();
    answer("acct-a", "fast-1", true);
    take("acct-a", "fast-1", 3);
    take("acct-a", "slow-1", 2);
    const [req] = fairness.start().requests;
    expect(req!.skipAccounts).toEqual([]);
    expect(req!.accountRooms.get("acct-a")).toBe(1);
    expect(req!.skip).toEqual(["fast-1"]);
  });

  it("when slow lanes hold all but the reserved slots, fast lanes are claimed first and slow ones get what is left", () => {
    const { fairness, take, answer } = policy({ maxInFlight: 40, reserved: 10, accountCap: 3 });
    answer("acct-fast", "fast-1", true);
    // 28 slow attempts over 28 accounts: 30 - 28 = 2 slow slots left.
    for (let i = 0; i < 28; i++) take(`slow-${i}`, `slow-lane-${i}`);
    const round = fairness.start();
    expect(round.want).toBe(12);
    expect(round.requests.map((r) => [r.only, r.limit])).toEqual([
      [["fast-1"], 12],
      [null, 2],
    ]);
    expect(round.requests[1]!.skip).toContain("fast-1");
  });

  it("slow lanes never take the reserved slots", () => {
    const { fairness, take } = policy({ maxInFlight: 40, reserved: 10 });
    for (let i = 0; i < 30; i++) take(`slow-${i}`, `slow-lane-${i}`);
    const round = fairness.start();
    expect(round.requests).toEqual([]);
    expect(fairness.wanting).toBe(true);
  });

  it("a short round lets a fast lane at its cap burst into the slots others do not need", () => {
    const { fairness, take, answer } = policy({ maxInFlight: 40, reserved: 10, accountCap: 3 });
    answer("acct-a", "fast-1", true);
    take("acct-a", "fast-1", 3);
    const round = fairness.start();
    expect(round.requests[0]!.skip).toEqual(["fast-1"]);
    fairness.mainDone(0, round.want, round.bursting);
    // Up to maxInFlight - reserved in all, for that lane only.
    expect(fairness.burst()).toMatchObject({ only: ["fast-1"], room: 27, limit: 27 });
    take("acct-a", "fast-1", 27);
    expect(fairness.finish({ got: 27, limit: 27 })).toBe(false);
    expect(fairness.burst()).toBeNull();
  });

  it("while a lane bursts, other accounts' work is looked for again after fairRecheckMs, or at once when work is queued here", () => {
    const { fairness, clock, take, answer } = policy({ maxInFlight: 40, reserved: 10, accountCap: 3 });
    answer("acct-a", "fast-1", true);
    take("acct-a", "fast-1", 3);
    const shortRound = () => {
      const r = fairness.start();
      fairness.mainDone(0, r.want, r.bursting);
      fairness.finish(null);
    };
    shortRound();
    expect(fairness.start().bursting).toBe(true);
    fairness.finish(null);
    clock.advance(60);
    expect(fairness.start().bursting).toBe(false);
    fairness.finish(null);
    shortRound();
    fairness.othersMayWait();
    expect(fairness.start().bursting).toBe(false);
  });

  it("a full claim means more may wait: start another round at once; a short one waits for a poll or a wake", () => {
    const { fairness, take } = policy({ maxInFlight: 40, claimMax: 5 });
    const round = fairness.start();
    take("acct-a", "lane-a", 2);
    take("acct-b", "lane-b", 3);
    fairness.mainDone(5, round.want, round.bursting);
    expect(fairness.finish(null)).toBe(true);
    const next = fairness.start();
    take("acct-c", "lane-c", 1);
    fairness.mainDone(1, next.want, next.bursting);
    expect(fairness.finish(null)).toBe(false);
  });

  it("a slot is given back once, however often its attempt says so", () => {
    const { fairness, take } = policy();
    const [id] = take("acct-a", "lane-a", 3);
    fairness.release(id!, { endpointFailed: false, latencyMs: 5 });
    fairness.release(id!);
    fairness.release(id!, { endpointFailed: true, latencyMs: 5 });
    expect(fairness.inFlight).toBe(2);
    expect(fairness.start().requests[0]!.rooms.get("lane-a")).toBe(1);
  });

  it("the last answer decides: a failing or slow answer makes a fast lane slow again", () => {
    const { fairness, answer } = policy();
    answer("acct-a", "lane-a", true);
    expect(fairness.isFast("lane-a")).toBe(true);
    const [id] = [`x`];
    fairness.take({ id, accountId: "acct-a", lane: "lane-a" });
    fairness.release(id, { endpointFailed: true, latencyMs: 5 });
    expect(fairness.isFast("lane-a")).toBe(false);
  });

  it("a backed-off lane is passed over until its back-off ends or a while passes, and at once again when work is queued here", () => {
    const { fairness, clock } = policy();
    fairness.backOff("down", clock.now() + 60_000);
    fairness.backOff("soon", clock.now() + 1_000);
    expect(fairness.start().requests[0]!.skip).toEqual(["down", "soon"]);
    fairness.finish(null);
    clock.advance(1_000);
    expect(fairness.start().requests[0]!.skip).toEqual(["down"]);
    fairness.finish(null);
    clock.advance(4_000);
    expect(fairness.start().requests[0]!.skip).toEqual([]);
    fairness.finish(null);
    fairness.backOff("down", clock.now() + 60_000);
    fairness.othersMayWait();
    expect(fairness.start().requests[0]!.skip).toEqual([]);
  });

  it("lanes take turns in a circle: each claim starts after the furthest lane the last one served", () => {
    const { fairness, take } = policy();
    expect(fairness.start().requests[0]!.after).toBe("");
    take("acct", "lane-b");
    take("acct", "lane-d");
    take("acct", "lane-c");
    fairness.finish(null);
    expect(fairness.start().requests[0]!.after).toBe("lane-d");
    // Past the last lane, the circle wraps round to the first.
    take("acct", "lane-e");
    take("acct", "lane-a");
    fairness.finish(null);
    expect(fairness.start().requests[0]!.after).toBe("lane-a");
  });

  it("remembers at most `memory` destinations, the least recently answered forgotten first", () => {
    const { fairness, answer } = policy({ memory: 2 });
    answer("acct-a", "lane-1", true);
    answer("acct-a", "lane-2", true);
    answer("acct-a", "lane-1", true);
    answer("acct-b", "lane-3", true);
    expect(["lane-1", "lane-2", "lane-3"].map((l) => fairness.isFast(l))).toEqual([true, false, true]);
  });
});
