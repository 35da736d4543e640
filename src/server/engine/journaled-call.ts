/**
 * A call answered while the database was down (answer-during-outage.ts, docs/decisions.md §7): what the
 * engine would have written at once (the call's row, its answer in the call log, a failed primary's
 * `call.error`), kept in the engine's journal and written here once the database is back. Its final
 * status follows it in the same journal, so the call is billed once, by the usual close
 * (finish-call.ts), and `call.ended` is delivered as for any call.
 */
import { isTransientError } from "../errors/to-error-response";
import { kysely } from "../db/kysely";
import { logger } from "../logger";
import { transactionWithEvents } from "../webhooks/enqueue-event";
import type { EventEnvelope } from "../webhooks/event-envelope";
import { recordAnswerNow, type AnswerRecord } from "./call-log";
import { insertInboundCallOnce } from "../services/calls/insert-call";
import type { EngineCall } from "../services/calls/call-row";
import type { ReplayOutcome } from "./durable-journal";

/** Dates travel as ISO strings through the journal's JSON. */
type Jsonified<T> = { [K in keyof T]: T[K] extends Date ? string : T[K] extends (infer E)[] ? Jsonified<E>[] : T[K] };

export type JournaledCall = {
  kind: "answered-call";
  /** When Twilio's voice request arrived: the call's row is dated then. */
  receivedAt: string;
  call: Pick<
    EngineCall,
    | "callSid"
    | "accountId"
    | "phoneNumberId"
    | "fromNumber"
    | "toNumber"
    | "statusRank"
    | "onCallStartUrl"
    | "onCallEndUrl"
    | "onErrorUrl"
    | "answerPolicy"
  > & { status: string };
  /** The call log's record of the answer, its call id set once the row exists. */
  answer: Omit<Jsonified<AnswerRecord>, "callId" | "event"> & { event: EventEnvelope };
  /** A failed primary's `call.error`, built when the call was answered (its id is kept on every try). */
  callError: EventEnvelope | null;
};

/** The journal's form of an answer record (its call id is the row's, known only once it is written). */
export function journaledAnswer(rec: AnswerRecord): JournaledCall["answer"] {
  const { callId: _id, ...rest } = rec;
  return JSON.parse(JSON.stringify(rest)) as JournaledCall["answer"];
}

function answerRecordOf(entry: JournaledCall, callId: string): AnswerRecord {
  const { answer } = entry;
  return {
    ...answer,
    callId,
    requestAt: new Date(answer.requestAt),
    attempts: answer.attempts.map((a) => ({ ...a, at: new Date(a.at) })),
  };
}

/**
 * Writes one journaled call: its row (once per SID, dated when it came, never counted against
 * maxConcurrentCalls: limits are not enforced for calls answered during an outage), then, unless the
 * call already has an answer (a replay after a crash, or Twilio's retry answered once the database was
 * back), its `call.error` and its answer. Idempotent: the journal may apply an entry twice.
 */
export async function applyAnsweredCall(entry: JournaledCall, name: string): Promise<ReplayOutcome> {
  try {
    const recorded = await insertInboundCallOnce({ ...entry.call, counted: false, at: new Date(entry.receivedAt) });
    const call = recorded.call;
    // The SID is another account's call: nothing of this one can be written.
    if (!call) {
      logger().warn({ entry: name, callSid: entry.call.callSid }, "journaled call's SID belongs to another account");
      return "done";
    }
    if (!recorded.inserted && (await hasAnswer(call.id))) return "done";
    const callError = entry.callError;
    if (callError)
      await transactionWithEvents((_client, emit) =>
        emit({ accountId: call.accountId, url: call.onErrorUrl, event: callError }),
      );
    await recordAnswerNow(answerRecordOf(entry, call.id));
    return "done";
  } catch (err) {
    if (isTransientError(err)) return "retry";
    logger().error({ err, entry: name }, "journaled call could not be written; kept for the next pass");
    return "skip";
  }
}

async function hasAnswer(callId: string): Promise<boolean> {
  const row = await kysely().selectFrom("Call").select("answer").where("id", "=", callId).executeTakeFirst();
  return row?.answer !== null && row?.answer !== undefined;
}
