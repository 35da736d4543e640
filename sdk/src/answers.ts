/**
 * Answer builders for the actions vocabulary (docs/decisions.md §12, §22): what a call.started handler
 * answers, what a stored fallback or last resort holds, and what `calls.redirect` and a transfer's
 * `onFailure` take. The document types these lists as arrays of anything (the service checks each item
 * and answers 400 naming the one at fault), so their shapes are spelled here, once, as §22 fixes them.
 *
 *   res.json(answer(say("Connecting you now"), dial("+14155550123", { timeout: 20 })));
 */

export type SayAction = { say: string; voice?: string; language?: string };
export type PlayAction = { play: string };
export type PauseAction = { pause: number };
export type DialAction = { dial: string | { to: string; callerId?: string; timeout?: number } };
export type GatherOptions = {
  /** Where Twilio posts what the caller entered. */
  actionUrl: string;
  input?: "dtmf" | "speech" | "dtmf speech";
  /** 1–99 */
  numDigits?: number;
  /** Seconds, 1–60 */
  timeout?: number;
  /** Said while waiting for input. */
  say?: string;
};
export type GatherAction = { gather: GatherOptions };
export type RecordAction = { record: { maxLength?: number; transcribe?: boolean } };
export type HangupAction = { hangup: true };
export type RejectAction = { reject: { reason?: "busy" | "rejected" } };

export type Action =
  | SayAction
  | PlayAction
  | PauseAction
  | DialAction
  | GatherAction
  | RecordAction
  | HangupAction
  | RejectAction;

/** The JSON answer to call.started (and the body of `calls.redirect`): `{ actions: [...] }`. */
export type Answer = { actions: Action[] };

export function answer(...actions: Action[]): Answer {
  return { actions };
}

/** Speaks `text` (at most 4,096 characters); `voice` such as Polly.Joanna, `language` such as en-US. */
export function say(text: string, options: { voice?: string; language?: string } = {}): SayAction {
  return { say: text, ...options };
}

/** Plays the audio at an absolute http(s) URL. */
export function play(url: string): PlayAction {
  return { play: url };
}

/** Silence, 1–600 seconds. */
export function pause(seconds: number): PauseAction {
  return { pause: seconds };
}

/** Connects the caller to an E.164 number or a sip: URI; `timeout` 5–600 seconds of ringing. */
export function dial(to: string, options: { callerId?: string; timeout?: number } = {}): DialAction {
  return options.callerId === undefined && options.timeout === undefined ? { dial: to } : { dial: { to, ...options } };
}

/** Collects digits or speech and posts them to `actionUrl`. */
export function gather(options: GatherOptions): GatherAction {
  return { gather: options };
}

/** Records the caller; `maxLength` 1–14,400 seconds. */
export function record(options: { maxLength?: number; transcribe?: boolean } = {}): RecordAction {
  return { record: options };
}

export function hangup(): HangupAction {
  return { hangup: true };
}

/** Refuses the call without answering it (nothing billed): a busy signal or a rejection. */
export function reject(reason?: "busy" | "rejected"): RejectAction {
  return { reject: reason === undefined ? {} : { reason } };
}
