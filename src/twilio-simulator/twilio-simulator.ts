/**
 * A local stand-in for Twilio: the slice of the REST API Routekit calls (Calls.create here; call updates
 * and recordings in simulated-calls.ts; call records in call-records.ts; accounts and numbers in accounts.ts)
 * plus Twilio's side of a call (call-playback.ts: voice request / answer, status callbacks), signed
 * exactly as Twilio signs them. Integration tests and developers use it to run the whole flow without a
 * Twilio account. Where Routekit depends on Twilio's behaviour it is as strict as Twilio; where it
 * deliberately is not, docs/twilio.md lists it.
 */
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { SimulatorAccounts, type IncomingNumber, type RestTools, type SimulatorAccount } from "./accounts";
import { callParams, SimCall } from "./call-lifecycle";
import {
  DEFAULT_RING_TIMEOUT_SECONDS,
  newCallSid,
  type OutboundSpec,
  type PlayedCall,
  playOutbound,
  resolvePlan,
  STATUS_EVENTS,
  type SimulatedCallPlan,
  type SimulatorEvent,
  simulateInboundCall,
  type StatusEvent,
} from "./call-playback";
import {
  type CallRecordStore,
  callRecordResource,
  matchCallRecordsPath,
  serveCallRecords,
  sharedCallRecords,
} from "./call-records";
import { SimulatedCalls } from "./simulated-calls";
import { postSigned } from "./post-signed";
import { E164 } from "../shared/schemas/e164";

// Tests that need to forge or replay callbacks send them as the simulator does.
export { postSigned };
export {
  newCallSid,
  rfc2822,
  SIMULATOR_ACCOUNT_SID,
  simulateInboundCall,
  type PlayedCall,
  type SimulatedCallPlan,
  type SimulatorEvent,
} from "./call-playback";

type SimulatedCall = {
  accountSid: string;
  params: Record<string, string | string[]>;
  callSid: string;
  played: Promise<PlayedCall>;
};

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
  /**
   * Every call placed or played, in its one state (`control.get(callSid)?.status`), and the live-call REST
   * resources: call updates, dials, recordings.
   */
  control: SimulatedCalls;
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

const MAX_BODY_BYTES = 1_000_000;
const CALLS_PATH = /^\/2010-04-01\/Accounts\/([^/]+)\/Calls\.json$/;

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
  // twilio-oai, CreateCallRequest: the methods are `GET` | `POST`, MachineDetection `Enable` |
  // `DetectMessageEnd`, Timeout an integer ("The default is `60` seconds and the maximum is `600`").
  // Routekit passes its own input through to MachineDetection and Timeout, so a value Twilio would
  // refuse must be refused here too, not played.
  for (const name of ["Method", "StatusCallbackMethod", "FallbackMethod"]) oneOf(params, name, ["GET", "POST"], 20001);
  const machineDetection = oneOf(params, "MachineDetection", ["Enable", "DetectMessageEnd"], 20001);
  const timeout = single(params, "Timeout");
  if (timeout !== undefined && !/^\d+$/.test(timeout))
    throw new ApiError({ status: 400, code: 20001, message: `Timeout must be a whole number of seconds: ${timeout}` });
  const rawEvents = params.StatusCallbackEvent;
  const listed = (Array.isArray(rawEvents) ? rawEvents : rawEvents === undefined ? [] : [rawEvents])
    // Twilio also takes a space-separated list, and ignores names it does not know.
    .flatMap((e) => e.trim().toLowerCase().split(/\s+/))
    .filter((e): e is StatusEvent => (STATUS_EVENTS as readonly string[]).includes(e));
  return {
    to,
    from,
    url: url || undefined,
    // twilio-oai, CreateCallRequest.Twiml: "If both `twiml` and `url` are provided then `twiml` parameter will be ignored."
    inlineTwiml: url ? undefined : inlineTwiml,
    statusCallback: statusCallback || undefined,
    events: new Set<StatusEvent>(rawEvents === undefined ? ["completed"] : listed),
    machineDetection: machineDetection !== undefined,
    timeoutSeconds: Math.min(600, Number(timeout ?? DEFAULT_RING_TIMEOUT_SECONDS)),
  };
}

/** A parameter that takes only the values twilio-oai lists (the last one given, as Twilio reads a repeat). */
function oneOf(
  params: Record<string, string | string[]>,
  name: string,
  allowed: readonly string[],
  code: number,
): string | undefined {
  const value = single(params, name);
  if (value === undefined || allowed.includes(value)) return value;
  throw new ApiError({
    status: 400,
    code,
    message: `Invalid ${name}: ${value}; expected one of ${allowed.join(", ")}`,
  });
}

export async function startTwilioSimulator(opts: TwilioSimulatorOptions): Promise<TwilioSimulator> {
  const calls: SimulatedCall[] = [];
  const planQueue: SimulatedCallPlan[] = [];
  const closing = new AbortController();
  const emit = opts.onEvent;
  const twilioAccounts = new SimulatorAccounts(opts.accounts);
  const records = opts.callRecords ?? sharedCallRecords;
  let simulatorUrl = "";
  const live = new SimulatedCalls(records, () => simulatorUrl);

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
    const record = records.add({
      sid: callSid,
      accountSid,
      from: spec.from,
      to: spec.to,
      direction: "outbound-api",
      status: "queued",
    });
    // Tracked from the start: a call update reaches a call still queued or ringing too.
    const call = live.track(
      new SimCall(record, {
        authToken,
        base: callParams({ callSid, accountSid, from: spec.from, to: spec.to, direction: "outbound-api" }),
        durationSeconds: plan.durationSeconds,
      }),
    );
    sendJson(res, 201, callRecordResource(record));
    emit?.({ type: "call-created", accountSid, callSid, params, plan });

    const playback = { call, plan, signal: closing.signal, ...(emit ? { onEvent: emit } : {}) };
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
