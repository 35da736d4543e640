/** Rejected calls in the call log (docs/decisions.md §14), once per SID and within each account's daily bound. */
import { sql } from "kysely";
import { newDatabaseId } from "../db/database-id";
import { kysely } from "../db/kysely";
import { NEW_INBOUND_COLUMNS, newInboundSelection } from "../services/calls/call-row";
import { metrics } from "../metrics/metrics";
import type { CallEndReason } from "../../shared/schemas/enums";
import { TERMINAL_RANK } from "../services/calls/call-status";
import { writeLater } from "./write-later";

/**
 * Rejected calls recorded per account per 24 hours. A reject costs whoever
 * sends it nothing, and an account without a Twilio connection cannot tell a
 * forged request from Twilio's, so a flood must not grow the table without
 * bound: past this, rejects are still answered and still send `call.error`,
 * they are only not listed.
 */
const REJECTED_CALLS_PER_DAY = 1_000;

export type RejectedCall = {
  callSid: string;
  accountId: string;
  /** Null for a number not registered to the account. */
  phoneNumberId: string | null;
  from: string;
  to: string;
  urls: { onCallStartUrl: string; onCallEndUrl: string; onErrorUrl: string | null };
  at: Date;
  requestStatus: string;
  error: { code: string; message: string };
  /** docs/decisions.md §14: not-registered, account-inactive or account-suspended. */
  endReason: CallEndReason;
  twiml: string;
};

/** What a rejected call's row has beyond a new call's: it ended as it came, refused, and says why. */
const REJECTED_COLUMNS = [
  "endedAt",
  "lastRequestAt",
  "createdAt",
  "answer",
  "errorCode",
  "errorMessage",
  "endReason",
  "twiml",
  "voiceRequestAt",
  "voiceRequestStatus",
] as const;

/** A rejected call, once per SID, within the account's daily bound, with the voice request on its timeline (its own row). */
export function recordRejectedLater(rec: RejectedCall): void {
  metrics().engineAnswers.inc({ form: "reject" });
  const recentRejects = kysely()
    .selectFrom("Call")
    .select(sql<number>`1`.as("one"))
    .where("accountId", "=", rec.accountId)
    .where("status", "=", "rejected")
    .where("createdAt", ">", sql<Date>`now() - interval '1 day'`)
    .limit(REJECTED_CALLS_PER_DAY);
  const query = kysely()
    .insertInto("Call")
    .columns([...NEW_INBOUND_COLUMNS, ...REJECTED_COLUMNS])
    .expression(
      kysely()
        .selectNoFrom((s) => [
          ...newInboundSelection({
            id: s.val(newDatabaseId()),
            callSid: s.val(rec.callSid),
            accountId: s.val(rec.accountId),
            phoneNumberId: s.val(rec.phoneNumberId),
            direction: s.val("inbound"),
            fromNumber: s.val(rec.from),
            toNumber: s.val(rec.to),
            status: s.val("rejected"),
            statusRank: s.val(TERMINAL_RANK),
            onCallStartUrl: s.val(rec.urls.onCallStartUrl),
            onCallEndUrl: s.val(rec.urls.onCallEndUrl),
            onErrorUrl: s.val(rec.urls.onErrorUrl),
            answerPolicy: s.val(null),
          }),
          s.val(rec.at).as("endedAt"),
          s.val(rec.at).as("lastRequestAt"),
          s.val(rec.at).as("createdAt"),
          s.val("reject").as("answer"),
          s.val(rec.error.code).as("errorCode"),
          s.val(rec.error.message).as("errorMessage"),
          s.val(rec.endReason).as("endReason"),
          s.val(rec.twiml).as("twiml"),
          s.val(rec.at).as("voiceRequestAt"),
          s.val(rec.requestStatus).as("voiceRequestStatus"),
        ])
        .where((w) =>
          w(
            w.selectFrom(recentRejects.as("recent")).select((c) => c.fn.countAll<number>().as("n")),
            "<",
            REJECTED_CALLS_PER_DAY,
          ),
        ),
    )
    .onConflict((oc) => oc.column("callSid").doNothing());
  writeLater("rejected call", rec.callSid, () => query.execute());
}
