/** Largest TwiML document accepted from the customer or produced from actions (Twilio's own limit is 64 KB). */
export const MAX_TWIML_BYTES = 64 * 1024;

/** True when `s` would not fit Twilio's limit once sent as UTF-8. */
export function exceedsTwimlSize(s: string): boolean {
  // UTF-8 never takes fewer bytes than UTF-16 code units, so the cheap test goes first.
  return s.length > MAX_TWIML_BYTES || Buffer.byteLength(s, "utf8") > MAX_TWIML_BYTES;
}
