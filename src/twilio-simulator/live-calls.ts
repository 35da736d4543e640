/**
 * Live calls in the simulator: what Twilio does with a call that is up, for Routekit's live-call
 * commands (docs/decisions.md §13), checked against Twilio's OpenAPI description (twilio-oai,
 * spec/json/twilio_api_v2010.json):
 *
 * - `POST …/Calls/{Sid}.json` (call update): `Status` (`completed` | `canceled`), `Twiml`, `Url` (+ `Method`).
 *   A call that is not in progress answers 400 with Twilio's 21220.
 * - `POST …/Calls/{CallSid}/Recordings.json`: `RecordingStatusCallback`, `RecordingStatusCallbackMethod`,
 *   `RecordingStatusCallbackEvent` (`in-progress`, `completed`, `absent`; default `completed`),
 *   `RecordingChannels` (`mono` default | `dual`), `Trim`, `RecordingTrack` → 201 a Recording resource.
 * - `POST …/Calls/{CallSid}/Recordings/{Sid}.json`: `Status` (`paused` | `in-progress` | `stopped`),
 *   `PauseBehavior`; a recording that has finished answers 400 (21220 again: nothing live to change).
 * - TwiML given to a call runs here: `<Dial action>` with `<Number url>` / `<Sip url>` dials with the
 *   result planned by `planNextDial`; the callee's `url` (the whisper) is fetched on the dialled leg once
 *   it answers; the `action` gets `DialCallStatus`, `DialCallSid`, `DialCallDuration`, `DialBridged`, and
 *   its answer runs in turn. A document ends the call when it hangs up, rejects, or has no verb that waits
 *   (Twilio hangs up when the verbs run out); `<Pause>`, `<Gather>`, `<Dial>`… keep it up.
 * - Recording status callbacks carry `AccountSid`, `CallSid`, `RecordingSid`, `RecordingUrl`,
 *   `RecordingStatus`, `RecordingDuration`, `RecordingChannels`, `RecordingSource`, `RecordingStartTime`,
 *   `ErrorCode`, signed like every request Twilio makes.
 *
 * A call is live here only when its plan says `holdMs`: it then stays up after its answer until a
 * command or its TwiML ends it (at most holdMs).
 */
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { SaxesParser } from "saxes";
import { DIAL_CALL_STATUSES } from "../shared/schemas/events";
import type { RestTools } from "./accounts";
import type { CallRecordStore } from "./call-records";
import { postSigned } from "./post-signed";

const API_VERSION = "2010-04-01";
const CALL_PATH = /^\/2010-04-01\/Accounts\/([^/]+)\/Calls\/([^/]+)\.json$/;
const RECORDINGS_PATH = /^\/2010-04-01\/Accounts\/([^/]+)\/Calls\/([^/]+)\/Recordings\.json$/;
const RECORDING_PATH = /^\/2010-04-01\/Accounts\/([^/]+)\/Calls\/([^/]+)\/Recordings\/([^/]+)\.json$/;
const DIAL_STATUSES = DIAL_CALL_STATUSES;
export type DialStatus = (typeof DIAL_STATUSES)[number];
/** Verbs that keep a call up while they run; a document without one ends the call when it is done. */
const WAITING_VERBS = new Set(["Pause", "Gather", "Dial", "Enqueue", "Conference", "Record", "Connect"]);

export type DialPlan = { status?: DialStatus; durationSeconds?: number; delayMs?: number };
export type RecordingPlan = { outcome?: "completed" | "absent" | "failed"; durationSeconds?: number };
export type Fetched = { url: string; status: number; body: string };

export type DialLog = {
  to: string;
  callerId: string | null;
  status: DialStatus;
  dialCallSid: string;
  /** The whisper: what the callee's `url` answered on the dialled leg (null without a url). */
  whisper: Fetched | null;
  /** The dial's action request and what it answered: the TwiML the caller heard next. */
  action: Fetched | null;
};

export type SimRecording = {
  sid: string;
  callSid: string;
  accountSid: string;
  status: "in-progress" | "paused" | "stopped" | "completed" | "absent" | "failed";
  channels: 1 | 2;
  callback: string | null;
  events: Set<string>;
  startedAt: Date;
  /** Milliseconds recorded so far, pauses excluded. */
  recordedMs: number;
  runningSince: number | null;
  callbacks: { status: string; httpStatus: number }[];
  plan: RecordingPlan;
};

export type LiveCall = {
  callSid: string;
  accountSid: string;
  authToken: string;
  base: Record<string, string>;
  /** The TwiML documents the call was given after its answer, in order. */
  documents: string[];
  dials: DialLog[];
  recordings: SimRecording[];
  /** Why it ended: `api` (Status=completed/canceled), `twiml`, `hold-expired`; null while it lasts. */
  endedBy: "api" | "twiml" | "hold-expired" | null;
  ended: Promise<void>;
};

type Internal = LiveCall & { finish(by: NonNullable<LiveCall["endedBy"]>): void };

/** One REST request about live calls, as received (tests count them). */
export type ControlRequestLog = { method: string; path: string; params: Record<string, string> };

/** A signed POST as the live-call hooks log it: no answer (refused, timed out) is status 0. */
async function postLogged(url: string, params: Record<string, string>, authToken: string): Promise<Fetched> {
  try {
    const { status, body } = await postSigned(url, params, authToken);
    return { url, status, body };
  } catch {
    return { url, status: 0, body: "" };
  }
}

type Element = { name: string; attributes: Record<string, string>; text: string; children: Element[] };

/** The document's verbs (children of `<Response>`), or null when it is not a TwiML document. */
function parseTwiml(xml: string): Element[] | null {
  const parser = new SaxesParser();
  const root: Element = { name: "#root", attributes: {}, text: "", children: [] };
  const stack: Element[] = [root];
  let failed = false;
  parser.on("error", () => {
    failed = true;
  });
  parser.on("opentag", (tag) => {
    const el: Element = {
      name: tag.name,
      attributes: tag.attributes as Record<string, string>,
      text: "",
      children: [],
    };
    stack[stack.length - 1]!.children.push(el);
    stack.push(el);
  });
  parser.on("closetag", () => {
    stack.pop();
  });
  parser.on("text", (t) => {
    stack[stack.length - 1]!.text += t;
  });
  try {
    parser.write(xml).close();
  } catch {
    return null;
  }
  const response = root.children[0];
  if (failed || root.children.length !== 1 || response?.name !== "Response") return null;
  return response.children;
}

function sid(prefix: string): string {
  return `${prefix}${randomBytes(16).toString("hex")}`;
}

function rfc2822(date: Date): string {
  return date.toUTCString().replace(/GMT$/, "+0000");
}

function formOf(body: string): { single: Record<string, string>; all: Record<string, string[]> } {
  const single: Record<string, string> = {};
  const all: Record<string, string[]> = {};
  for (const [k, v] of new URLSearchParams(body)) {
    single[k] = v;
    (all[k] ??= []).push(v);
  }
  return { single, all };
}

export class LiveCalls {
  private readonly live = new Map<string, Internal>();
  private readonly dialPlans: DialPlan[] = [];
  private readonly recordingPlans: RecordingPlan[] = [];
  private failing = 0;
  /** Every REST request about live calls (call updates, recordings), in order. */
  readonly requests: ControlRequestLog[] = [];
  /** Delay before Twilio acts on a document or reports a recording (ms). */
  stepDelayMs = 20;

  constructor(
    private readonly records: CallRecordStore,
    private readonly simulatorUrl: () => string,
  ) {}

  /** How the next `<Dial>` ends (FIFO; default: answered, then completed after 3 s of talk). */
  planNextDial(plan: DialPlan): void {
    if (plan.status !== undefined && !DIAL_STATUSES.includes(plan.status))
      throw new Error(`unknown dial status ${plan.status}`);
    this.dialPlans.push(plan);
  }

  /** How the next recording ends once stopped (FIFO; default completed). */
  planNextRecording(plan: RecordingPlan): void {
    this.recordingPlans.push(plan);
  }

  /** Twilio is down: the next `n` live-call REST requests answer 503. */
  outage(n: number): void {
    this.failing = n;
  }

  get(callSid: string): LiveCall | undefined {
    return this.live.get(callSid);
  }

  /** Holds a call up after its answer until a command or its TwiML ends it, at most `holdMs`. */
  hold(c: { callSid: string; accountSid: string; authToken: string; base: Record<string, string>; holdMs: number }) {
    let finish!: (by: NonNullable<LiveCall["endedBy"]>) => void;
    const ended = new Promise<void>((resolve) => {
      finish = (by) => {
        if (call.endedBy) return;
        call.endedBy = by;
        clearTimeout(timer);
        for (const r of call.recordings)
          if (r.status === "in-progress" || r.status === "paused") this.stopRecording(call, r);
        resolve();
      };
    });
    const call: Internal = {
      ...c,
      documents: [],
      dials: [],
      recordings: [],
      endedBy: null,
      ended,
      finish: (by) => finish(by),
    };
    const timer = setTimeout(() => call.finish("hold-expired"), c.holdMs);
    timer.unref?.();
    this.live.set(c.callSid, call);
    return call;
  }

  /** Ends every held call (the simulator is closing). */
  closeAll(): void {
    for (const c of this.live.values()) c.finish("hold-expired");
  }

  /** Serves the live-call REST resources; false when the path is none of them. */
  async handle(req: IncomingMessage, res: ServerResponse, url: URL, tools: RestTools): Promise<boolean> {
    const path = url.pathname;
    const call = CALL_PATH.exec(path);
    const recordings = RECORDINGS_PATH.exec(path);
    const recording = RECORDING_PATH.exec(path);
    if (req.method !== "POST" || !(call || recordings || recording)) return false;
    const m = (call ?? recordings ?? recording)!;
    const accountSid = decodeURIComponent(m[1]!);
    const callSid = decodeURIComponent(m[2]!);
    tools.authenticate(req, accountSid);
    const form = formOf(await tools.readBody(req));
    this.requests.push({ method: req.method, path, params: form.single });
    if (this.failing > 0) {
      this.failing--;
      throw tools.fail({ status: 503, code: 20503, message: "Service Unavailable" });
    }
    const record = this.records.get(accountSid, callSid);
    if (!record)
      throw tools.fail({ status: 404, code: 20404, message: `The requested resource ${path} was not found` });
    const live = this.live.get(callSid);
    const notLive = () =>
      tools.fail({ status: 400, code: 21220, message: "Call is not in-progress. Cannot redirect." });

    if (call) {
      const status = form.single.Status;
      const twiml = form.single.Twiml;
      const next = form.single.Url;
      if (status !== undefined && status !== "completed" && status !== "canceled")
        throw tools.fail({ status: 400, code: 20001, message: `Invalid Status: ${status}` });
      if (status === undefined && twiml === undefined && next === undefined)
        throw tools.fail({ status: 400, code: 20001, message: "Status, Twiml or Url is required" });
      if (!live || live.endedBy) throw notLive();
      if (twiml !== undefined && parseTwiml(twiml) === null)
        throw tools.fail({ status: 400, code: 12100, message: "Document parse failure" });
      if (status !== undefined) {
        live.finish("api");
      } else if (twiml !== undefined) {
        this.runLater(live, async () => twiml);
      } else if (next) {
        this.runLater(
          live,
          async () => (await postLogged(next, { ...live.base, CallStatus: "in-progress" }, live.authToken)).body,
        );
      }
      tools.sendJson(res, 200, this.callResource(accountSid, callSid, live.endedBy ? "completed" : "in-progress"));
      return true;
    }

    if (recordings) {
      if (!live || live.endedBy) throw notLive();
      const channels = form.single.RecordingChannels ?? "mono";
      if (channels !== "mono" && channels !== "dual")
        throw tools.fail({ status: 400, code: 20001, message: `Invalid RecordingChannels: ${channels}` });
      const events = new Set(
        (form.all.RecordingStatusCallbackEvent ?? ["completed"]).flatMap((e) => e.trim().split(/\s+/)),
      );
      const rec: SimRecording = {
        sid: sid("RE"),
        callSid,
        accountSid,
        status: "in-progress",
        channels: channels === "dual" ? 2 : 1,
        callback: form.single.RecordingStatusCallback || null,
        events,
        startedAt: new Date(),
        recordedMs: 0,
        runningSince: Date.now(),
        callbacks: [],
        plan: this.recordingPlans.shift() ?? {},
      };
      live.recordings.push(rec);
      tools.sendJson(res, 201, this.recordingResource(rec));
      if (events.has("in-progress")) void this.recordingCallback(live, rec, "in-progress");
      return true;
    }

    const rec = live?.recordings.find((r) => r.sid === decodeURIComponent(recording![3]!));
    if (!rec) throw tools.fail({ status: 404, code: 20404, message: `The requested resource ${path} was not found` });
    const status = form.single.Status;
    if (status !== "paused" && status !== "in-progress" && status !== "stopped")
      throw tools.fail({ status: 400, code: 20001, message: `Invalid Status: ${status ?? ""}` });
    if (rec.status !== "in-progress" && rec.status !== "paused") throw notLive();
    if (status === "paused" && rec.status === "in-progress") {
      rec.recordedMs += Date.now() - (rec.runningSince ?? Date.now());
      rec.runningSince = null;
      rec.status = "paused";
    } else if (status === "in-progress" && rec.status === "paused") {
      rec.runningSince = Date.now();
      rec.status = "in-progress";
    } else if (status === "stopped") {
      this.stopRecording(live!, rec);
    }
    tools.sendJson(res, 200, this.recordingResource(rec));
    return true;
  }

  private stopRecording(call: LiveCall, rec: SimRecording): void {
    if (rec.runningSince !== null) rec.recordedMs += Date.now() - rec.runningSince;
    rec.runningSince = null;
    rec.status = "stopped";
    const outcome = rec.plan.outcome ?? "completed";
    // Twilio processes the file, then reports it: after the call's end, as often as not.
    setTimeout(() => {
      rec.status = outcome;
      if (rec.events.has(outcome === "completed" ? "completed" : "absent") || outcome === "failed")
        void this.recordingCallback(call, rec, outcome);
    }, this.stepDelayMs).unref?.();
  }

  private async recordingCallback(call: LiveCall, rec: SimRecording, status: string): Promise<void> {
    if (!rec.callback) return;
    const seconds = rec.plan.durationSeconds ?? Math.round(rec.recordedMs / 1000);
    const params: Record<string, string> = {
      AccountSid: rec.accountSid,
      CallSid: rec.callSid,
      RecordingSid: rec.sid,
      RecordingUrl: `${this.simulatorUrl()}/${API_VERSION}/Accounts/${rec.accountSid}/Recordings/${rec.sid}`,
      RecordingStatus: status,
      RecordingDuration: status === "completed" ? String(seconds) : "0",
      RecordingChannels: String(rec.channels),
      RecordingSource: "StartCallRecordingAPI",
      RecordingStartTime: rfc2822(rec.startedAt),
      RecordingTrack: "both",
      ErrorCode: status === "failed" ? "13617" : "0",
    };
    const res = await postLogged(rec.callback, params, call.authToken);
    rec.callbacks.push({ status, httpStatus: res.status });
  }

  private runLater(call: Internal, document: () => Promise<string>): void {
    setTimeout(() => {
      void document().then((twiml) => this.run(call, twiml));
    }, this.stepDelayMs).unref?.();
  }

  /** Runs a document the call was given: its `<Dial>`s, then ends the call unless a verb keeps it up. */
  private async run(call: Internal, twiml: string): Promise<void> {
    if (call.endedBy) return;
    call.documents.push(twiml);
    const verbs = parseTwiml(twiml);
    if (!verbs) return call.finish("twiml"); // Twilio: "an application error has occurred", and the call ends
    for (const verb of verbs) {
      if (call.endedBy) return;
      if (verb.name === "Hangup" || verb.name === "Reject") return call.finish("twiml");
      if (verb.name === "Dial") return this.dial(call, verb);
    }
    if (!verbs.some((v) => WAITING_VERBS.has(v.name))) call.finish("twiml");
  }

  private async dial(call: Internal, verb: Element): Promise<void> {
    const plan = this.dialPlans.shift() ?? {};
    const status: DialStatus = plan.status ?? "completed";
    const noun = verb.children.find((c) => c.name === "Number" || c.name === "Sip" || c.name === "Client");
    const to = (noun?.text ?? verb.text).trim();
    const dialCallSid = sid("CA");
    const log: DialLog = {
      to,
      callerId: verb.attributes.callerId ?? null,
      status,
      dialCallSid,
      whisper: null,
      action: null,
    };
    call.dials.push(log);
    await new Promise((r) => setTimeout(r, plan.delayMs ?? this.stepDelayMs));
    const connected = status === "completed" || status === "answered";
    if (connected && noun?.attributes.url) {
      log.whisper = await postLogged(
        noun.attributes.url,
        {
          AccountSid: call.accountSid,
          CallSid: dialCallSid,
          ParentCallSid: call.callSid,
          From: verb.attributes.callerId ?? call.base.From ?? "",
          To: to,
          CallStatus: "in-progress",
          Direction: "outbound-dial",
          ApiVersion: API_VERSION,
        },
        call.authToken,
      );
    }
    const action = verb.attributes.action;
    if (!action) {
      // No action: Twilio goes on with the verbs after <Dial>; with none, the call ends.
      return call.finish("twiml");
    }
    const params: Record<string, string> = {
      ...call.base,
      CallStatus: "in-progress",
      DialCallStatus: status,
      DialBridged: String(connected),
    };
    if (status !== "no-answer" && status !== "busy") params.DialCallSid = dialCallSid;
    if (connected) params.DialCallDuration = String(plan.durationSeconds ?? 3);
    log.action = await postLogged(action, params, call.authToken);
    await this.run(call, log.action.status >= 200 && log.action.status < 300 ? log.action.body : "");
  }

  private callResource(accountSid: string, callSid: string, status: string) {
    const uri = `/${API_VERSION}/Accounts/${accountSid}/Calls/${callSid}`;
    const r = this.records.get(accountSid, callSid);
    return {
      sid: callSid,
      account_sid: accountSid,
      api_version: API_VERSION,
      direction: r?.direction ?? "inbound",
      from: r?.from ?? null,
      to: r?.to ?? null,
      status,
      start_time: r?.startTime ? rfc2822(r.startTime) : null,
      end_time: null,
      duration: null,
      date_created: r ? rfc2822(r.dateCreated) : null,
      date_updated: rfc2822(new Date()),
      parent_call_sid: null,
      price_unit: "USD",
      uri: `${uri}.json`,
      subresource_uris: { recordings: `${uri}/Recordings.json` },
    };
  }

  private recordingResource(rec: SimRecording) {
    const uri = `/${API_VERSION}/Accounts/${rec.accountSid}/Calls/${rec.callSid}/Recordings/${rec.sid}.json`;
    return {
      account_sid: rec.accountSid,
      api_version: API_VERSION,
      call_sid: rec.callSid,
      conference_sid: null,
      date_created: rfc2822(rec.startedAt),
      date_updated: rfc2822(new Date()),
      start_time: rfc2822(rec.startedAt),
      duration: "-1",
      sid: rec.sid,
      price: null,
      uri,
      encryption_details: null,
      price_unit: "USD",
      status: rec.status,
      channels: rec.channels,
      source: "StartCallRecordingAPI",
      error_code: null,
      track: "both",
    };
  }
}
