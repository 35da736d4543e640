import { AppError } from "../errors/app-error";
import { ERROR_STATUS } from "../errors/error-codes";
import { isTransientError } from "../errors/to-error-response";
import { logger } from "../logger";
import { remember } from "../runtime/remember";
import { DurableJournal } from "./durable-journal";
import { finalStatusJournalDir } from "./journal-health";
import type { EngineParams } from "./engine-params";
import { EMPTY_TWIML, handleEngineRequest, type EngineRequest } from "./handle-engine-request";
import { applyAnsweredCall, type JournaledCall } from "./journaled-call";

/**
 * How long a final status may wait on the database before it is journaled
 * instead. Twilio gives a webhook 15 s and does not retry a failed status
 * callback: within this budget the status is either applied or on disk.
 */
const FINAL_STATUS_DEADLINE_MS = 4_000;
/** Bounds the disk an outage (or a flood of forged callbacks during one) can fill. */
const MAX_JOURNALED = 200_000;
const REPLAY_INTERVAL_MS = 2_000;

/** A final status, as Twilio sent it (entries written before calls were journaled too have no `kind`). */
type JournaledRequest = Omit<EngineRequest, "params" | "receivedAt"> & {
  kind?: undefined;
  params: [string, string][];
  receivedAt: string;
};

/**
 * One journal, in order of arrival, for what the database could not take: final statuses, and calls
 * answered during an outage (journaled-call.ts). One journal keeps a call's creation ahead of its end.
 */
type JournalEntry = JournaledRequest | JournaledCall;

/** The engine's journal, under DATA_DIR: one per process, whichever module graph asks (it keeps a count). */
export function finalStatusJournal(): DurableJournal<JournalEntry> {
  return remember("engine.journal", () => new DurableJournal(finalStatusJournalDir(), { maxEntries: MAX_JOURNALED }));
}

/**
 * The SIDs of calls this instance answered during an outage whose creation is still in the journal. Their
 * final statuses join the journal behind them, even once the database is back, so that a call is never
 * ended before it exists (an unverified final status of an unknown call is dropped, docs/decisions.md §7).
 */
function awaitingCreation(): Set<string> {
  return remember("engine.journal.awaitingCreation", () => new Set<string>());
}

/** Journals a call answered while the database was down (answer-during-outage.ts); resolves once it is on disk. */
export async function journalAnsweredCall(entry: JournaledCall): Promise<void> {
  await finalStatusJournal().append(entry);
  awaitingCreation().add(entry.call.callSid);
}

/**
 * A final status callback: applied now, or, when the database cannot take it
 * within the deadline, written durably to the local journal and answered 200
 * all the same, to be applied once the database is back (docs/decisions.md §7).
 * Applying twice is harmless: a call closes once, its usage has a unique SID.
 */
export async function handleFinalStatus(req: EngineRequest, deadlineMs = FINAL_STATUS_DEADLINE_MS): Promise<string> {
  const receivedAt = req.receivedAt ?? new Date();
  if (req.params.CallSid && awaitingCreation().has(req.params.CallSid)) return journalFinalStatus(req, receivedAt);
  const work = handleEngineRequest({ ...req, receivedAt });
  // Past the deadline the work may still fail; the journal has the status by then.
  work.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  try {
    const outcome = await Promise.race([
      work,
      new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), deadlineMs))),
    ]);
    if (outcome !== null) return outcome;
  } catch (err) {
    if (!isTransientError(err)) throw err;
  } finally {
    clearTimeout(timer);
  }
  return journalFinalStatus(req, receivedAt);
}

/**
 * Writes a final status to the journal, to be applied once the database is
 * back, and answers what Twilio gets: the database is known to be down (a
 * degraded start), or it did not answer within the deadline.
 */
export async function journalFinalStatus(
  req: EngineRequest,
  receivedAt: Date = req.receivedAt ?? new Date(),
): Promise<string> {
  try {
    await finalStatusJournal().append({
      ...req,
      params: Object.entries(req.params),
      receivedAt: receivedAt.toISOString(),
    });
  } catch (err) {
    logger().error({ err: err instanceof Error ? err.message : String(err) }, "a final status could not be journaled");
    throw new AppError("SERVICE_UNAVAILABLE", "The final status could not be recorded; try again.", { cause: err });
  }
  logger().warn(
    { callSid: req.params.CallSid, status: req.params.CallStatus },
    "database unavailable: final status journaled, applied once it is back",
  );
  return EMPTY_TWIML;
}

function fromJournal(entry: JournaledRequest): EngineRequest {
  const params = Object.create(null) as EngineParams;
  for (const [name, value] of entry.params) params[name] = value;
  return { ...entry, params, receivedAt: new Date(entry.receivedAt) };
}

/** Applies one journaled status, exactly as if it had just arrived (signature checks included), or a journaled call. */
async function applyJournaled(entry: JournalEntry, name: string): Promise<"done" | "retry" | "skip"> {
  if (entry.kind === "answered-call") {
    const outcome = await applyAnsweredCall(entry, name);
    if (outcome === "done") awaitingCreation().delete(entry.call.callSid);
    else awaitingCreation().add(entry.call.callSid);
    return outcome;
  }
  try {
    await handleEngineRequest(fromJournal(entry));
    return "done";
  } catch (err) {
    if (isTransientError(err)) return "retry";
    if (err instanceof AppError && ERROR_STATUS[err.code] < 500) {
      // Refused as it would have been live (unknown URL, bad signature): nothing to apply.
      logger().info({ entry: name, code: err.code }, "journaled final status refused");
      return "done";
    }
    logger().error({ err, entry: name }, "journaled final status could not be applied; kept for the next pass");
    return "skip";
  }
}

/** One pass over the journal; exported for the tests and the start-up. */
export async function replayFinalStatuses(): Promise<{ applied: number; corrupt: number; remaining: number }> {
  const result = await finalStatusJournal().replay(applyJournaled);
  if (result.applied || result.corrupt) logger().info(result, "journaled final statuses applied");
  return result;
}

/** At start and then every few seconds: what an outage left in the journal reaches the database once it is back. */
export function startFinalStatusReplay(): () => void {
  const run = () =>
    void replayFinalStatuses().catch((err: unknown) => logger().error({ err }, "final status journal replay failed"));
  run();
  const timer = setInterval(run, REPLAY_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
