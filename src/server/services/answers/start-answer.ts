/**
 * Turns the customer's answer to `call.started` (the POST to `onCallStartUrl`) into the TwiML we
 * hand back to Twilio.
 *
 * Product decision: a 2xx answer decides the call when it is
 *   - XML that is a TwiML `<Response>` document (returned to Twilio as is),
 *   - JSON `{ "twiml": "<Response>…</Response>" }` (likewise), or
 *   - JSON `{ "actions": [ { "say": … }, { "play": … }, { "dial": … }, { "pause": n }, { "hangup": true } ] }`
 *     (built with the Twilio SDK's TwiML builder).
 * Anything else is an error: the caller plays `fallbackTwiml()` and emits `call.error`.
 *
 * Pure: no I/O, no logging. Error messages are written for the customer (they end up in the
 * `call.error` event) and never echo more than a short excerpt of their document.
 */
import { twimlFromActions } from "./actions-to-twiml";
import { checkResponseDocument } from "./check-twiml";
import { interpretAnswer, type StartAnswerErrorCode, type StartAnswerInput } from "./interpret-answer";

export { fallbackTwiml, REJECT_BUSY_TWIML, REJECT_TWIML } from "./fixed-twiml";
export type { StartAnswerInput } from "./interpret-answer";

export type StartAnswer =
  | { ok: true; twiml: string; form: "xml" | "json-twiml" | "json-actions" }
  | { ok: false; code: StartAnswerErrorCode; message: string };

export function interpretStartAnswer(res: StartAnswerInput): StartAnswer {
  const answer = interpretAnswer(res);
  const invalid = (message: string): StartAnswer => ({ ok: false, code: "START_CALLBACK_INVALID", message });
  switch (answer.form) {
    case "refused":
      return { ok: false, code: answer.code, message: answer.message };
    case "json-actions": {
      const built = twimlFromActions(answer.actions);
      return built.ok ? { ok: true, twiml: built.twiml, form: "json-actions" } : invalid(built.message);
    }
    case "xml":
    case "json-twiml": {
      const check = checkResponseDocument(answer.doc, answer.source, answer.shift);
      if (check.ok) return { ok: true, twiml: answer.doc, form: answer.form };
      const what = answer.form === "xml" ? "answer" : "answer's `twiml`";
      return invalid(`${what} is not a TwiML <Response> document: ${check.reason}`);
    }
  }
}
