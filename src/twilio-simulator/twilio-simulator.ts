/**
 * A local stand-in for Twilio: the slice of the REST API Routekit calls (Calls.create) plus Twilio's
 * side of a call (voice request / answer, status callbacks), signed exactly as Twilio signs them.
 * Integration tests and developers use it to run the whole flow without a Twilio account.
 */
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { SimulatorAccounts, type IncomingNumber, type RestTools, type SimulatorAccount } from "./accounts";
import { type CallRecordStore, matchCallRecordsPath, serveCallRecords, sharedCallRecords } from "./call-records";
import { type CallEndingPlan, callEndingOf, finalStatusLost, finalStatusParams } from "./call-endings";
import { LiveCalls } from "./live-calls";
import { postSigned } from "./post-signed";

// Tests that need to forge or replay callbacks send them as the simulator does.
export { postSigned };

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
   * Keep the answered call up (live-calls.ts) until a live-call command or its TwiML ends it, at most
   * this many ms; then its final status is sent as usual. Default: the call ends right after its answer.
   */
  holdMs?: number;
};
export type TwimlFetch = { status: number; body: string; contentType: string | null; ms: number };
export type PlayedCall = {
  callSid: string;
  answer: TwimlFetch | null;
  statusCallbacks: { status: string; httpStatus: number }[];
};

export type SimulatedCall = {
  accountSid: string;
  params: Record<string, string | string[]>;
  callSid: string;
  played: Promise<PlayedCall>;
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

export type TwilioSimulator = {
  url: string; // e.g. http://127.0.0.1:PORT  (use as TWILIO_API_BASE_URL)
  /** every Calls.create received, with its parsed form params, and the played result once done */
  calls: SimulatedCall[];
  /** configure how the NEXT created calls play out (FIFO queue of plans; default plan when empty) */
  planNextCall(plan: SimulatedCallPlan): void;
  /** Twilio accounts (those of `accounts` in the options, and any added) and their incoming numbers. */
  twilioAccounts: SimulatorAccounts;
  /** Adds an account the REST API accepts (random SID and token unless given). */
  addAccount(opts?: {
    sid?: string;
    authToken?: string;
    friendlyName?: string;
    status?: SimulatorAccount["status"];
    parentSid?: string;
  }): SimulatorAccount;
  /** Gives an account an incoming number, as if bought in the Twilio console. */
  addIncomingNumber(
    accountSid: string,
    phoneNumber: string,
    opts?: { friendlyName?: string; voiceUrl?: string; statusCallback?: string },
  ): IncomingNumber;
  /**
   * A call comes in to one of the simulator's numbers: Twilio posts to the number's voice URL and
   * status callback, signed with the owning account's auth token and carrying its AccountSid.
   */
  inboundCall(
    opts: { to: string; from: string; callSid?: string; onEvent?: (event: SimulatorEvent) => void } & SimulatedCallPlan,
  ): Promise<PlayedCall>;
  /** Twilio's record of calls (GET Calls.json, Calls/{Sid}.json); `add` a call that never reached the service. */
  callRecords: CallRecordStore;
  /** Calls held up (plan `holdMs`) and the live-call REST resources: call updates, dials, recordings. */
  control: LiveCalls;
  close(): Promise<void>;
};

export type TwilioSimulatorOptions = {
  accounts: Record<string /*AccountSid*/, string /*AuthToken*/>;
  port?: number /*0 = random*/;
  host?: string;
  /**
   * Trust any Basic-auth pair whose user is the AccountSid in the path, and sign that call's callbacks with the
   * password given. Only for local development (`cli.ts serve` without --account): nothing is authenticated.
   */
  acceptAnyCredentials?: boolean;
  /** plan used when the planNextCall queue is empty */
  defaultPlan?: SimulatedCallPlan;
  onEvent?: (event: SimulatorEvent) => void;
  /** Where call records are kept; default the store simulateInboundCall writes to. */
  callRecords?: CallRecordStore;
};

export const API_VERSION = "2010-04-01";
/** The AccountSid simulateInboundCall uses when none is given (34 chars, like a real one). */
export const SIMULATOR_ACCOUNT_SID = "AC5170000000000000000000000000000a";

const MAX_BODY_BYTES = 1_000_000;
import { E164 } from "../shared/schemas/e164";
import { TERMINAL_CALL_STATUSES, type TerminalCallStatus } from "../shared/schemas/enums";
const CALLS_PATH = /^\/2010-04-01\/Accounts\/([^/]+)\/Calls\.json$/;
const STATUS_EVENTS = ["initiated", "ringing", "answered", "completed"] as const;
type StatusEvent = (typeof STATUS_EVENTS)[number];
type Outcome = NonNullable<SimulatedCallPlan["outcome"]>;
const OUTCOMES: readonly Outcome[] = TERMINAL_CALL_STATUSES;

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

/** Waits, but wakes early when the simulator is closing so no call outlives it. */
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

type Playback = {
  callSid: string;
  authToken: string;
  base: Record<string, string>;
  plan: Required<Pick<SimulatedCallPlan, "durationSeconds" | "outcome" | "stepDelayMs">> & {
    answeredBy?: string;
    holdMs?: number;
  } & CallEndingPlan;
  signal: AbortSignal;
  onEvent?: (event: SimulatorEvent) => void;
  /** Twilio's record of this call, kept as it plays. */
  records: CallRecordStore;
  /** Where a call planned with `holdMs` is held up while it is live. */
  live?: LiveCalls;
};

function resolvePlan(plan: SimulatedCallPlan, fallback: SimulatedCallPlan = {}): Playback["plan"] {
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
    ...callEndingOf(merged),
  };
}

/** A call planned with `holdMs` stays up here until a command or its TwiML ends it (live-calls.ts). */
async function holdIfPlanned(p: Playback): Promise<void> {
  if (p.plan.holdMs === undefined || !p.live || p.signal.aborted) return;
  const held = p.live.hold({
    callSid: p.callSid,
    accountSid: p.base.AccountSid ?? "",
    authToken: p.authToken,
    base: p.base,
    holdMs: p.plan.holdMs,
  });
  await held.ended;
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
    const res = await postSigned(url, params, p.authToken, { signal: p.signal });
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
    callSid: p.callSid,
    kind,
    url,
    params,
    ...result,
    ...(error === undefined ? {} : { error }),
  });
  return result;
}

/** Status callbacks share one counter per call: SequenceNumber lets the service order what may arrive out of order. */
function statusCallbackSender(
  p: Playback,
  url: string | undefined,
  events: ReadonlySet<StatusEvent>,
  played: PlayedCall,
) {
  let sequence = 0;
  return async (event: StatusEvent, callStatus: string, extra: Record<string, string> = {}) => {
    if (!url || !events.has(event)) return;
    // call-endings.ts: the final status may carry carrier codes, or never arrive.
    if (event === "completed" && finalStatusLost(p.plan)) return;
    const params = {
      ...p.base,
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

type OutboundSpec = {
  url: string | undefined;
  inlineTwiml: string | undefined;
  statusCallback: string | undefined;
  events: ReadonlySet<StatusEvent>;
  machineDetection: boolean;
};

async function playOutbound(p: Playback, spec: OutboundSpec): Promise<PlayedCall> {
  const played: PlayedCall = { callSid: p.callSid, answer: null, statusCallbacks: [] };
  const status = statusCallbackSender(p, spec.statusCallback, spec.events, played);
  const step = async (fn: () => Promise<void>) => {
    await pause(p.plan.stepDelayMs, p.signal);
    if (!p.signal.aborted) await fn();
  };
  const { outcome } = p.plan;

  await step(() => status("initiated", "initiated"));
  if (outcome !== "failed") await step(() => status("ringing", "ringing"));

  if (outcome !== "completed") {
    await step(async () => {
      p.records.update(p.callSid, { status: outcome, duration: 0, endTime: new Date() });
      await status("completed", outcome, { CallDuration: "0" });
    });
    return played;
  }
  p.records.update(p.callSid, { status: "in-progress", startTime: new Date() });

  const answeredBy = p.plan.answeredBy ?? (spec.machineDetection ? "human" : undefined);
  const amd: Record<string, string> = answeredBy === undefined ? {} : { AnsweredBy: answeredBy };
  await step(async () => {
    if (spec.url !== undefined) {
      played.answer = await send(p, "answer", spec.url, { ...p.base, ...amd, CallStatus: "in-progress" });
    } else {
      // Inline Twiml: nothing is fetched; record what the call would play so tests can look at it the same way.
      played.answer = { status: 200, body: spec.inlineTwiml ?? "", contentType: "application/xml", ms: 0 };
    }
  });
  await step(() => status("answered", "in-progress", amd));
  await holdIfPlanned(p);
  // The call's length is reported, not waited for.
  await step(async () => {
    p.records.update(p.callSid, {
      status: "completed",
      duration: p.plan.durationSeconds,
      endTime: new Date(),
      answeredBy: answeredBy ?? null,
    });
    await status("completed", "completed", { ...amd, CallDuration: String(p.plan.durationSeconds) });
  });
  return played;
}

/** `statusCallbackUrl` undefined: the number has no status callback, so only the voice request is made. */
async function playInbound(p: Playback, engineUrl: string, statusCallbackUrl: string | undefined): Promise<PlayedCall> {
  const played: PlayedCall = { callSid: p.callSid, answer: null, statusCallbacks: [] };
  // A number has no StatusCallbackEvent setting: Twilio only reports the end of an inbound call.
  const status = statusCallbackSender(p, statusCallbackUrl, new Set<StatusEvent>(["completed"]), played);
  const step = async (fn: () => Promise<void>) => {
    await pause(p.plan.stepDelayMs, p.signal);
    if (!p.signal.aborted) await fn();
  };
  const amd: Record<string, string> = p.plan.answeredBy === undefined ? {} : { AnsweredBy: p.plan.answeredBy };

  await step(async () => {
    played.answer = await send(p, "voice", engineUrl, { ...p.base, CallStatus: "ringing" });
  });
  const answer = played.answer;
  if (answer === null) return played; // closed before the call arrived

  const rejected = !isSuccess(answer.status) || isReject(answer.body);
  const final = rejected ? "busy" : p.plan.outcome;
  if (final === "completed") {
    p.records.update(p.callSid, { status: "in-progress", startTime: new Date() });
    await holdIfPlanned(p);
  }
  // Twilio's record says how the call ended, whatever became of the callback reporting it.
  p.records.update(p.callSid, {
    status: final,
    duration: final === "completed" ? p.plan.durationSeconds : 0,
    endTime: new Date(),
    ...(final === "completed" && p.plan.answeredBy !== undefined ? { answeredBy: p.plan.answeredBy } : {}),
  });
  if (final !== "completed") {
    await step(() => status("completed", final, { CallDuration: "0" }));
  } else {
    await step(() => status("completed", "completed", { ...amd, CallDuration: String(p.plan.durationSeconds) }));
  }
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
    /** Where a call planned with `holdMs` is held up (a simulator's `control`). */
    liveCalls?: LiveCalls;
  } & SimulatedCallPlan,
): Promise<PlayedCall> {
  const callSid = opts.callSid ?? newCallSid();
  const accountSid = opts.accountSid ?? SIMULATOR_ACCOUNT_SID;
  const playback: Playback = {
    callSid,
    authToken: opts.authToken ?? randomBytes(16).toString("hex"),
    base: callParams({ callSid, accountSid, from: opts.from, to: opts.to, direction: "inbound" }),
    plan: resolvePlan(opts),
    signal: opts.signal ?? new AbortController().signal,
    ...(opts.onEvent ? { onEvent: opts.onEvent } : {}),
    records: opts.callRecords ?? sharedCallRecords,
    ...(opts.liveCalls && { live: opts.liveCalls }),
  };
  playback.records.add({
    sid: callSid,
    accountSid,
    from: opts.from,
    to: opts.to,
    direction: "inbound",
    status: "ringing",
  });
  const played = await playInbound(
    playback,
    opts.engineUrl,
    opts.statusCallbackUrl === null ? undefined : (opts.statusCallbackUrl ?? opts.engineUrl),
  );
  opts.onEvent?.({ type: "call-ended", played });
  return played;
}

function callParams(c: {
  callSid: string;
  accountSid: string;
  from: string;
  to: string;
  direction: string;
}): Record<string, string> {
  // Called/Caller are legacy duplicates Twilio still sends; kept so the service sees a realistic request.
  return {
    CallSid: c.callSid,
    AccountSid: c.accountSid,
    From: c.from,
    To: c.to,
    Caller: c.from,
    Called: c.to,
    Direction: c.direction,
    ApiVersion: API_VERSION,
  };
}

// ---------------------------------------------------------------------------------------------- REST

type TwilioError = { status: number; code: number; message: string };

class ApiError extends Error {
  constructor(readonly error: TwilioError) {
    super(error.message);
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": Buffer.byteLength(text),
    "Twilio-Request-Id": `RQ${randomBytes(16).toString("hex")}`,
    ...headers,
  });
  res.end(text);
}

function twilioErrorBody(e: TwilioError) {
  return {
    code: e.code,
    message: e.message,
    more_info: `https://www.twilio.com/docs/errors/${e.code}`,
    status: e.status,
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new ApiError({ status: 413, code: 20413, message: "Request entity too large" }));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/** Repeated names become arrays; StatusCallbackEvent is always one, since Twilio treats it as a list. */
function parseForm(body: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of new URLSearchParams(body)) {
    const seen = out[name];
    if (seen === undefined) out[name] = name === "StatusCallbackEvent" ? [value] : value;
    else out[name] = Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return out;
}

function single(params: Record<string, string | string[]>, name: string): string | undefined {
  const v = params[name];
  return Array.isArray(v) ? v[v.length - 1] : v;
}

function basicAuth(header: string | undefined): { user: string; password: string } | null {
  const m = /^Basic\s+(\S+)$/i.exec(header ?? "");
  if (!m?.[1]) return null;
  const decoded = Buffer.from(m[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  return colon < 0 ? null : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

function isHttpUrl(value: string): boolean {
  try {
    const u = new URL(value);
    return u.protocol === "http:" || u.protocol === "https:";
  } catch {
    return false;
  }
}

/** Twilio's own display format for North American numbers; others are shown as given. */
function formatted(number: string): string {
  const m = /^\+1(\d{3})(\d{3})(\d{4})$/.exec(number);
  return m ? `(${m[1]}) ${m[2]}-${m[3]}` : number;
}

function validateCreate(params: Record<string, string | string[]>): OutboundSpec & { to: string; from: string } {
  const to = single(params, "To");
  const from = single(params, "From");
  const url = single(params, "Url");
  const inlineTwiml = single(params, "Twiml");
  const statusCallback = single(params, "StatusCallback");
  if (!to) throw new ApiError({ status: 400, code: 21201, message: "No 'To' number is specified" });
  if (!E164.test(to))
    throw new ApiError({ status: 400, code: 21211, message: `The 'To' number ${to} is not a valid phone number.` });
  if (!from) throw new ApiError({ status: 400, code: 21603, message: "A 'From' phone number is required." });
  if (!E164.test(from)) {
    throw new ApiError({
      status: 400,
      code: 21212,
      message: `The 'From' number ${from} is not a valid phone number, shortcode, or alphanumeric sender ID.`,
    });
  }
  if (!url && !inlineTwiml) {
    throw new ApiError({
      status: 400,
      code: 21205,
      message: "A 'Url' or 'Twiml' parameter is required (this simulator does not resolve ApplicationSid).",
    });
  }
  if (url && !isHttpUrl(url))
    throw new ApiError({ status: 400, code: 21205, message: `Url is not a valid URL: ${url}` });
  if (statusCallback && !isHttpUrl(statusCallback)) {
    throw new ApiError({
      status: 400,
      code: 21609,
      message: `The StatusCallback URL ${statusCallback} is not a valid URL.`,
    });
  }
  const rawEvents = params.StatusCallbackEvent;
  const listed = (Array.isArray(rawEvents) ? rawEvents : rawEvents === undefined ? [] : [rawEvents])
    // Twilio also takes a space-separated list, and ignores names it does not know.
    .flatMap((e) => e.trim().toLowerCase().split(/\s+/))
    .filter((e): e is StatusEvent => (STATUS_EVENTS as readonly string[]).includes(e));
  return {
    to,
    from,
    url: url || undefined,
    inlineTwiml: url ? undefined : inlineTwiml,
    statusCallback: statusCallback || undefined,
    events: new Set<StatusEvent>(rawEvents === undefined ? ["completed"] : listed),
    machineDetection: Boolean(single(params, "MachineDetection")),
  };
}

function callResource(c: { accountSid: string; callSid: string; to: string; from: string; now: Date }) {
  const uri = `/${API_VERSION}/Accounts/${c.accountSid}/Calls/${c.callSid}`;
  const date = rfc2822(c.now);
  return {
    sid: c.callSid,
    account_sid: c.accountSid,
    annotation: null,
    answered_by: null,
    api_version: API_VERSION,
    caller_name: null,
    date_created: date,
    date_updated: date,
    direction: "outbound-api",
    duration: null,
    end_time: null,
    forwarded_from: null,
    from: c.from,
    from_formatted: formatted(c.from),
    group_sid: null,
    parent_call_sid: null,
    phone_number_sid: null,
    price: null,
    price_unit: "USD",
    queue_time: "0",
    start_time: null,
    status: "queued",
    subresource_uris: {
      notifications: `${uri}/Notifications.json`,
      recordings: `${uri}/Recordings.json`,
      payments: `${uri}/Payments.json`,
      events: `${uri}/Events.json`,
      siprec: `${uri}/Siprec.json`,
      streams: `${uri}/Streams.json`,
      transcriptions: `${uri}/Transcriptions.json`,
      user_defined_message_subscriptions: `${uri}/UserDefinedMessageSubscriptions.json`,
      user_defined_messages: `${uri}/UserDefinedMessages.json`,
    },
    to: c.to,
    to_formatted: formatted(c.to),
    trunk_sid: null,
    uri: `${uri}.json`,
  };
}

export async function startTwilioSimulator(opts: TwilioSimulatorOptions): Promise<TwilioSimulator> {
  const calls: SimulatedCall[] = [];
  const planQueue: SimulatedCallPlan[] = [];
  const closing = new AbortController();
  const emit = opts.onEvent;
  const twilioAccounts = new SimulatorAccounts(opts.accounts);
  const records = opts.callRecords ?? sharedCallRecords;
  let simulatorUrl = "";
  const live = new LiveCalls(records, () => simulatorUrl);

  /** Returns the token that signs this account's callbacks: Twilio signs with the account's auth token. */
  function authenticate(req: IncomingMessage, pathAccountSid: string): string {
    const creds = basicAuth(req.headers.authorization);
    const ok =
      creds !== null &&
      creds.user === pathAccountSid &&
      (opts.acceptAnyCredentials ? creds.password !== "" : twilioAccounts.tokenOf(creds.user) === creds.password);
    if (!ok) throw new ApiError({ status: 401, code: 20003, message: "Authenticate" });
    return creds.password;
  }

  const restTools: RestTools = {
    authenticate,
    fail: (fault) => new ApiError(fault),
    readBody,
    sendJson: (res, status, body) => sendJson(res, status, body),
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestUrl = new URL(req.url ?? "/", "http://simulator");
    if (await twilioAccounts.handle(req, res, requestUrl, restTools)) return;
    if (await live.handle(req, res, requestUrl, restTools)) return;
    const path = requestUrl.pathname;
    const recordsTarget = req.method === "GET" ? matchCallRecordsPath(path) : null;
    if (recordsTarget) {
      authenticate(req, recordsTarget.accountSid);
      const answer = serveCallRecords(records, recordsTarget, requestUrl.searchParams);
      sendJson(res, answer.status, answer.body);
      return;
    }
    const match = CALLS_PATH.exec(path);
    if (!match?.[1]) {
      throw new ApiError({ status: 404, code: 20404, message: `The requested resource ${path} was not found` });
    }
    const accountSid = decodeURIComponent(match[1]);
    const authToken = authenticate(req, accountSid);
    if (req.method !== "POST") {
      throw new ApiError({ status: 405, code: 20004, message: "Method not allowed" });
    }
    const params = parseForm(await readBody(req));
    const spec = validateCreate(params);
    const callSid = newCallSid();
    const plan = resolvePlan(planQueue.shift() ?? {}, opts.defaultPlan);
    sendJson(res, 201, callResource({ accountSid, callSid, to: spec.to, from: spec.from, now: new Date() }));
    records.add({
      sid: callSid,
      accountSid,
      from: spec.from,
      to: spec.to,
      direction: "outbound-api",
      status: "queued",
    });
    emit?.({ type: "call-created", accountSid, callSid, params, plan });

    const playback: Playback = {
      callSid,
      authToken,
      base: callParams({ callSid, accountSid, from: spec.from, to: spec.to, direction: "outbound-api" }),
      plan,
      signal: closing.signal,
      ...(emit ? { onEvent: emit } : {}),
      records,
      live,
    };
    const played = playOutbound(playback, spec).then((result) => {
      emit?.({ type: "call-ended", played: result });
      return result;
    });
    calls.push({ accountSid, params, callSid, played });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      const error: TwilioError =
        err instanceof ApiError ? err.error : { status: 500, code: 20500, message: "Internal Server Error" };
      if (!(err instanceof ApiError)) console.error("twilio-simulator: unexpected error", err);
      emit?.({ type: "api-error", method: req.method ?? "?", path: req.url ?? "/", ...error });
      if (res.headersSent) return;
      sendJson(
        res,
        error.status,
        twilioErrorBody(error),
        error.status === 401 ? { "WWW-Authenticate": 'Basic realm="Twilio API"' } : {},
      );
    });
  });

  const host = opts.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  // A wildcard bind is reachable on loopback; an IPv6 literal needs brackets in a URL.
  const urlHost = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;

  simulatorUrl = `http://${urlHost}:${port}`;
  return {
    url: simulatorUrl,
    calls,
    callRecords: records,
    control: live,
    planNextCall(plan) {
      resolvePlan(plan); // reject a bad plan here, where the test can see the stack, not inside a later request
      planQueue.push(plan);
    },
    twilioAccounts,
    addAccount: (o) => twilioAccounts.addAccount(o),
    addIncomingNumber: (accountSid, phoneNumber, o) => twilioAccounts.addIncomingNumber(accountSid, phoneNumber, o),
    async inboundCall(o) {
      const number = twilioAccounts.byPhoneNumber(o.to);
      if (!number) throw new Error(`${o.to} is not a number of any simulated account`);
      if (!number.voiceUrl) throw new Error(`${o.to} has no voice URL: Twilio would play its own error message`);
      const { to, from, callSid, onEvent, ...plan } = o;
      return simulateInboundCall({
        engineUrl: number.voiceUrl,
        statusCallbackUrl: number.statusCallback,
        to,
        from,
        accountSid: number.accountSid,
        authToken: twilioAccounts.tokenOf(number.accountSid)!,
        signal: closing.signal,
        callRecords: records,
        liveCalls: live,
        ...(callSid ? { callSid } : {}),
        ...((onEvent ?? emit) ? { onEvent: onEvent ?? emit } : {}),
        ...resolvePlan(plan, opts.defaultPlan),
      });
    },
    async close() {
      closing.abort();
      live.closeAll();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // The SDK keeps connections alive; without this close() would wait for them to idle out.
        server.closeAllConnections();
      });
      await Promise.allSettled(calls.map((c) => c.played));
    },
  };
}
