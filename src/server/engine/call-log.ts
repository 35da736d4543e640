/**
 * What a call's timeline needs that the engine learns only once it has its
 * answer: how the call was decided, the TwiML returned, the `call.started`
 * attempt (docs/decisions.md §8, §11). Written after the TwiML is on its way to
 * Twilio, so the voice request gains no round trip before its answer, and in
 * batches: one statement for every call answered meanwhile. A write that fails
 * is tried again for a while, since Twilio does not ask twice and the timeline
 * would otherwise miss the call's decisive step.
 */
import { FALLBACK_ANSWERS, noteFallbackCalls } from "../services/alerts/scan-alerts";
import { metrics } from "../metrics/metrics";
import { sql } from "kysely";
import { newDatabaseId } from "../db/database-id";
import { executeCompiled, kysely, now, precompiled } from "../db/kysely";
import { logger } from "../logger";
import { remember } from "../runtime/remember";
import { countPendingWrites, writeLater } from "./write-later";
import type { EventEnvelope } from "../webhooks/event-envelope";

import type { CallAnswer, StartAttemptRole } from "../../shared/schemas/enums";

/** The TwiML kept per call: answers are small, and a timeline needs no more to show what Twilio was told. */
const TWIML_MAX_CHARS = 16 * 1024;
/** The answer's excerpt kept on a synchronous attempt (docs/decisions.md §11: up to 4 KiB). */
const START_EXCERPT_MAX_CHARS = 4 * 1024;

const cap = (s: string | null, n: number) => (s === null ? null : s.length > n ? s.slice(0, n) : s);

export type StartAttempt = {
  /** Which try (docs/decisions.md §12): onCallStartUrl, its one retry, or the fallback URL. */
  role: StartAttemptRole;
  url: string;
  /** When the POST began. */
  at: Date;
  latencyMs: number;
  /** Null when no HTTP answer came (timeout, refused address, connection error). */
  statusCode: number | null;
  responseBody: string | null;
  error: string | null;
  /** The answer form this try decided the call with, or the call.error code of why not. */
  outcome: string | null;
};

export type AnswerRecord = {
  callId: string;
  accountId: string;
  callSid: string;
  /** When Twilio's voice request arrived, and its CallStatus. */
  requestAt: Date;
  requestStatus: string;
  answer: CallAnswer;
  error: { code: string; message: string } | null;
  twiml: string;
  /** The `call.started` event as the primary got it: its JSON, signed (a fallback URL got it with `data.fallback`). */
  event: EventEnvelope;
  payload: string;
  /** Every try, in order; the first is the primary's. */
  attempts: StartAttempt[];
};

/** One call's answer as the batched statement takes it: a column each, unnested together. */
const ANSWER_COLUMNS = {
  callId: "text",
  deliveryId: "text",
  answer: "text",
  errorCode: "text",
  errorMessage: "text",
  twiml: "text",
  requestAt: "timestamptz",
  requestStatus: "text",
  accountId: "text",
  eventId: "text",
  callSid: "text",
  url: "text",
  payload: "text",
  status: '"DeliveryStatus"',
  at: "timestamptz",
  deliveredAt: "timestamptz",
  answerUse: "text",
  attemptCount: "int4",
} as const;
/** Each call's tries of call.started, as many rows as there were: their delivery is found by event id. */
const ATTEMPT_COLUMNS = {
  id: "text",
  eventId: "text",
  at: "timestamptz",
  url: "text",
  statusCode: "int4",
  latencyMs: "int4",
  responseExcerpt: "text",
  error: "text",
  role: "text",
  outcome: "text",
} as const;
type AttemptRow = {
  id: string;
  eventId: string;
  at: Date;
  url: string;
  statusCode: number | null;
  latencyMs: number;
  responseExcerpt: string | null;
  error: string | null;
  role: string;
  outcome: string | null;
};
const ATTEMPT_COLUMN_NAMES = Object.keys(ATTEMPT_COLUMNS) as (keyof AttemptRow)[];
type AnswerRow = {
  callId: string;
  deliveryId: string;
  answer: string;
  errorCode: string | null;
  errorMessage: string | null;
  twiml: string;
  requestAt: Date;
  requestStatus: string;
  accountId: string;
  eventId: string;
  callSid: string;
  url: string;
  payload: string;
  status: "DELIVERED" | "FAILED";
  at: Date;
  deliveredAt: Date | null;
  answerUse: string;
  attemptCount: number;
  attempts: AttemptRow[];
};
const ANSWER_COLUMN_NAMES = Object.keys(ANSWER_COLUMNS) as Exclude<keyof AnswerRow, "attempts">[];

/**
 * ASYNC_COMMIT: the call log's batch commits without waiting for its WAL to be flushed
 * (synchronous_commit = off, for this one statement's transaction; everything else, the call's own
 * row, billing and queued events, stays synchronous). What it saves: one WAL flush (an fsync) per batch,
 * which one call at a time is one per call. What it risks: if PostgreSQL itself crashes (not the app,
 * not a lost connection), the call-log rows of at most the last few hundred milliseconds
 * (3 × wal_writer_delay) may be missing from the timeline: the call's answer and TwiML, its voice request
 * entry and its call.started delivery with its attempts. The database stays consistent (an async commit
 * is lost whole or kept whole), and the call row itself, inserted before the answer, is durable;
 * the next synchronous commit on the server flushes these rows with it. docs/performance.md.
 *
 * Calls' answers, their voice requests on their timelines, and each call's `call.started` delivery with its
 * attempts (primary, retry, fallback URL): one statement for any number of calls (one array per column, so
 * its text never changes and it is prepared once per connection).
 */
const recordAnswers = precompiled((...columns: unknown[][]) =>
  kysely()
    .with(
      "v",
      () =>
        // Kysely writes a raw CTE body without the parentheses PostgreSQL needs. The cross join sets
        // synchronous_commit off for this statement's own transaction only (set_config's `true` is SET LOCAL):
        // its commit does not wait for the WAL to reach the disk. See ASYNC_COMMIT below.
        sql<
          Omit<AnswerRow, "attempts">
        >`(select v.* from unnest(${sql.join(ANSWER_COLUMN_NAMES.map((c, i) => sql`${columns[i]}::${sql.raw(ANSWER_COLUMNS[c])}[]`))}) as v(${sql.join(ANSWER_COLUMN_NAMES.map((c) => sql.ref(c)))}) cross join (select set_config('synchronous_commit', 'off', true)) as async_commit)`,
    )
    .with(
      "va",
      () =>
        sql<AttemptRow>`(select * from unnest(${sql.join(ATTEMPT_COLUMN_NAMES.map((c, i) => sql`${columns[ANSWER_COLUMN_NAMES.length + i]}::${sql.raw(ATTEMPT_COLUMNS[c])}[]`))}) as va(${sql.join(ATTEMPT_COLUMN_NAMES.map((c) => sql.ref(c)))}))`,
    )
    .with("c", (q) =>
      q
        .updateTable("Call")
        .from("v")
        .set((eb) => ({
          answer: eb.ref("v.answer"),
          // A call that ended (failed) before its answer was logged keeps the CALL_FAILED its close wrote.
          errorCode: eb.fn.coalesce("v.errorCode", "Call.errorCode"),
          errorMessage: eb
            .case()
            .when("v.errorCode", "is", null)
            .then(eb.ref("Call.errorMessage"))
            .else(eb.ref("v.errorMessage"))
            .end(),
          twiml: eb.ref("v.twiml"),
          // The voice request goes on the call's own row (no CallRequest row of its own) unless one is
          // there already: the call answered again, after Twilio retried a request whose answer it lost.
          voiceRequestAt: eb.fn.coalesce("Call.voiceRequestAt", "v.requestAt"),
          voiceRequestStatus: eb
            .case()
            .when("Call.voiceRequestAt", "is", null)
            .then(eb.ref("v.requestStatus"))
            .else(eb.ref("Call.voiceRequestStatus"))
            .end(),
          updatedAt: now(),
        }))
        .whereRef("Call.id", "=", "v.callId")
        // RETURNING shows the row as updated: a voiceRequestAt other than this request's was there before.
        .returning((eb) => [
          "Call.id",
          eb("Call.voiceRequestAt", "is distinct from", eb.ref("v.requestAt")).as("another"),
        ]),
    )
    .with("r", (q) =>
      q
        .insertInto("CallRequest")
        .columns(["callId", "at", "kind", "callStatus"])
        .expression((eb) =>
          eb
            .selectFrom("v")
            .innerJoin("c", "c.id", "v.callId")
            .where("c.another", "=", true)
            .select((s) => ["v.callId", "v.requestAt", s.val("voice").as("kind"), "v.requestStatus"]),
        ),
    )
    .with("d", (q) =>
      q
        .insertInto("WebhookDelivery")
        .columns([
          "id",
          "accountId",
          "eventId",
          "eventType",
          "callSid",
          "url",
          "payload",
          "status",
          "attemptCount",
          "cycleAttempts",
          "lastAttemptAt",
          "deliveredAt",
          "createdAt",
          "synchronous",
          "answerUse",
        ])
        .expression((eb) =>
          eb
            .selectFrom("v")
            .innerJoin("c", "c.id", "v.callId")
            .select((s) => [
              "v.deliveryId",
              "v.accountId",
              "v.eventId",
              s.val("call.started").as("eventType"),
              "v.callSid",
              "v.url",
              "v.payload",
              "v.status",
              "v.attemptCount",
              "v.attemptCount as cycleAttempts",
              "v.at as lastAttemptAt",
              "v.deliveredAt",
              "v.at as createdAt",
              s.val(true).as("synchronous"),
              "v.answerUse",
            ]),
        )
        .returning(["id", "eventId"]),
    )
    .insertInto("WebhookAttempt")
    .columns([
      "id",
      "deliveryId",
      "attemptedAt",
      "url",
      "statusCode",
      "latencyMs",
      "responseExcerpt",
      "error",
      "role",
      "outcome",
    ])
    .expression((eb) =>
      eb
        .selectFrom("d")
        .innerJoin("va", "va.eventId", "d.eventId")
        .select([
          "va.id",
          "d.id",
          "va.at",
          "va.url",
          "va.statusCode",
          "va.latencyMs",
          "va.responseExcerpt",
          "va.error",
          "va.role",
          "va.outcome",
        ]),
    ),
);

const runAnswers = (rows: AnswerRow[]) => {
  const attempts = rows.flatMap((r) => r.attempts);
  return executeCompiled(
    recordAnswers(
      ...ANSWER_COLUMN_NAMES.map((c) => rows.map((r) => r[c])),
      ...ATTEMPT_COLUMN_NAMES.map((c) => attempts.map((a) => a[c])),
    ),
  );
};

/**
 * Answers go out in batches: an answer waits up to LINGER_MS for others to join
 * it (a full batch goes at once), one statement is in flight, and what arrives
 * while it runs goes in the next one. One round trip and one commit for all, not
 * one each, is most of what the call log costs the database. Without the wait, a
 * statement took only the calls answered while the one before it ran (1 to 3 at
 * side-by-side's voice-max, one per call at 100 calls/s); with it, about
 * LINGER_MS × the rate. The call's timeline shows its answer that much later.
 */
const BATCH_MAX = 100;
const IN_FLIGHT_MAX = 2;
const LINGER_MS = 25;

/**
 * The batches' state, once per process (runtime/remember.ts): answers queued from the Next.js graph (a
 * simulated call) join the same batches as the engine's, and the shutdown drain counts them.
 */
type BatchState = {
  queued: AnswerRow[];
  inFlight: number;
  lingering: NodeJS.Timeout | null;
  /** Calls whose answer someone waits to see recorded (whenAnswerRecorded). */
  waiters: Map<string, () => void>;
};
const batchState = remember<BatchState>("engine.callLog", () => ({
  queued: [],
  inFlight: 0,
  lingering: null,
  waiters: new Map(),
}));
const batches = () => batchState;

function scheduleFlush(): void {
  const state = batches();
  if (state.queued.length >= BATCH_MAX) flushAnswers();
  else if (state.queued.length && !state.lingering) {
    state.lingering = setTimeout(() => {
      state.lingering = null;
      flushAnswers();
    }, LINGER_MS);
  }
}

function flushAnswers(): void {
  const state = batches();
  // A second statement only when a full batch waits: the first is then behind.
  while (
    state.queued.length &&
    (state.inFlight === 0 || (state.inFlight < IN_FLIGHT_MAX && state.queued.length >= BATCH_MAX))
  ) {
    // A call answered twice (Twilio retrying) goes in separate statements, so the later answer is the one kept.
    const seen = new Set<string>();
    const { queued } = state;
    let n = 0;
    while (n < queued.length && n < BATCH_MAX && !seen.has(queued[n]!.callId)) seen.add(queued[n++]!.callId);
    const batch = queued.slice(0, n);
    state.queued = queued.slice(n);
    state.inFlight++;
    runAnswers(batch)
      .then(
        () => {
          countPendingWrites(-batch.length);
          answersRecorded(batch);
          // docs/decisions.md §16: fallback answers written, so the number's fallback rate is checked (off the answer path).
          const fellBack = batch.filter((r) => FALLBACK_ANSWER_SET.has(r.answer)).map((r) => r.accountId);
          if (fellBack.length) noteFallbackCalls(fellBack);
        },
        (err: unknown) => {
          logger().warn(
            { err: err instanceof Error ? err.message : String(err), calls: batch.length },
            "could not record a batch of call answers; trying each alone",
          );
          // Each answer is then tried again alone, on the usual schedule, so one that cannot be written holds back no other.
          countPendingWrites(-batch.length);
          for (const row of batch)
            writeLater("call answer", row.callSid, () => runAnswers([row]).then(() => answersRecorded([row])), 1);
        },
      )
      .finally(() => {
        state.inFlight--;
        scheduleFlush();
      });
  }
}

function answersRecorded(rows: { callId: string }[]): void {
  const { waiters } = batches();
  if (!waiters.size) return;
  for (const row of rows) waiters.get(row.callId)?.();
}

/**
 * Resolves true once the answer of this call, recorded later (recordAnswerLater), is in the call log, or
 * false after `timeoutMs`. For a simulated call (docs/decisions.md §21), whose answer shows its timeline:
 * Twilio's calls never wait on it. Call before the answer is recorded.
 */
export function whenAnswerRecorded(callId: string, timeoutMs: number): Promise<boolean> {
  const { waiters } = batches();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      waiters.delete(callId);
      resolve(false);
    }, timeoutMs);
    waiters.set(callId, () => {
      clearTimeout(timer);
      waiters.delete(callId);
      resolve(true);
    });
  });
}

const FALLBACK_ANSWER_SET = new Set<string>(FALLBACK_ANSWERS);

/** The answers decided by a backend's own answer (not one of Routekit's stored fallbacks). */
const FROM_A_URL = new Set<CallAnswer>(["xml", "json-twiml", "json-actions", "fallback-url"]);

/** Records the answer after the response; never throws, never delays the caller. */
export function recordAnswerLater(rec: AnswerRecord): void {
  countAnswer(rec);
  countPendingWrites(1);
  batches().queued.push(answerRow(rec));
  scheduleFlush();
}

/**
 * The answer of a call answered while the database was down, written once the call is in
 * (engine-journal-apply.ts): now, and awaited, so the journal entry is removed only once it is in.
 * Counted in the metrics when it was answered (countAnswer), not again here.
 */
export async function recordAnswerNow(rec: AnswerRecord): Promise<void> {
  const row = answerRow(rec);
  await runAnswers([row]);
  if (FALLBACK_ANSWER_SET.has(row.answer)) noteFallbackCalls([row.accountId]);
}

/** The answer in the metrics: its form, each backend's latency, and the engine's own time around them. */
export function countAnswer(rec: AnswerRecord): void {
  const m = metrics();
  m.engineAnswers.inc({ form: rec.answer });
  let waited = 0;
  for (const a of rec.attempts) {
    m.backendAnswer.observe({ role: a.role }, a.latencyMs / 1000);
    waited += a.latencyMs;
  }
  m.engineOverhead.observe(Math.max(0, Date.now() - rec.requestAt.getTime() - waited) / 1000);
}

function answerRow(rec: AnswerRecord): AnswerRow {
  // Delivered when a backend's answer decided the call: the primary's, its retry's or the fallback URL's.
  const decisive = FROM_A_URL.has(rec.answer) ? rec.attempts[rec.attempts.length - 1] : undefined;
  const primaryDecided = rec.answer === "xml" || rec.answer === "json-twiml" || rec.answer === "json-actions";
  return {
    callId: rec.callId,
    deliveryId: newDatabaseId(),
    answer: rec.answer,
    errorCode: rec.error?.code ?? null,
    errorMessage: cap(rec.error?.message ?? null, 1024),
    twiml: cap(rec.twiml, TWIML_MAX_CHARS)!,
    requestAt: rec.requestAt,
    requestStatus: rec.requestStatus,
    accountId: rec.accountId,
    eventId: rec.event.id,
    callSid: rec.callSid,
    url: rec.attempts[0]?.url ?? "",
    payload: rec.payload,
    status: decisive ? "DELIVERED" : "FAILED",
    at: rec.attempts[0]?.at ?? rec.requestAt,
    deliveredAt: decisive ? decisive.at : null,
    answerUse: primaryDecided ? rec.answer : (rec.error?.code ?? "START_CALLBACK_INVALID"),
    attemptCount: rec.attempts.length,
    attempts: rec.attempts.map((a) => ({
      id: newDatabaseId(),
      eventId: rec.event.id,
      at: a.at,
      url: a.url,
      statusCode: a.statusCode,
      latencyMs: Math.max(0, Math.round(a.latencyMs)),
      responseExcerpt: cap(a.responseBody, START_EXCERPT_MAX_CHARS),
      error: cap(a.error, 1024),
      role: a.role,
      outcome: a.outcome,
    })),
  };
}
