/**
 * What this instance learnt of an account's routing from a voice request's lookup (sql/lookup.ts), so the
 * next new call to the same number can skip the lookup's seven-table read: issue #24. An entry is only a
 * guess. The statement that inserts the call checks it against the account's `routingVersion`, which the
 * database bumps in the same transaction as any change of the account, its numbers, its Twilio connection
 * or its limits (prisma/migrations/…_routing_version), so a stale entry inserts nothing and the request
 * takes the full lookup, which refreshes or drops it. Instances share nothing: each one's entries are
 * checked by the one database, so any number of them can run behind a load balancer.
 *
 * Only the plain case inserts on an entry (sql/lookup.ts, lookupAndInsert): an ACTIVE account found by its
 * current routing token, an active number, no Twilio connection (nothing to verify), no spend cap, no daily
 * minute cap and no concurrency cap. Those are the routings that no running total can change between two
 * calls; anything else is read afresh on every call, as before.
 *
 * Every other routing of an ACTIVE account's number is kept too, marked not `plain`, for one use only:
 * while the database is down, a voice request for a number this instance has seen is still put to the
 * customer's backend (answer-during-outage.ts, docs/decisions.md §7), with the Twilio connection's token
 * (encrypted, as stored) to check its signature.
 */
import type { EngineAccount, EngineConnection, EngineNumber } from "../services/calls/call-row";

export type CachedRouting = {
  account: EngineAccount;
  number: EngineNumber;
  /** The account's routingVersion when this was read (int8, as text). */
  version: string;
  /** The plain case: a new call may be inserted on this entry. Otherwise it serves only an outage. */
  plain: boolean;
  /** The account's Twilio connection when it has one: an outage's requests are verified with it. */
  connection: EngineConnection | null;
};

/** Entries kept per instance; past it, the oldest goes. A few hundred bytes each. */
const ROUTING_CACHE_MAX = 10_000;

const entries = new Map<string, CachedRouting>();

// The token's hash, not the token: this map never holds a secret a heap dump could replay.
const keyOf = (tokenHash: string, to: string) => `${tokenHash} ${to}`;

/** The plain routing to insert a new call on, if this instance has one. */
export function cachedRouting(tokenHash: string, to: string): CachedRouting | undefined {
  const entry = entries.get(keyOf(tokenHash, to));
  return entry?.plain ? entry : undefined;
}

/** Whatever this instance last read of the number's routing, plain or not: for an outage only. */
export function lastKnownRouting(tokenHash: string, to: string): CachedRouting | undefined {
  return entries.get(keyOf(tokenHash, to));
}

export function rememberRouting(tokenHash: string, to: string, routing: CachedRouting): void {
  const key = keyOf(tokenHash, to);
  entries.delete(key);
  if (entries.size >= ROUTING_CACHE_MAX) entries.delete(entries.keys().next().value!);
  entries.set(key, routing);
}

export function forgetRouting(tokenHash: string, to: string): void {
  entries.delete(keyOf(tokenHash, to));
}
