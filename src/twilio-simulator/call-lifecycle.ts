/**
 * One call in the simulator, whoever placed it (Calls.create, an inbound call, a record a test added):
 * its one lifecycle state, queued → ringing → in-progress → a terminal status, as Twilio's call status
 * values define it (twilio-oai `call_enum_status`; Twilio's "Call Status Values": `canceled` is a call
 * hung up while queued or ringing, `completed` one that was answered and ended normally).
 *
 * The state is the call's record (call-records.ts), the resource `GET …/Calls/{Sid}.json` serves, so the
 * playback (call-playback.ts), the call-update rules (call-updates.ts), TwiML, recordings and the final
 * status callback all read and move the same value: nothing can end a call the record says is up, or
 * report a status the record does not hold.
 */
import type { TerminalCallStatus } from "../shared/schemas/enums";
import type { DIAL_CALL_STATUSES } from "../shared/schemas/events";
import { type CallRecord, type CallRecordStatus, isEndedStatus } from "./call-records";

export const API_VERSION = "2010-04-01";

/** Who ended the call: a call update (`api`), its TwiML, its hold running out, its plan, the simulator closing. */
export type EndedBy = "api" | "twiml" | "hold-expired" | "plan" | "closed";

export type DialStatus = (typeof DIAL_CALL_STATUSES)[number];
type Fetched = { url: string; status: number; body: string };
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

export type RecordingPlan = { outcome?: "completed" | "absent" | "failed"; durationSeconds?: number };
export type SimRecording = {
  sid: string;
  callSid: string;
  accountSid: string;
  status: "in-progress" | "paused" | "stopped" | "completed" | "absent" | "failed";
  channels: 1 | 2;
  callback: string | null;
  events: Set<string>;
  startedAt: Date;
  /** Milliseconds recorded so far, pauses with PauseBehavior=skip excluded. */
  recordedMs: number;
  runningSince: number | null;
  callbacks: { status: string; httpStatus: number }[];
  plan: RecordingPlan;
};

/** What tests read of a call (`twilio.control.get(callSid)`). */
export type LiveCall = {
  callSid: string;
  accountSid: string;
  authToken: string;
  base: Record<string, string>;
  /** The call's one state: its record's status. */
  readonly status: CallRecordStatus;
  /** The TwiML documents the call was given after its answer, in order. */
  documents: string[];
  dials: DialLog[];
  recordings: SimRecording[];
  /** Why it ended; null while it lasts. */
  endedBy: EndedBy | null;
  ended: Promise<void>;
};

/** The parameters Twilio sends with every request about a call. */
export function callParams(c: {
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

/** The call of each record, so whoever reaches a record (a playback, another simulator's REST API) moves one call. */
const callOfRecord = new WeakMap<CallRecord, SimCall>();

export class SimCall implements LiveCall {
  /** The call a record belongs to: the one playing it, or a new one for a record nobody plays. */
  static of(record: CallRecord, opts: { authToken: string }): SimCall {
    return callOfRecord.get(record) ?? new SimCall(record, opts);
  }

  readonly documents: string[] = [];
  readonly dials: DialLog[] = [];
  readonly recordings: SimRecording[] = [];
  endedBy: EndedBy | null = null;
  readonly ended: Promise<void>;
  readonly authToken: string;
  readonly base: Record<string, string>;
  private readonly over = new AbortController();
  private readonly onEnd: (() => void)[] = [];
  private resolveEnded!: () => void;
  private answeredAt: number | null = null;
  /** CallDuration once answered; undefined: the seconds it really lasted (a call no plan plays). */
  private readonly plannedSeconds: number | undefined;

  constructor(
    readonly record: CallRecord,
    opts: { authToken: string; base?: Record<string, string>; durationSeconds?: number },
  ) {
    this.authToken = opts.authToken;
    this.base =
      opts.base ??
      callParams({
        callSid: record.sid,
        accountSid: record.accountSid,
        from: record.from,
        to: record.to,
        direction: record.direction,
      });
    this.plannedSeconds = opts.durationSeconds;
    this.ended = new Promise((resolve) => {
      this.resolveEnded = resolve;
    });
    if (record.status === "in-progress") this.answeredAt = (record.startTime ?? new Date()).getTime();
    if (isEndedStatus(record.status)) this.settle();
    callOfRecord.set(record, this);
  }

  get callSid(): string {
    return this.record.sid;
  }

  get accountSid(): string {
    return this.record.accountSid;
  }

  get status(): CallRecordStatus {
    return this.record.status;
  }

  get isOver(): boolean {
    return isEndedStatus(this.record.status);
  }

  /** Aborted once the call has ended: wakes whatever waits on it (a ringing phone, a hold). */
  get endSignal(): AbortSignal {
    return this.over.signal;
  }

  /** Runs when the call ends (its recordings stop with it). */
  whenEnded(listener: () => void): void {
    if (this.isOver) listener();
    else this.onEnd.push(listener);
  }

  /** queued → ringing: an outbound call starts ringing the callee (Twilio's start_time: when it was dialled). */
  ring(): void {
    if (this.record.status !== "queued") return;
    this.record.status = "ringing";
    this.record.startTime ??= new Date();
  }

  /** queued or ringing → in-progress. */
  answer(answeredBy?: string): void {
    if (this.record.status !== "queued" && this.record.status !== "ringing") return;
    this.record.status = "in-progress";
    this.record.startTime ??= new Date();
    if (answeredBy !== undefined) this.record.answeredBy = answeredBy;
    this.answeredAt = Date.now();
  }

  /**
   * Ends a call that is still up with a final status; false when it had ended already, so a call ends
   * once. Only an answered call can be `completed` (Twilio's call status values); it then reports its
   * duration, any other end 0 s.
   */
  end(status: TerminalCallStatus, by: EndedBy): boolean {
    if (this.isOver) return false;
    if (status === "completed" && this.record.status !== "in-progress")
      throw new Error(`call ${this.callSid} is ${this.record.status}: only an answered call completes`);
    this.record.duration = status === "completed" ? this.answeredSeconds() : 0;
    this.record.endTime = new Date();
    this.record.status = status;
    this.endedBy = by;
    this.settle();
    return true;
  }

  /**
   * Hangs the call up whatever its state: an answered call `completed`, one not yet answered `canceled`,
   * as Twilio records a call hung up before it connected (Call Status Values).
   */
  hangUp(by: EndedBy): boolean {
    return this.end(this.record.status === "in-progress" ? "completed" : "canceled", by);
  }

  private answeredSeconds(): number {
    if (this.plannedSeconds !== undefined) return this.plannedSeconds;
    return Math.max(0, Math.round((Date.now() - (this.answeredAt ?? Date.now())) / 1000));
  }

  private settle(): void {
    this.over.abort();
    this.resolveEnded();
    for (const listener of this.onEnd.splice(0)) listener();
  }
}
