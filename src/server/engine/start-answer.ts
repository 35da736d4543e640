/**
 * The engine's view of how an answer to `call.started` is checked: the rule itself lives in
 * services/answers/start-answer.ts, where a shadow's answer and a replay's are checked by it too
 * (docs/decisions.md §23).
 */
export {
  fallbackTwiml,
  interpretStartAnswer,
  REJECT_BUSY_TWIML,
  REJECT_TWIML,
  type StartAnswerInput,
} from "../services/answers/start-answer";
