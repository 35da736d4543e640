/**
 * Every call the simulator knows, by SID, and the REST resources about a call that is up, for Routekit's
 * live-call commands (docs/decisions.md §13):
 *
 * - `POST …/Calls/{Sid}.json` (call update): the rules are in call-updates.ts;
 * - `POST …/Calls/{CallSid}/Recordings.json` and `…/Recordings/{Sid}.json`: call-recordings.ts;
 * - TwiML given to a call runs in twiml-runner.ts.
 *
 * Each call has one state (call-lifecycle.ts) from the moment it is placed or comes in until long after
 * it ended, whether a plan holds it up (`holdMs`) or not, so a command reaches it in whatever state it is:
 * queued, ringing, in progress or over. A record a test added without playing a call (call-records.ts)
 * is a call too, taken in here when a command first names it.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { RestTools } from "./accounts";
import { type LiveCall, SimCall } from "./call-lifecycle";
import { type CallRecordStore, callRecordResource } from "./call-records";
import { CallRecordings, type Form } from "./call-recordings";
import { applyCallUpdate, notInProgress } from "./call-updates";
import { postLogged } from "./post-signed";
import { type DialPlan, TwimlRunner } from "./twiml-runner";

export type { LiveCall } from "./call-lifecycle";
export type { DialPlan } from "./twiml-runner";

const CALL_PATH = /^\/2010-04-01\/Accounts\/([^/]+)\/Calls\/([^/]+)\.json$/;
const RECORDINGS_PATH = /^\/2010-04-01\/Accounts\/([^/]+)\/Calls\/([^/]+)\/Recordings\.json$/;
const RECORDING_PATH = /^\/2010-04-01\/Accounts\/([^/]+)\/Calls\/([^/]+)\/Recordings\/([^/]+)\.json$/;

/** One REST request about live calls, as received (tests count them). */
export type ControlRequestLog = { method: string; path: string; params: Record<string, string> };

function formOf(body: string): Form {
  const single: Record<string, string> = {};
  const all: Record<string, string[]> = {};
  for (const [k, v] of new URLSearchParams(body)) {
    single[k] = v;
    (all[k] ??= []).push(v);
  }
  return { single, all };
}

export class SimulatedCalls {
  private readonly calls = new Map<string, SimCall>();
  private readonly twiml = new TwimlRunner(() => this.stepDelayMs);
  private readonly recordings: CallRecordings;
  private failing = 0;
  /** Every REST request about live calls (call updates, recordings), in order. */
  readonly requests: ControlRequestLog[] = [];
  /** Delay before Twilio acts on a document or reports a recording (ms). */
  stepDelayMs = 20;

  constructor(
    private readonly records: CallRecordStore,
    simulatorUrl: () => string,
  ) {
    this.recordings = new CallRecordings(() => this.stepDelayMs, simulatorUrl);
  }

  /** How the next `<Dial>` ends (FIFO; default: answered, then completed after 3 s of talk). */
  planNextDial(plan: DialPlan): void {
    this.twiml.planNextDial(plan);
  }

  /** How the next recording ends once stopped (FIFO; default completed). */
  planNextRecording(plan: Parameters<CallRecordings["planNext"]>[0]): void {
    this.recordings.planNext(plan);
  }

  /** Twilio is down: the next `n` live-call REST requests answer 503. */
  outage(n: number): void {
    this.failing = n;
  }

  /** The call with this SID, in whatever state it is (its `status`), or undefined if none was placed or played. */
  get(callSid: string): LiveCall | undefined {
    return this.calls.get(callSid);
  }

  /** Keeps a call the simulator plays, so commands find it; its recordings stop when it ends. */
  track(call: SimCall): SimCall {
    this.calls.set(call.callSid, call);
    call.whenEnded(() => this.recordings.stopAll(call));
    return call;
  }

  /** Ends every call still up (the simulator is closing). */
  closeAll(): void {
    for (const c of this.calls.values()) c.hangUp("closed");
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
    const authToken = tools.authenticate(req, accountSid);
    const form = formOf(await tools.readBody(req));
    this.requests.push({ method: req.method, path, params: form.single });
    if (this.failing > 0) {
      this.failing--;
      throw tools.fail({ status: 503, code: 20503, message: "Service Unavailable" });
    }
    const record = this.records.get(accountSid, callSid);
    if (!record)
      throw tools.fail({ status: 404, code: 20404, message: `The requested resource ${path} was not found` });
    // Requests about a call Twilio placed are signed with its account's token: the one this request used.
    const live = this.calls.get(callSid) ?? this.track(SimCall.of(record, { authToken }));

    if (call) {
      const redirect = applyCallUpdate(live, form, tools);
      if (redirect && "twiml" in redirect) this.twiml.runLater(live, async () => redirect.twiml);
      else if (redirect)
        this.twiml.runLater(
          live,
          async () =>
            (await postLogged(redirect.url, { ...live.base, CallStatus: "in-progress" }, live.authToken)).body,
        );
      tools.sendJson(res, 200, callRecordResource(record));
      return true;
    }

    if (recordings) {
      // Twilio records a call only while it is up (21220 otherwise, as for a redirect).
      if (live.status !== "in-progress") throw notInProgress(tools);
      tools.sendJson(res, 201, this.recordings.create(live, form, tools));
      return true;
    }

    const rec = live.recordings.find((r) => r.sid === decodeURIComponent(recording![3]!));
    if (!rec) throw tools.fail({ status: 404, code: 20404, message: `The requested resource ${path} was not found` });
    tools.sendJson(
      res,
      200,
      this.recordings.update(live, rec, form, tools, () => notInProgress(tools)),
    );
    return true;
  }
}
