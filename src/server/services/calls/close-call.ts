/**
 * Closing a call, once, whoever closes it (its final status, reconciliation, the no-final-status close):
 * its status, duration and end reason, the request on its timeline, and its live slot given back.
 */
import { sql, type Kysely, type QueryCreator } from "kysely";
import { now, type DB } from "../../db/kysely";

/**
 * Gives back the call's live slot, if it holds one, in the transaction that moved it to a terminal
 * status (docs/decisions.md §17): the slot's delete happens once, so the count goes down once, whoever
 * closed the call (its final status, reconciliation, the no-final-status close).
 */
export async function freeLiveSlot(trx: Kysely<DB>, callId: string): Promise<boolean> {
  const result = await trx
    .with("freed", (q) => q.deleteFrom("LiveCallSlot").where("callId", "=", callId).returning("accountId"))
    .updateTable("AccountLimit")
    .set((eb) => ({ liveCalls: eb("AccountLimit.liveCalls", "-", 1) }))
    .from("freed")
    .whereRef("AccountLimit.accountId", "=", "freed.accountId")
    .returning("AccountLimit.liveCalls")
    .executeTakeFirst();
  return result !== undefined;
}

/** A request on the call's timeline: Twilio's status callback, or reconciliation reading Twilio's call record. */
export type TimelineRequest = {
  /** `closed`: Routekit closed the call because its final status never came (docs/decisions.md §14). */
  kind: "status" | "reconciliation" | "closed";
  sequenceNumber: number | null;
  /** The CallStatus as Twilio sent it, where it differs from the status stored (`answered`). */
  sentStatus?: string;
};

// Each status request goes on the call's timeline (CallRequest) in the statement it runs anyway;
// a data-modifying CTE always runs, so duplicates and late statuses are on the timeline too.
export function withTimeline(
  db: Kysely<DB>,
  callId: string,
  at: Date | ReturnType<typeof now>,
  request: TimelineRequest | null,
  status: string,
): QueryCreator<DB> {
  if (!request) return db;
  return db.with("timeline", (q) =>
    q.insertInto("CallRequest").values({
      callId,
      at,
      kind: request.kind,
      callStatus: request.sentStatus ?? status,
      sequenceNumber: request.sequenceNumber,
    }),
  ) as unknown as QueryCreator<DB>;
}

/**
 * Closes a call once: false when it was already closed (a duplicate, a late
 * callback, or reconciliation and a callback racing). The provider token goes with it.
 */
/** docs/decisions.md §20: an unverifiable final status bills at most the call's lifetime so far plus this. */
const UNVERIFIED_DURATION_SLACK_SECONDS = 60;

/**
 * Closes the call unless it already is; answers the seconds stored (and to
 * bill), or null when it was closed before. With `clampToLifetime` (a final
 * status nothing could verify) `durationSeconds` is capped at the time from
 * the call's first request to `endedAt` (when the status was received, even
 * if it is applied later from the journal) plus the slack; what was
 * reported beyond that is kept in `reportedDurationSeconds` for the timeline.
 */
export async function closeCall(
  db: Kysely<DB>,
  opts: {
    callId: string;
    status: string;
    rank: number;
    endedAt: Date;
    durationSeconds: number;
    answeredBy: string | null;
    reconciled: boolean;
    /** Null when the caller logs it itself, only if the call was closed. */
    request: TimelineRequest | null;
    clampToLifetime?: boolean;
    /** docs/decisions.md §14, with Twilio's carrier codes when its callback carried them. */
    endReason: string;
    sipResponseCode?: number | null;
    twilioErrorCode?: number | null;
  },
): Promise<{ durationSeconds: number; endReason: string } | null> {
  const failed = opts.status === "failed";
  // A call ended by a live command (hung up through the API, or transferred) says so, whatever
  // Twilio's final status: the command marked it (services/calls/control), its close reads the mark.
  const controlled = opts.status === "completed" || opts.status === "canceled";
  const reported = sql<number>`${opts.durationSeconds}::int`;
  const lifetime = sql<number>`(greatest(0, ceil(extract(epoch from (${opts.endedAt}::timestamptz - "createdAt")))) + ${UNVERIFIED_DURATION_SLACK_SECONDS})::int`;
  const clamp = opts.clampToLifetime === true && opts.durationSeconds > 0;
  const result = await withTimeline(db, opts.callId, opts.endedAt, opts.request, opts.status)
    .updateTable("Call")
    .set((eb) => ({
      status: opts.status,
      statusRank: opts.rank,
      endedAt: opts.endedAt,
      durationSeconds: clamp ? sql<number>`least(${reported}, ${lifetime})` : opts.durationSeconds,
      reportedDurationSeconds: clamp
        ? sql<number | null>`case when ${reported} > ${lifetime} then ${reported} end`
        : null,
      answeredBy: opts.answeredBy,
      endReason: controlled ? eb.fn.coalesce("controlEnd", eb.val(opts.endReason)) : opts.endReason,
      sipResponseCode: opts.sipResponseCode ?? null,
      twilioErrorCode: opts.twilioErrorCode ?? null,
      providerAuthTokenEnc: null,
      lastRequestAt: now(),
      reconciledAt: opts.reconciled ? now() : eb.ref("reconciledAt"),
      updatedAt: now(),
      // A failed call says why, unless it already does (SET sees the row as it was).
      errorCode: failed ? eb.fn.coalesce("errorCode", eb.val("CALL_FAILED")) : eb.ref("errorCode"),
      errorMessage: failed
        ? eb
            .case()
            .when("errorCode", "is", null)
            .then("Twilio reported the call as failed.")
            .else(eb.ref("errorMessage"))
            .end()
        : eb.ref("errorMessage"),
    }))
    .where("id", "=", opts.callId)
    .where("statusRank", "<", opts.rank)
    .returning(["durationSeconds", "endReason"])
    .executeTakeFirst();
  return result === undefined
    ? null
    : { durationSeconds: result.durationSeconds ?? 0, endReason: result.endReason ?? opts.endReason };
}
