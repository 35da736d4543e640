/** The two documents the engine answers with on its own, built once with the Twilio SDK. */
import twilio from "twilio";

const { VoiceResponse } = twilio.twiml;
const FALLBACK_SAY = "We're sorry, this call cannot be completed right now. Goodbye.";

/** `<?xml version="1.0" encoding="UTF-8"?><Response><Reject/></Response>` */
export const REJECT_TWIML: string = (() => {
  const response = new VoiceResponse();
  response.reject();
  return response.toString();
})();

/** `<Reject reason="busy"/>`: a guardrail's refusal (docs/decisions.md §17); the caller hears a line in use. */
export const REJECT_BUSY_TWIML: string = (() => {
  const response = new VoiceResponse();
  response.reject({ reason: "busy" });
  return response.toString();
})();

const FALLBACK_TWIML: string = (() => {
  const response = new VoiceResponse();
  response.say(FALLBACK_SAY);
  response.hangup();
  return response.toString();
})();

/** A short apology, then hang up. Played when the customer's answer cannot decide the call. */
export function fallbackTwiml(): string {
  return FALLBACK_TWIML;
}
