/** A live call's progress: its SID learnt, its status moved forward, with the request on its timeline. */
import { sql, type Kysely, type QueryCreator, type SqlBool } from "kysely";
import type { EventEnvelope } from "../../webhooks/event-envelope";
import { endpointDeliveries, wakeDeliveryWorker } from "../../webhooks/enqueue-event";
import { kysely, now, type DB } from "../../db/kysely";
import { TERMINAL_RANK } from "../../services/calls/call-status";
import { withTimeline, type TimelineRequest } from "../../services/calls/close-call";

/** An outbound call's SID, learnt from Twilio's first callback if it beats `calls.create` returning. */
export async function bindCallSid(callId: string, callSid: string): Promise<void> {
  await kysely()
    .updateTable("Call")
    .set({ callSid, lastRequestAt: now(), updatedAt: now() })
    .where("id", "=", callId)
    .where("callSid", "like", "pending:%")
    .execute();
}

/**
 * Progress only moves forward: a duplicate or a late status changes nothing
 * but the time of Twilio's last request, which tells reconciliation the call
 * is still alive (in the statement the request runs anyway).
 */
export async function advanceCall(opts: {
  callId: string;
  status: string;
  rank: number;
  answeredBy: string | null;
  answered: boolean;
  /** Null when the request is logged elsewhere (a voice request: call-log.ts). */
  request: TimelineRequest | null;
  /**
   * call.ringing / call.answered (docs/decisions.md §15): recorded in this same statement, for the account's
   * subscribed endpoints only and only on the first status callback that reports it (`reportedAs`: Twilio's
   * spellings) while the call has not ended; zero rows (and no further statement) when none subscribes.
   * Answers the ids of the deliveries written, each queued as it is written (jobs/delivery-queue/).
   */
  progressEvent?: { accountId: string; event: EventEnvelope; reportedAs: readonly string[] };
}): Promise<string[]> {
  const { rank } = opts;
  const statement = (db: Kysely<DB>) => withTimeline(db, opts.callId, now(), opts.request, opts.status);
  const update = (q: QueryCreator<DB>) =>
    q
      .updateTable("Call")
      .set((eb) => {
        const forward = eb("statusRank", "<", rank);
        return {
          status: eb.case().when(forward).then(opts.status).else(eb.ref("status")).end(),
          statusRank: eb.fn<number>("greatest", [eb.ref("statusRank"), eb.val(rank)]),
          answeredBy: eb.case().when(forward).then(opts.answeredBy).else(eb.ref("answeredBy")).end(),
          answeredAt: opts.answered
            ? eb.case().when(forward).then(now()).else(eb.ref("answeredAt")).end()
            : eb.ref("answeredAt"),
          lastRequestAt: now(),
          updatedAt: now(),
        };
      })
      .where("id", "=", opts.callId)
      .where("statusRank", "<", TERMINAL_RANK);
  if (!opts.progressEvent) {
    await update(statement(kysely())).execute();
    return [];
  }
  const { accountId, event, reportedAs } = opts.progressEvent;
  // The deliveries are their own queue entries: written by this statement, they are queued with it.
  const rows = await statement(kysely())
    .with("to_endpoints", (q) =>
      endpointDeliveries(q, {
        accountId,
        event,
        payload: JSON.stringify(event),
        callSid: typeof event.data.callSid === "string" ? event.data.callSid : null,
        when: firstReport(opts.callId, reportedAs),
      }),
    )
    .with("moved", (q) => update(q).returning("id"))
    .selectFrom("to_endpoints")
    .select(["id", "url"])
    .execute();
  const ids = rows.map((r) => r.id);
  if (ids.length) wakeDeliveryWorker();
  return ids;
}

/**
 * The statement's snapshot is the call before this request: a progress event is news when the call has not
 * ended and no earlier status callback reported the same status. Not "moved forward": an outbound call's
 * answer request makes it in-progress before (or after) Twilio's `answered` status callback, in either order.
 */
function firstReport(callId: string, reportedAs: readonly string[]) {
  return sql<SqlBool>`exists (select 1 from "Call" where "id" = ${callId} and "statusRank" < ${TERMINAL_RANK})
    and not exists (select 1 from "CallRequest" where "callId" = ${callId} and "kind" = 'status'
      and "callStatus" = any(${[...reportedAs]}::text[]))`;
}
