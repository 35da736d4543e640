/**
 * The voice request both side-by-side benches send, to Routekit and to the reference alike: Twilio's
 * form for a new inbound call, with a CallSid no other request of any run shares (a counter, the
 * process id and 40 random bits).
 */
import { randomInt } from "node:crypto";

let calls = 0;

export function newBenchCallSid(): string {
  return `CA${(++calls).toString(16).padStart(8, "0")}${process.pid.toString(16).padStart(8, "0")}${randomInt(2 ** 40)
    .toString(16)
    .padStart(16, "0")}`;
}

/** The form body of a ringing inbound call to `to`. */
export function voiceRequestBody(to: string): string {
  return new URLSearchParams({
    CallSid: newBenchCallSid(),
    AccountSid: "AC5170000000000000000000000000000a",
    From: "+14155550100",
    To: to,
    CallStatus: "ringing",
    Direction: "inbound",
    ApiVersion: "2010-04-01",
  }).toString();
}

/** The headers Twilio sends with it (content-length is the sender's). */
export const VOICE_REQUEST_HEADERS = {
  "content-type": "application/x-www-form-urlencoded",
  "user-agent": "TwilioProxy/1.1",
} as const;
