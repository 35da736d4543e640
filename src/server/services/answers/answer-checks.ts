/**
 * The checks a stored fallback or last resort gets when saved (docs/decisions.md §12): exactly those
 * an answer gets during a call, so what was accepted then is what the engine can return later.
 */
import type { AnswerChecks } from "../../../shared/schemas/answer-policy";
import { twimlFromActions } from "./actions-to-twiml";
import { checkResponseDocument } from "./check-twiml";

export const SERVER_ANSWER_CHECKS: AnswerChecks = {
  actions(actions, policy) {
    const built = twimlFromActions(actions, { urlPolicy: policy });
    return built.ok ? null : built.message;
  },
  twiml(twiml) {
    const doc = twiml.replace(/^[\ufeff\s]+/, "");
    const check = checkResponseDocument(doc, twiml, twiml.length - doc.length);
    return check.ok ? null : `is not a TwiML <Response> document: ${check.reason}`;
  },
};
