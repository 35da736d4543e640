/**
 * Twilio's side of a call, played against Routekit: the requests Twilio makes about an outbound call it
 * placed (status callbacks, the answer request) and an inbound call (the voice request, the final status),
 * signed as Twilio signs them. The playback moves the call through its one state (call-lifecycle.ts) and
 * gives way to anything else that ends it (a call update, its TwiML): whoever ended it, the final status
 * callback goes out once, with the status and duration the call's record holds.
 */
import { randomBytes } from "node:crypto";
import { TERMINAL_CALL_STATUSES, type TerminalCallStatus } from "../shared/schemas/enums";
import { callParams, SimCall } from "./call-lifecycle";
import { type CallEndingPlan, callEndingOf, finalStatusLost, finalStatusParams } from "./call-endings";
import { type CallRecordStore, sharedCallRecords } from "./call-records";
import type { SimulatedCalls } from "./simulated-calls";
import { postSigned } from "./post-signed";

export type SimulatedCallPlan = CallEndingPlan & {
  /** seconds the call lasts once answered; reported as CallDuration on completion */
  durationSeconds?: number; // default 5
  /** final status: "completed" (default) | "busy" | "no-answer" | "failed" | "canceled"; non-completed skips the answer step */
  outcome?: TerminalCallStatus;
  /** AnsweredBy value to send with the answer (only when machine detection was requested or set here) */
  answeredBy?: string;
  /** ms to wait between steps (default 20) — keep tests fast */
  stepDelayMs?: number;
  /**
   * Keep the answered call up until a call update or its TwiML ends it, at most this many ms; then its
   * final status is sent as usual. Default: the call ends right after its answer.
   */
  holdMs?: number;
  /**
   * ms an outbound call rings before its outcome (default 0), so a test can hang it up while it rings.
   * As at Twilio, a call that rings for its `Timeout` (default 60 s) ends `no-answer`.
   */
  ringMs?: number;
};
type TwimlFetch = { status: number; body: string; contentType: string | null; ms: number };
export type PlayedCall = {
  callSid: string;
  answer: TwimlFetch | null;
  statusCallbacks: { status: string; httpStatus: number }[];
};

/** What happens inside the simulator, for logs (the CLI prints these). */
export type SimulatorEvent =
  | {
      type: "call-created";
      accountSid: string;
      callSid: string;
      params: Record<string, string | string[]>;
      plan: SimulatedCallPlan;
    }
  | { type: "api-error"; method: string; path: string; status: number; code: number; message: string }
  | {
      type: "request";
      callSid: string;
      /** "voice" = inbound voice request, "answer" = outbound answer (Url), "status" = status callback */
      kind: "voice" | "answer" | "status";
      url: string;
      params: Record<string, string>;
      status: number;
      ms: number;
      /** set when no HTTP answer came back (connection refused, Twilio's 15 s budget exceeded, …) */
      error?: string;
      body: string;
      contentType: string | null;
    }
  | { type: "call-ended"; played: PlayedCall };

/** The AccountSid simulateInboundCall uses when none is given (34 chars, like a real one). */
export const SIMULATOR_ACCOUNT_SID = "AC5170000000000000000000000000000a";

export const STATUS_EVENTS = ["initiated", "ringing", "answered", "completed"] as const;
export type StatusEvent = (typeof STATUS_EVENTS)[number];
const OUTCOMES: readonly TerminalCallStatus[] = TERMINAL_CALL_STATUSES;
/** Twilio's default Timeout for an outbound call: how long it lets the phone ring (Calls.create). */
export const DEFAULT_RING_TIMEOUT_SECONDS = 60;

export function newCallSid(): string {
  return `CA${randomBytes(16).toString("hex")}`;
}

/** RFC 2822 with a numeric zone, as Twilio writes dates ("Mon, 16 Aug 2010 03:45:01 +0000"). */
export function rfc2822(date: Date = new Date()): string {
  return date.toUTCString().replace(/GMT$/, "+0000");
}

/** A `<Reject>` verb ends an inbound call before it is answered. */
function isReject(twiml: string): boolean {
  return /<Reject[\s/>]/.test(twiml);
}

function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

/** Waits, but wakes early when the signal fires (the simulator closing, the call ending). */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done);
  });
}

export type ResolvedPlan = Required<Pick<SimulatedCallPlan, "durationSeconds" | "outcome" | "stepDelayMs">> & {
  answeredBy?: string;
  holdMs?: number;
  ringMs?: number;
} & CallEndingPlan;

export type Playback = {
  call: SimCall;
  plan: ResolvedPlan;
  /** The simulator is closing: nothing more is sent. */
  signal: AbortSignal;
  onEvent?: (event: SimulatorEvent) => void;
};

export function resolvePlan(plan: SimulatedCallPlan, fallback: SimulatedCallPlan = {}): ResolvedPlan {
  const merged = { ...fallback, ...definedOnly(plan) };
  const outcome = merged.outcome ?? "completed";
  if (!OUTCOMES.includes(outcome))
    throw new Error(`unknown outcome ${String(outcome)}; expected one of ${OUTCOMES.join(", ")}`);
  const durationSeconds = Math.max(0, Math.round(merged.durationSeconds ?? 5));
  const stepDelayMs = Math.max(0, merged.stepDelayMs ?? 20);
  return {
    durationSeconds,
    outcome,
    stepDelayMs,
    ...(merged.answeredBy !== undefined && { answeredBy: merged.answeredBy }),
    ...(merged.holdMs !== undefined && { holdMs: Math.max(0, merged.holdMs) }),
    ...(merged.ringMs !== undefined && { ringMs: Math.max(0, merged.ringMs) }),
    ...callEndingOf(merged),
  };
}

/** Spreading `{ durationSeconds: undefined }` would otherwise erase the fallback's value. */
function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** One POST to the service; a dead or slow service is recorded (status 0), never thrown, as Twilio would log it. */
async function send(
  p: Playback,
  kind: "voice" | "answer" | "status",
  url: string,
  params: Record<string, string>,
): Promise<TwimlFetch> {
  const started = performance.now();
  let result: TwimlFetch;
  let error: string | undefined;
  try {
    const res = await postSigned(url, params, p.call.authToken, { signal: p.signal });
    result = { ...res, ms: Math.round(performance.now() - started) };
  } catch (err) {
    error =
      err instanceof Error
        ? err.cause instanceof Error
          ? `${err.message}: ${err.cause.message}`
          : err.message
        : String(err);
    result = { status: 0, body: "", contentType: null, ms: Math.round(performance.now() - started) };
  }
  p.onEvent?.({
    type: "request",
    callSid: p.call.callSid,
    kind,
    url,
    params,
    ...result,
    ...(error === undefined ? {} : { error }),
  });
  return result;
}

type StatusSender = (event: StatusEvent, callStatus: string, extra?: Record<string, string>) => Promise<void>;

/** Status callbacks share one counter per call: SequenceNumber lets the service order what may arrive out of order. */
function statusCallbackSender(
  p: Playback,
  url: string | undefined,
  events: ReadonlySet<StatusEvent>,
  played: PlayedCall,
): StatusSender {
  let sequence = 0;
  return async (event, callStatus, extra = {}) => {
    if (!url || !events.has(event)) return;
    // call-endings.ts: the final status may carry carrier codes, or never arrive.
    if (event === "completed" && finalStatusLost(p.plan)) return;
    const params = {
      ...p.call.base,
      ...extra,
      ...(event === "completed" ? finalStatusParams(p.plan) : {}),
      CallStatus: callStatus,
      CallbackSource: "call-progress-events",
      SequenceNumber: String(sequence++),
      Timestamp: rfc2822(),
    };
    const res = await send(p, "status", url, params);
    played.statusCallbacks.push({ status: callStatus, httpStatus: res.status });
  };
}

/** Waits a step, then runs `fn` unless the simulator is closing or the call has ended meanwhile. */
async function step(p: Playback, fn: () => Promise<void> | void): Promise<void> {
  if (p.call.isOver) return;
  await pause(p.plan.stepDelayMs, p.signal);
  if (!p.signal.aborted && !p.call.isOver) await fn();
}

/**
 * An answered call stays up for the plan's `holdMs` (until a call update or its TwiML ends it first);
 * without one it ends right after its answer.
 */
async function holdOrEnd(p: Playback): Promise<void> {
  if (p.call.isOver || p.signal.aborted) return;
  if (p.plan.holdMs === undefined) {
    p.call.end("completed", "plan");
    return;
  }
  await pause(p.plan.holdMs, AbortSignal.any([p.signal, p.call.endSignal]));
  if (!p.signal.aborted) p.call.end("completed", "hold-expired");
}

/**
 * The final status callback, once, whoever ended the call: its CallStatus and CallDuration are the
 * call's record, so what Routekit is told and what `GET …/Calls/{Sid}.json` says agree.
 */
async function sendFinalStatus(p: Playback, status: StatusSender): Promise<void> {
  await pause(p.plan.stepDelayMs, p.signal);
  if (p.signal.aborted || !p.call.isOver) return;
  const r = p.call.record;
  const amd: Record<string, string> =
    r.status === "completed" && r.answeredBy !== null ? { AnsweredBy: r.answeredBy } : {};
  await status("completed", r.status, { ...amd, CallDuration: String(r.duration ?? 0) });
}

export type OutboundSpec = {
  url: string | undefined;
  inlineTwiml: string | undefined;
  statusCallback: string | undefined;
  events: ReadonlySet<StatusEvent>;
  machineDetection: boolean;
  /** Calls.create's `Timeout`: seconds Twilio lets the phone ring before it gives up (no-answer). */
  timeoutSeconds: number;
};

export async function playOutbound(p: Playback, spec: OutboundSpec): Promise<PlayedCall> {
  const { call, plan } = p;
  const played: PlayedCall = { callSid: call.callSid, answer: null, statusCallbacks: [] };
  const status = statusCallbackSender(p, spec.statusCallback, spec.events, played);

  await step(p, () => status("initiated", "initiated"));
  if (plan.outcome === "failed") {
    await step(p, () => void call.end("failed", "plan"));
  } else {
    await step(p, async () => {
      call.ring();
      await status("ringing", "ringing");
    });
    await ring(p, spec.timeoutSeconds);
    if (plan.outcome !== "completed") await step(p, () => void call.end(plan.outcome, "plan"));
    const answeredBy = plan.answeredBy ?? (spec.machineDetection ? "human" : undefined);
    const amd: Record<string, string> = answeredBy === undefined ? {} : { AnsweredBy: answeredBy };
    await step(p, async () => {
      call.answer(answeredBy);
      if (spec.url !== undefined) {
        played.answer = await send(p, "answer", spec.url, { ...call.base, ...amd, CallStatus: "in-progress" });
      } else {
        // Inline Twiml: nothing is fetched; record what the call would play so tests can look at it the same way.
        played.answer = { status: 200, body: spec.inlineTwiml ?? "", contentType: "application/xml", ms: 0 };
      }
    });
    await step(p, () => status("answered", "in-progress", amd));
    await holdOrEnd(p);
  }
  // The call's length is reported, not waited for.
  await sendFinalStatus(p, status);
  return played;
}

/** The plan's `ringMs`, cut short by a hang-up; Twilio gives up on a phone that rings past the call's Timeout. */
async function ring(p: Playback, timeoutSeconds: number): Promise<void> {
  const ringMs = p.plan.ringMs ?? 0;
  if (ringMs === 0 || p.call.isOver || p.signal.aborted) return;
  const limitMs = timeoutSeconds * 1000;
  await pause(Math.min(ringMs, limitMs), AbortSignal.any([p.signal, p.call.endSignal]));
  if (ringMs >= limitMs && !p.signal.aborted) p.call.end("no-answer", "plan");
}

/** `statusCallbackUrl` undefined: the number has no status callback, so only the voice request is made. */
async function playInbound(p: Playback, engineUrl: string, statusCallbackUrl: string | undefined): Promise<PlayedCall> {
  const { call, plan } = p;
  const played: PlayedCall = { callSid: call.callSid, answer: null, statusCallbacks: [] };
  // A number has no StatusCallbackEvent setting: Twilio only reports the end of an inbound call.
  const status = statusCallbackSender(p, statusCallbackUrl, new Set<StatusEvent>(["completed"]), played);

  await step(p, async () => {
    played.answer = await send(p, "voice", engineUrl, { ...call.base, CallStatus: "ringing" });
  });
  const answer = played.answer;
  // Null: the simulator closed, or the call was hung up, before the voice request went out. A call hung up
  // while its voice request was out stays as it ended, whatever the answer said.
  if (answer !== null && !call.isOver) {
    const rejected = !isSuccess(answer.status) || isReject(answer.body);
    if (rejected) call.end("busy", "plan");
    else if (plan.outcome !== "completed") call.end(plan.outcome, "plan");
    else {
      call.answer(plan.answeredBy);
      await holdOrEnd(p);
    }
  }
  await sendFinalStatus(p, status);
  return played;
}

/** Plays an INBOUND call against an engine URL (what Twilio does when a call comes in to a number whose voice URL and status callback URL are that engine URL). */
export async function simulateInboundCall(
  opts: {
    engineUrl: string;
    /** where the final status goes; default the engine URL (a number set up through Routekit uses it for both) */
    statusCallbackUrl?: string | null;
    from: string;
    to: string;
    accountSid?: string /* default a fixed AC…34-char test sid */;
    authToken?: string /* used to sign; default random */;
    callSid?: string /* default a fresh CA + 32 hex */;
    onEvent?: (event: SimulatorEvent) => void;
    signal?: AbortSignal;
    /** Where Twilio's record of the call is kept (default the shared store simulators serve). */
    callRecords?: CallRecordStore;
    /** Where the call is kept for call updates while it plays (a simulator's `control`). */
    liveCalls?: SimulatedCalls;
  } & SimulatedCallPlan,
): Promise<PlayedCall> {
  const callSid = opts.callSid ?? newCallSid();
  const accountSid = opts.accountSid ?? SIMULATOR_ACCOUNT_SID;
  const plan = resolvePlan(opts);
  const record = (opts.callRecords ?? sharedCallRecords).add({
    sid: callSid,
    accountSid,
    from: opts.from,
    to: opts.to,
    direction: "inbound",
    status: "ringing",
  });
  const call = new SimCall(record, {
    authToken: opts.authToken ?? randomBytes(16).toString("hex"),
    base: callParams({ callSid, accountSid, from: opts.from, to: opts.to, direction: "inbound" }),
    durationSeconds: plan.durationSeconds,
  });
  opts.liveCalls?.track(call);
  const played = await playInbound(
    { call, plan, signal: opts.signal ?? new AbortController().signal, ...(opts.onEvent && { onEvent: opts.onEvent }) },
    opts.engineUrl,
    opts.statusCallbackUrl === null ? undefined : (opts.statusCallbackUrl ?? opts.engineUrl),
  );
  opts.onEvent?.({ type: "call-ended", played });
  return played;
}
