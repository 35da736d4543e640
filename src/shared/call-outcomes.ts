/**
 * Every way a call can end (`endReason`) and every `error.code` a call can
 * carry, each with a label, what it means and what to do (docs/decisions.md
 * §14). The one table behind the dashboard's call panel, the OpenAPI
 * descriptions of those fields and docs/call-outcomes.md
 * (tests/unit/call-outcomes.test.ts fails when the doc and this table differ).
 * No server imports: the dashboard bundles it.
 */
import type { CallAnswer, CallEndReason } from "@/shared/schemas/enums";

export type Outcome = {
  /** A few words for a person. */
  label: string;
  /** What happened, in a sentence or two. */
  meaning: string;
  /** What the customer can do about it. */
  action: string;
};

/** Grouped as docs/decisions.md §14 groups them; the order is the reference's. */
const END_REASON_GROUPS = ["telephony", "routekit", "learned"] as const;
export type EndReasonGroup = (typeof END_REASON_GROUPS)[number];

const END_REASON_GROUP_TITLES: Record<EndReasonGroup, string> = {
  telephony: "The call itself",
  routekit: "Routekit's decisions",
  learned: "How the end was learned",
};

export const END_REASONS: Record<CallEndReason, Outcome & { group: EndReasonGroup }> = {
  completed: {
    group: "telephony",
    label: "Completed",
    meaning:
      "The call was answered and ended normally. It is billed by the minute. A simulated call (`test: true`, POST /api/phone-numbers/{id}/simulate-call) ends so right after its answer, with 0 seconds and nothing billed.",
    action: "Nothing. Look at `error` if your backend's answer was not the one used.",
  },
  busy: {
    group: "telephony",
    label: "Busy",
    meaning: "The called party was busy (SIP 486), or a `reject` with reason busy ended the call.",
    action: "Try again later, or offer voicemail. Not billed.",
  },
  "no-answer": {
    group: "telephony",
    label: "No answer",
    meaning: "Nobody answered before the ringing time ran out.",
    action: "Try again later, or raise `timeout` on outbound calls. Not billed.",
  },
  canceled: {
    group: "telephony",
    label: "Canceled",
    meaning:
      "The call was hung up before it was answered: the caller gave up, or it was canceled through Twilio's API.",
    action: "Nothing to fix. Many of these on one number can mean callers wait too long before it rings.",
  },
  failed: {
    group: "telephony",
    label: "Failed",
    meaning:
      "Twilio or the carrier could not connect the call. `sipResponseCode` and `errorCode` carry the carrier's SIP response and Twilio's error code when Twilio sent them.",
    action:
      "Look up `errorCode` in Twilio's error dictionary (twilio.com/docs/api/errors) and check the number dialled. A 404 or 484 SIP code means an invalid number; 403 or 603, that the carrier refused it.",
  },
  transferred: {
    group: "telephony",
    label: "Transferred",
    meaning:
      "The call ended after a successful transfer (POST /api/calls/{callSid}/transfer): the callee took it over.",
    action: "Nothing.",
  },
  "not-registered": {
    group: "routekit",
    label: "Number not registered",
    meaning:
      "The called number is not registered to the account that owns the engine URL (or was released), so Routekit rejected the call.",
    action: "Register the number (POST /api/phone-numbers), or point the number's voice URL elsewhere at Twilio.",
  },
  "account-inactive": {
    group: "routekit",
    label: "Account not active",
    meaning: "Checkout was never completed, so the account is not active and Routekit rejected the call.",
    action: "Complete checkout on the Billing page.",
  },
  "account-suspended": {
    group: "routekit",
    label: "Account suspended",
    meaning: "Payment stopped, so the account is suspended and Routekit rejected the call.",
    action: "Update the payment method on the Billing page; calls are answered again at once.",
  },
  "spend-limit-reached": {
    group: "routekit",
    label: "Spend limit reached",
    meaning:
      "The month's usage cost had reached `monthlyBudget` with `hardCap` on, so Routekit rejected the call (busy). Calls already live when the budget was reached went on.",
    action:
      "Raise `monthlyBudget` or turn `hardCap` off (Billing page, or PUT /api/account/limits); calls are taken again at once. Otherwise they are from the 1st of next month (UTC).",
  },
  "concurrency-limit-reached": {
    group: "routekit",
    label: "Too many calls at once",
    meaning:
      "The account already had `maxConcurrentCalls` calls live, so Routekit rejected the call (busy). A call is live from its first voice request (outbound: from POST /api/outbound) until its final status.",
    action: "Raise `maxConcurrentCalls` in your limits, or set it to null for no cap.",
  },
  "daily-cap-reached": {
    group: "routekit",
    label: "Daily minutes used up",
    meaning:
      "The number's calls that ended today (UTC) had used up its `dailyMinuteCap`, so Routekit rejected the call (busy).",
    action: "Raise or clear the number's `dailyMinuteCap` (PATCH /api/phone-numbers/{id}), or wait for 00:00 UTC.",
  },
  "hung-up-by-api": {
    group: "routekit",
    label: "Hung up through the API",
    meaning: "The call was hung up with POST /api/calls/{callSid}/hangup (or from the dashboard).",
    action: "Nothing. The call's timeline says which key or member did it.",
  },
  reconciled: {
    group: "learned",
    label: "Closed from Twilio's record",
    meaning:
      "The call's final status never reached Routekit; it was read from Twilio's call record (the account has a Twilio connection) and the call closed with it. `status` is Twilio's final status; usage and `call.ended` follow as usual.",
    action:
      "Nothing for the call. Many of these mean status callbacks are lost: check that the number's status callback URL is your engine URL.",
  },
  "no-final-status": {
    group: "learned",
    label: "No final status",
    meaning:
      "The account has no Twilio connection and no final status came for 4 h 10 min after the call's last request (Twilio's default call time limit plus a margin). The call is closed with status `unknown` and is not billed.",
    action:
      "Check that the number's status callback URL is your engine URL. Connect Twilio: Routekit then reads the call's real end from Twilio within 5 minutes.",
  },
};

/**
 * Every `error.code` a call (and its `call.error` event) can carry. Backend
 * failures are here, not in `endReason`: such a call may still have ended normally.
 */
export const ERROR_CODES = {
  START_CALLBACK_TIMEOUT: {
    label: "Backend too slow",
    meaning: "Your onCallStartUrl did not answer within the answer timeout; the caller got the fallback.",
    action:
      "Answer faster (acknowledge first, work after), raise `answerTimeoutMs`, or set a `fallback` so callers get something useful.",
  },
  START_CALLBACK_STATUS: {
    label: "Backend answered an error",
    meaning: "Your onCallStartUrl answered with a status other than 2xx; the caller got the fallback.",
    action: "Look at the response excerpt in the call's timeline and your backend's logs.",
  },
  START_CALLBACK_INVALID: {
    label: "Backend answer not usable",
    meaning:
      "Your onCallStartUrl answered 2xx, but not with TwiML, `{ twiml }` or `{ actions }` that Routekit accepts; the caller got the fallback.",
    action: "Compare the response excerpt in the timeline with the answer forms in the API reference.",
  },
  START_CALLBACK_UNREACHABLE: {
    label: "Backend unreachable",
    meaning:
      "Your onCallStartUrl could not be reached: the connection was refused or reset, the name did not resolve, or the address is not allowed.",
    action: "Check that the URL is public and your backend is up; set a `fallback` to cover deploys.",
  },
  NUMBER_NOT_REGISTERED: {
    label: "Number not registered",
    meaning: "The call was rejected: the number called is not registered to this account.",
    action: "Register the number, or point its voice URL elsewhere at Twilio.",
  },
  PAYMENT_REQUIRED: {
    label: "Account not active",
    meaning: "The call was rejected: the account has not completed checkout.",
    action: "Complete checkout on the Billing page.",
  },
  ACCOUNT_SUSPENDED: {
    label: "Account suspended",
    meaning: "The call was rejected: payment stopped and the account is suspended.",
    action: "Update the payment method on the Billing page.",
  },
  CALL_FAILED: {
    label: "Call failed",
    meaning: "Twilio reported the call as failed (see `sipResponseCode` and `errorCode`).",
    action: "Look up `errorCode` in Twilio's error dictionary and check the number dialled.",
  },
  SPEND_LIMIT_REACHED: {
    label: "Spend limit reached",
    meaning: "The call was rejected: the month's usage cost had reached `monthlyBudget` and `hardCap` is on.",
    action: "Raise `monthlyBudget` or turn `hardCap` off in your limits.",
  },
  CONCURRENCY_LIMIT_REACHED: {
    label: "Too many calls at once",
    meaning: "The call was rejected: `maxConcurrentCalls` calls were already live.",
    action: "Raise `maxConcurrentCalls` in your limits.",
  },
  DAILY_CAP_REACHED: {
    label: "Daily minutes used up",
    meaning: "The call was rejected: the number's `dailyMinuteCap` for today (UTC) was used up.",
    action: "Raise or clear the number's `dailyMinuteCap`, or wait for 00:00 UTC.",
  },
} as const satisfies Record<string, Outcome>;
type CallErrorCode = keyof typeof ERROR_CODES;

/** How a call was decided (`answer`, docs/decisions.md §12), for a person. */
export const ANSWER_LABELS: Record<CallAnswer, string> = {
  xml: "Your backend's TwiML",
  "json-twiml": "Your backend's TwiML (in JSON)",
  "json-actions": "Your backend's actions",
  "fallback-url": "Your fallback URL",
  "fallback-actions": "Your fallback actions",
  "fallback-twiml": "Your fallback TwiML",
  fallback: "Last resort or apology",
  reject: "Rejected by Routekit",
};

/**
 * A code as a person reads it: the label of an answer form, an error code or an end reason, else null.
 * `answerUse` on a `call.started` attempt holds either an answer form or the `call.error` code.
 */
export function codeLabel(code: string): string | null {
  if (Object.hasOwn(ANSWER_LABELS, code)) return ANSWER_LABELS[code as CallAnswer];
  return errorCodeOutcome(code)?.label ?? endReasonOutcome(code)?.label ?? null;
}

export function endReasonOutcome(reason: string): (Outcome & { group: EndReasonGroup }) | null {
  return Object.hasOwn(END_REASONS, reason) ? END_REASONS[reason as CallEndReason] : null;
}

export function errorCodeOutcome(code: string): Outcome | null {
  return Object.hasOwn(ERROR_CODES, code) ? ERROR_CODES[code as CallErrorCode] : null;
}

/** One line per value for an OpenAPI description: "`value`: label. meaning" (Markdown, as the reference renders it). */
export function outcomeList(entries: [string, Outcome][]): string {
  return entries.map(([value, o]) => `- \`${value}\`: ${o.meaning} ${o.action}`).join("\n");
}

/** docs/call-outcomes.md, as this table writes it. */
export function callOutcomesMarkdown(): string {
  const row = (value: string, o: Outcome) =>
    `| \`${value}\` | ${o.label} | ${o.meaning.replaceAll("|", "\\|")} | ${o.action.replaceAll("|", "\\|")} |`;
  const head = "| Value | Label | What it means | What to do |\n|---|---|---|---|";
  const out = [
    "# Why a call ended, and what went wrong",
    "",
    "<!-- Generated from src/shared/call-outcomes.ts (npx tsx scripts/docs/write-call-outcomes.ts); tests/unit/call-outcomes.test.ts fails when they differ. -->",
    "",
    "Every call carries `endReason` (in `GET /api/calls`, `GET /api/calls/{callSid}`, the `call.ended` event, the",
    "calls CSV export and the dashboard), and `error` when something went wrong on the way. They answer two",
    "different questions: `endReason` says why the call ended; `error.code` says what failed, such as your",
    "backend's answer, while the call itself may still have completed normally. The dashboard's call panel",
    "shows the same labels and advice.",
    "",
    "A call whose Twilio status callback carried them also has `sipResponseCode` (the carrier's SIP response,",
    "e.g. 486 busy, 404 not found) and `errorCode` (Twilio's error code, see",
    "[Twilio's error dictionary](https://www.twilio.com/docs/api/errors)); both are null when Twilio sent none.",
    "",
    "Every call the engine saw reaches a final status and an `endReason`: within 5 minutes of its end for an",
    "account with a Twilio connection (read from Twilio's call record: `reconciled`), within 4 hours 10 minutes",
    "otherwise (`no-final-status`, status `unknown`, not billed).",
    "",
    "## `endReason`",
  ];
  for (const group of END_REASON_GROUPS) {
    out.push("", `### ${END_REASON_GROUP_TITLES[group]}`, "", head);
    for (const [value, o] of Object.entries(END_REASONS)) if (o.group === group) out.push(row(value, o));
  }
  out.push("", "## `error.code`", "", head);
  for (const [value, o] of Object.entries(ERROR_CODES)) out.push(row(value, o));
  out.push("");
  return out.join("\n");
}
