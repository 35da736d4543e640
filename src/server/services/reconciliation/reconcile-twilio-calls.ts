import { decryptSecret } from "../../crypto/secret-box";
import { isTerminal, MAX_CALL_DURATION_SECONDS, statusRank, type TerminalStatus } from "../calls/call-status";
import { insertInboundCallOnce } from "../calls/insert-call";
import { engineAccounts, type EngineAccount, type EngineCall } from "../calls/call-row";
import {
  advanceReconciledThrough,
  postponeReconciliation,
  reconcileTargets,
  staleOpenCalls,
  type ReconcileTarget,
} from "./reconciliation-reads";
import { finishCall } from "../calls/finish-call";
import { noteTwilioError } from "../alerts/twilio-alerts";
import { twilioRestClient } from "../../integrations/twilio/twilio-rest-client";
import { logger } from "../../logger";

/** A call silent this long is asked about at Twilio (docs/decisions.md §10). */
export const STALE_AFTER_MS = 5 * 60_000;
/** Twilio's call list is read again this far behind the watermark: a call's record can appear a little late. */
const LIST_OVERLAP_MS = 15 * 60_000;
const STALE_BATCH = 200;

/** What Twilio's call record says, in the SDK's shape (CallInstance). */
type TwilioCall = {
  sid: string;
  status: string;
  duration: string | null;
  direction: string;
  from: string;
  to: string;
  answeredBy: string | null;
  startTime: Date | null;
  endTime: Date | null;
};

export type ReconcileResult = { closed: number; recorded: number; errors: number };

/**
 * Brings Routekit's calls in line with Twilio's own record, for accounts with
 * a Twilio connection: calls left open (their final status never arrived) are
 * closed with Twilio's final status and duration, and calls Twilio lists to
 * the account's verified numbers that never reached the engine are recorded.
 * Both go through the engine's close path (finish-call.ts): usage, totals, the
 * Stripe meter job and `call.ended` follow exactly once, however many runs
 * overlap. `now` is injectable for tests.
 */
export async function reconcileTwilioCalls(opts: { now?: Date } = {}): Promise<ReconcileResult> {
  const now = opts.now ?? new Date();
  const result: ReconcileResult = { closed: 0, recorded: 0, errors: 0 };
  await closeStaleCalls(now, result);
  for (const target of await reconcileTargets()) {
    await recordUnseenCalls(target, now, result).catch(async (err: unknown) => {
      result.errors++;
      // docs/decisions.md §16: Twilio rejected the connection's credentials (20003).
      await noteTwilioError(target.accountId, err, { accountSid: target.accountSid, during: "reconciliation", now });
      logger().warn(
        { accountId: target.accountId, err: errorText(err) },
        "reconciliation: could not read Twilio's call list",
      );
    });
  }
  return result;
}

async function closeStaleCalls(now: Date, result: ReconcileResult): Promise<void> {
  const stale = await staleOpenCalls(new Date(now.getTime() - STALE_AFTER_MS), STALE_BATCH);
  const accounts = await engineAccounts([...new Set(stale.map((s) => s.call.accountId))]);
  for (const { call, connection } of stale) {
    const account = accounts.get(call.accountId);
    if (!account) continue;
    try {
      // An outbound call placed with other credentials is Twilio's record in that account.
      const creds =
        call.providerAccountSid && call.providerAuthTokenEnc
          ? { sid: call.providerAccountSid, token: decryptSecret(call.providerAuthTokenEnc) }
          : { sid: connection.accountSid, token: decryptSecret(connection.authTokenEnc) };
      const record = (await twilioRestClient(creds.sid, creds.token).calls(call.callSid).fetch()) as TwilioCall;
      if (isTerminal(record.status)) {
        if (await close(account, call, record, now)) result.closed++;
      } else {
        await postponeReconciliation(call.id, now);
      }
    } catch (err) {
      if ((err as { status?: unknown }).status === 404) {
        await postponeReconciliation(call.id, now);
        continue;
      }
      result.errors++;
      if (!call.providerAccountSid)
        await noteTwilioError(call.accountId, err, {
          accountSid: connection.accountSid,
          during: "reconciliation",
          now,
        });
      logger().warn(
        { callSid: call.callSid, err: errorText(err) },
        "reconciliation: could not read Twilio's call record",
      );
    }
  }
}

async function recordUnseenCalls(target: ReconcileTarget, now: Date, result: ReconcileResult): Promise<void> {
  const client = twilioRestClient(target.accountSid, decryptSecret(target.authTokenEnc));
  const since = new Date((target.reconciledThrough ?? target.connectedAt).getTime() - LIST_OVERLAP_MS);
  let account: EngineAccount | undefined;
  // Up to where every call is settled: a call still live at Twilio keeps the watermark behind its start.
  let through = now;
  for (const number of target.numbers) {
    // Calls before the number was ours went wherever its voice URL pointed then.
    const after = since > number.createdAt ? since : number.createdAt;
    const listed = (await client.calls.list({ to: number.phoneNumber, startTimeAfter: after })) as TwilioCall[];
    for (const record of listed) {
      if (record.direction !== "inbound") continue;
      if (!isTerminal(record.status)) {
        if (record.startTime && record.startTime < through) through = record.startTime;
        continue;
      }
      if (record.startTime && record.startTime < number.createdAt) continue;
      // Recorded here if Routekit never saw the call. A call it knows is left to its
      // callbacks, and to the stale-call check if they stop; so is a call recorded by
      // an earlier run that stopped before closing it.
      const { call, inserted } = await insertInboundCallOnce({
        callSid: record.sid,
        accountId: target.accountId,
        phoneNumberId: number.id,
        fromNumber: record.from,
        toNumber: record.to,
        status: "in-progress",
        statusRank: statusRank("in-progress"),
        onCallStartUrl: number.onCallStartUrl,
        onCallEndUrl: number.onCallEndUrl,
        onErrorUrl: number.onErrorUrl,
        reconciled: true,
      });
      if (!call || !inserted) continue;
      account ??= (await engineAccounts([target.accountId])).get(target.accountId);
      if (account && (await close(account, call, record, now))) result.recorded++;
    }
  }
  await advanceReconciledThrough(target.accountId, through);
}

/** Twilio's final status and duration, through the engine's one close path. */
function close(account: EngineAccount, call: EngineCall, record: TwilioCall, now: Date): Promise<boolean> {
  const status = record.status as TerminalStatus;
  const seconds = Number.parseInt(record.duration ?? "0", 10);
  const durationSeconds = Number.isFinite(seconds) ? Math.min(Math.max(0, seconds), MAX_CALL_DURATION_SECONDS) : 0;
  return finishCall({
    account,
    call,
    status,
    durationSeconds,
    answeredBy: record.answeredBy ?? call.answeredBy,
    endedAt: record.endTime ?? now,
    reconciled: true,
  });
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
