/**
 * Recordings of a live call, as Routekit's recording commands use them (docs/decisions.md §13), checked
 * against Twilio's OpenAPI description (twilio-oai, spec/json/twilio_api_v2010.json):
 *
 * - `POST …/Calls/{CallSid}/Recordings.json`: `RecordingStatusCallback`, `RecordingStatusCallbackMethod`
 *   (`GET` | `POST`), `RecordingStatusCallbackEvent` (`in-progress`, `completed`, `absent`; default
 *   `completed`), `RecordingChannels` (`mono` default | `dual`), `Trim`, `RecordingTrack` → 201 a Recording.
 * - `POST …/Calls/{CallSid}/Recordings/{Sid}.json`: `Status` (required: `paused` | `in-progress` |
 *   `stopped`), `PauseBehavior` (`skip` | `silence`).
 * - Status callbacks carry `AccountSid`, `CallSid`, `RecordingSid`, `RecordingUrl`, `RecordingStatus`,
 *   `RecordingDuration`, `RecordingChannels`, `RecordingSource`, `RecordingStartTime`, `ErrorCode`, signed
 *   like every request Twilio makes; a recording still running when its call ends stops with it.
 */
import { randomBytes } from "node:crypto";
import type { RestTools } from "./accounts";
import { API_VERSION, type RecordingPlan, type SimCall, type SimRecording } from "./call-lifecycle";
import { postLogged } from "./post-signed";

/** Twilio's RecordingTrack values (twilio-oai), which legs a recording hears: not a call's direction. */
const RECORDING_TRACKS = ["both", "inbound", "outbound"];

export type Form = { single: Record<string, string>; all: Record<string, string[]> };

const RECORDING_EVENTS = new Set(["in-progress", "completed", "absent"]);

function rfc2822(date: Date): string {
  return date.toUTCString().replace(/GMT$/, "+0000");
}

/** A parameter Twilio takes only from a list of values (twilio-oai's enums and the values its descriptions give). */
export function oneOf(
  tools: RestTools,
  form: Form,
  name: string,
  allowed: readonly string[],
  fallback?: string,
): string | undefined {
  const value = form.single[name];
  if (value === undefined) return fallback;
  if (!allowed.includes(value))
    throw tools.fail({
      status: 400,
      code: 20001,
      message: `Invalid ${name}: ${value}; expected one of ${allowed.join(", ")}`,
    });
  return value;
}

export class CallRecordings {
  private readonly plans: RecordingPlan[] = [];

  constructor(
    private readonly stepDelayMs: () => number,
    private readonly simulatorUrl: () => string,
  ) {}

  /** How the next recording ends once stopped (FIFO; default completed). */
  planNext(plan: RecordingPlan): void {
    this.plans.push(plan);
  }

  /** Starts recording a call; the caller has checked that the call is in progress. */
  create(call: SimCall, form: Form, tools: RestTools) {
    const channels = oneOf(tools, form, "RecordingChannels", ["mono", "dual"], "mono");
    oneOf(tools, form, "RecordingStatusCallbackMethod", ["GET", "POST"]);
    oneOf(tools, form, "RecordingTrack", RECORDING_TRACKS);
    oneOf(tools, form, "Trim", ["trim-silence", "do-not-trim"]);
    // "Separate multiple values with a space": the SDK repeats the parameter instead; both are taken.
    const events = new Set(
      (form.all.RecordingStatusCallbackEvent ?? ["completed"]).flatMap((e) => e.trim().split(/\s+/)),
    );
    for (const e of events)
      if (!RECORDING_EVENTS.has(e))
        throw tools.fail({ status: 400, code: 20001, message: `Invalid RecordingStatusCallbackEvent: ${e}` });
    const rec: SimRecording = {
      sid: `RE${randomBytes(16).toString("hex")}`,
      callSid: call.callSid,
      accountSid: call.accountSid,
      status: "in-progress",
      channels: channels === "dual" ? 2 : 1,
      callback: form.single.RecordingStatusCallback || null,
      events,
      startedAt: new Date(),
      recordedMs: 0,
      runningSince: Date.now(),
      callbacks: [],
      plan: this.plans.shift() ?? {},
    };
    call.recordings.push(rec);
    if (events.has("in-progress")) void this.callback(call, rec, "in-progress");
    return this.resource(rec);
  }

  /** Pauses, resumes or stops a recording; `notLive` is the refusal for one that has finished. */
  update(call: SimCall, rec: SimRecording, form: Form, tools: RestTools, notLive: () => Error) {
    const status = form.single.Status;
    if (status !== "paused" && status !== "in-progress" && status !== "stopped")
      throw tools.fail({ status: 400, code: 20001, message: `Invalid Status: ${status ?? ""}` });
    // "Can be: `skip` or `silence` and the default is `silence`": a pause recorded as silence still counts
    // in the recording's duration; only `skip` leaves it out.
    const pauseBehavior = oneOf(tools, form, "PauseBehavior", ["skip", "silence"], "silence");
    if (rec.status !== "in-progress" && rec.status !== "paused") throw notLive();
    if (status === "paused" && rec.status === "in-progress") {
      if (pauseBehavior === "skip") {
        rec.recordedMs += Date.now() - (rec.runningSince ?? Date.now());
        rec.runningSince = null;
      }
      rec.status = "paused";
    } else if (status === "in-progress" && rec.status === "paused") {
      rec.runningSince ??= Date.now();
      rec.status = "in-progress";
    } else if (status === "stopped") {
      this.stop(call, rec);
    }
    return this.resource(rec);
  }

  /** The call ended: Twilio stops whatever still records it. */
  stopAll(call: SimCall): void {
    for (const r of call.recordings) if (r.status === "in-progress" || r.status === "paused") this.stop(call, r);
  }

  private stop(call: SimCall, rec: SimRecording): void {
    if (rec.runningSince !== null) rec.recordedMs += Date.now() - rec.runningSince;
    rec.runningSince = null;
    rec.status = "stopped";
    const outcome = rec.plan.outcome ?? "completed";
    // Twilio processes the file, then reports it: after the call's end, as often as not.
    setTimeout(() => {
      rec.status = outcome;
      if (rec.events.has(outcome === "completed" ? "completed" : "absent") || outcome === "failed")
        void this.callback(call, rec, outcome);
    }, this.stepDelayMs()).unref?.();
  }

  private async callback(call: SimCall, rec: SimRecording, status: string): Promise<void> {
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

  private resource(rec: SimRecording) {
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
