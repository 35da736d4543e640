/**
 * The event delivery queue (docs/adr/0009-delivery-queue.md): what the delivery worker asks of it, whatever
 * stores it. One backend, PostgreSQL on the `WebhookDelivery` rows themselves (postgres-delivery-queue.ts):
 * one delivery is one row for its whole life, and a retry moves that row to a later time.
 *
 * The guarantees: a claimed delivery is leased for `leaseSeconds` and comes back by itself when the lease runs
 * out (a crashed instance's work resumes anywhere); a live attempt's lease is renewed; at least once, each
 * attempt fenced by the delivery's attempt count (an attempt whose count moved on only logs itself).
 */

/** One claim's limits, decided by the fairness policy (workers/delivery-fairness.ts). */
export type ClaimRequest = {
  /** At most this many deliveries. */
  limit: number;
  /**
   * Where the last claim's turn ended: lanes take turns in a circle (lane order, starting after this one), so
   * every due lane gets its turn whatever the age of the others' work, and a fresh event of a healthy
   * customer is never queued behind a failing one's backlog.
   */
  after: string;
  /** Lanes whose deliveries stay queued this time (at their cap). */
  skip: readonly string[];
  /** When set, only these lanes. */
  only: readonly string[] | null;
  /** Deliveries one lane may get in this claim, by lane; others get `room`. */
  rooms: ReadonlyMap<string, number>;
  room: number;
  /** Lanes known fast: not counted against their account's share of slow lanes. */
  fastLanes: readonly string[];
  /** Accounts whose slow share is taken: a lane of theirs the worker has not seen yet may probe with one delivery. */
  skipAccounts: readonly string[];
  /** Deliveries one account's slow lanes may get in this claim, by account; others get `accountRoom`. */
  accountRooms: ReadonlyMap<string, number>;
  accountRoom: number;
};

/** A delivery claimed for one attempt: the attempt it is (`attemptCount`), and where it goes. */
export type ClaimedDelivery = {
  id: string;
  accountId: string;
  lane: string;
  attemptCount: number;
  traceparent: string | null;
};

/** What metrics read: deliveries due now, scheduled later, claimed (in flight), and how late the oldest due one is. */
export type QueueDepth = { due: number; scheduled: number; active: number; lagSeconds: number };

export interface DeliveryQueue {
  /** The queue's name (one in production; tests run their own beside the server's). */
  readonly name: string;
  readonly leaseSeconds: number;
  /** Claims due deliveries fairly, in one statement, each leased for `leaseSeconds`. */
  claim(req: ClaimRequest): Promise<ClaimedDelivery[]>;
  /** Not now: claimed deliveries go back, due at `until`, their attempt not spent. */
  putBack(items: readonly { id: string; until: Date }[]): Promise<void>;
  /** A whole lease again for deliveries still claimed; answers how many were. */
  renew(ids: readonly string[]): Promise<number>;
  depth(): Promise<QueueDepth>;
}
