import { sql, type Expression, type QueryCreator, type SqlBool } from "kysely";
import { now, type DB } from "../db/kysely";
import { sqlTransaction, type SqlTransaction } from "../db/sql-transaction";
import { wakeWorker } from "../jobs/job-queue";
import {
  DELIVERY_QUEUE,
  QUEUED_COLUMNS,
  queuedSelection,
  queuedValues,
} from "../jobs/delivery-queue/postgres-delivery-queue";
import type { EventEnvelope } from "./event-envelope";
import { ALL_EVENTS } from "../../shared/schemas/events";

type EmitOptions<U extends string | null> = {
  accountId: string;
  /** The number's (or call's) URL for the event's type; null when it has none, so only endpoints receive it. */
  url: U;
  event: EventEnvelope;
  /** Endpoints at this URL get no delivery of it: an alert is never sent to the failing destination it is about (§16). */
  exceptUrl?: string;
};
/** Records an event's deliveries; answers the id of the delivery to `url` (null when there is no url). */
export type Emit = {
  (opts: EmitOptions<string>): Promise<string>;
  (opts: EmitOptions<string | null>): Promise<string | null>;
};

/**
 * INSERT … SELECT of one delivery per enabled webhook endpoint of the account subscribed to the event's type
 * (or to `*`), RETURNING their ids: zero rows when none matches, so the subscription check costs no statement
 * of its own. `when` gates it further on a condition of the statement it is part of (a call that moved forward).
 */
export function endpointDeliveries(
  q: QueryCreator<DB>,
  opts: {
    accountId: string;
    event: EventEnvelope;
    payload: string;
    callSid: string | null;
    when?: Expression<SqlBool>;
    exceptUrl?: string;
  },
) {
  const { accountId, event, payload, callSid } = opts;
  return q
    .insertInto("WebhookDelivery")
    .columns([
      "accountId",
      "eventId",
      "eventType",
      "callSid",
      "url",
      "payload",
      "nextAttemptAt",
      "endpointId",
      ...QUEUED_COLUMNS,
    ])
    .expression((eb) =>
      eb
        .selectFrom("WebhookEndpoint as e")
        .select([
          "e.accountId",
          sql.val(event.id).as("eventId"),
          sql.val(event.type).as("eventType"),
          sql.val(callSid).as("callSid"),
          "e.url",
          sql.val(payload).as("payload"),
          now().as("nextAttemptAt"),
          "e.id",
          ...queuedSelection(sql.ref<string>("e.accountId"), sql.ref<string>("e.url")),
        ])
        .where("e.accountId", "=", accountId)
        .where("e.enabled", "=", true)
        .where(sql<boolean>`${sql.ref("e.eventTypes")} && array[${event.type}, ${ALL_EVENTS}]::text[]`)
        .$if(opts.when !== undefined, (w) => w.where(opts.when!))
        .$if(opts.exceptUrl !== undefined, (w) => w.where("e.url", "<>", opts.exceptUrl!)),
    )
    .returning(["id", "url"]);
}

/** A delivery just written, and where it goes. */
type WrittenDelivery = { id: string; url: string };

/** Starts this instance's delivery worker on what was just committed, rather than at its next poll. */
export function wakeDeliveryWorker(): void {
  wakeWorker(DELIVERY_QUEUE);
}

/**
 * One statement that records an event's deliveries (docs/decisions.md §15), each queued as it is written
 * (jobs/delivery-queue/: the row is its own queue entry): to `url` when there is one, and
 * to every enabled webhook endpoint of the account subscribed to the event's type (or to `*`), each its own
 * row with the same event id and body. The subscription check is the INSERT … SELECT's WHERE, so an account
 * with no such endpoint costs nothing more than today's insert. Answers the rows written (the number's first).
 */
async function insertDeliveries(
  trx: SqlTransaction,
  opts: { accountId: string; url: string | null; event: EventEnvelope; exceptUrl?: string },
): Promise<WrittenDelivery[]> {
  const { accountId, url, event, exceptUrl } = opts;
  const payload = JSON.stringify(event);
  const callSid = typeof event.data.callSid === "string" ? event.data.callSid : null;
  const withEndpoints = trx.with("to_endpoints", (q) =>
    endpointDeliveries(q, { accountId, event, payload, callSid, exceptUrl }),
  );
  if (url === null) return withEndpoints.selectFrom("to_endpoints").select(["id", "url"]).execute();
  // The number's row first: emit answers its id.
  const rows = await withEndpoints
    .with("to_url", (q) =>
      q
        .insertInto("WebhookDelivery")
        .values({
          accountId,
          eventId: event.id,
          eventType: event.type,
          callSid,
          url,
          payload,
          nextAttemptAt: now(),
          ...queuedValues(accountId, url),
        })
        .returning(["id", "url"]),
    )
    .selectFrom("to_url")
    .select(["id", "url"])
    .unionAll((eb) => eb.selectFrom("to_endpoints").select(["id", "url"]))
    .execute();
  return rows;
}

/**
 * An `emit` for a transaction the caller already runs (a Stripe event's, say): the deliveries are written
 * in it; the worker finds them at its next poll.
 */
export function emitIn(trx: SqlTransaction): Emit {
  return (async ({ accountId, url, event, exceptUrl }: EmitOptions<string | null>) => {
    const written = await insertDeliveries(trx, { accountId, url, event, exceptUrl });
    return url === null ? null : (written[0]?.id ?? null);
  }) as Emit;
}

/**
 * Runs `work` in one transaction with an `emit` that records an event's
 * deliveries (queued as they are written) in that same transaction: no event without its state
 * change, no state change without its event. The local worker is woken after
 * the commit, so delivery starts at once.
 */
export async function transactionWithEvents<T>(work: (trx: SqlTransaction, emit: Emit) => Promise<T>): Promise<T> {
  let emitted = 0;
  const result = await sqlTransaction((trx) => {
    const emit = (async ({ accountId, url, event, exceptUrl }: EmitOptions<string | null>) => {
      const written = await insertDeliveries(trx, { accountId, url, event, exceptUrl });
      emitted += written.length;
      return url === null ? null : (written[0]?.id ?? null);
    }) as Emit;
    return work(trx, emit);
  });
  if (emitted) wakeDeliveryWorker();
  return result;
}
