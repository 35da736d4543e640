import { CALL_COLUMNS, engineAccounts, type EngineCall } from "../calls/call-row";
import { TERMINAL_RANK } from "../calls/call-status";
import { kysely } from "../../db/kysely";
import { finishCall } from "../calls/finish-call";
import { logger } from "../../logger";

/**
 * Twilio's default call time limit (4 h) plus a margin: a call of an account
 * without a Twilio connection that has heard nothing from Twilio for this long
 * is over, whatever became of its final status (docs/decisions.md §14).
 */
export const NO_FINAL_STATUS_AFTER_MS = (4 * 60 + 10) * 60_000;
const BATCH = 200;
/** Batches per run: a backlog is worked off over a few runs, each bounded. */
const MAX_BATCHES = 10;

/**
 * Calls still open, silent since `before`, of accounts that have no Twilio
 * connection (a connected account's silent calls are read from Twilio's
 * record instead, reconcile-twilio-calls.ts). Oldest silence first, on the
 * index on (statusRank, lastRequestAt).
 */
async function unfinishedCalls(before: Date, limit: number): Promise<EngineCall[]> {
  return kysely()
    .selectFrom("Call")
    .select(CALL_COLUMNS)
    .where("statusRank", "<", TERMINAL_RANK)
    .where("lastRequestAt", "<", before)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom("TwilioConnection as tc").select("tc.accountId").whereRef("tc.accountId", "=", "Call.accountId"),
        ),
      ),
    )
    .orderBy("lastRequestAt")
    .limit(limit)
    .execute();
}

export type CloseUnfinishedResult = { closed: number };

/**
 * Closes the calls whose final status never came, for accounts without a
 * Twilio connection: status `unknown`, endReason `no-final-status`, nothing
 * billed (no usage record, no meter event, no running totals), and
 * `call.ended` sent all the same, through the one close path (finish-call.ts),
 * so a run racing another instance's, or a final status arriving at the last
 * moment, closes each call exactly once. `now` is injectable for tests.
 */
export async function closeUnfinishedCalls(opts: { now?: Date } = {}): Promise<CloseUnfinishedResult> {
  const now = opts.now ?? new Date();
  const before = new Date(now.getTime() - NO_FINAL_STATUS_AFTER_MS);
  const result: CloseUnfinishedResult = { closed: 0 };
  for (let batch = 0; batch < MAX_BATCHES; batch++) {
    const calls = await unfinishedCalls(before, BATCH);
    const accounts = await engineAccounts([...new Set(calls.map((c) => c.accountId))]);
    let progressed = false;
    for (const call of calls) {
      const account = accounts.get(call.accountId);
      if (!account) continue;
      try {
        const closed = await finishCall({
          account,
          call,
          status: "unknown",
          durationSeconds: 0,
          answeredBy: call.answeredBy,
          endedAt: now,
          reconciled: false,
          endReason: "no-final-status",
        });
        if (closed) result.closed++;
        progressed = true;
      } catch (err) {
        logger().warn(
          { callSid: call.callSid, err: err instanceof Error ? err.message : String(err) },
          "could not close a call whose final status never came",
        );
      }
    }
    // A short batch was the last; a batch where nothing could be closed would only be read again.
    if (calls.length < BATCH || !progressed) break;
  }
  return result;
}
