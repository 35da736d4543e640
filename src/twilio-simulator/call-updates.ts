/**
 * `POST /2010-04-01/Accounts/{AccountSid}/Calls/{Sid}.json`, Twilio's call update, as strict as Twilio
 * wherever Routekit's live-call commands depend on it (hang-up, redirect, transfer: docs/decisions.md
 * §13). Each rule reads the call's one state (call-lifecycle.ts). Sources:
 *
 * - twilio-oai, spec/json/twilio_api_v2010.json, `UpdateCallRequest`: `Status` (`call_enum_update_status`:
 *   `canceled` | `completed`), `Url` + `Method` (`GET` | `POST`), `Twiml` ("Twiml and url parameters are
 *   mutually exclusive"); the answer is 200 with the Call resource.
 * - Twilio's Call resource, "Update a Call resource": "Specifying `canceled` will attempt to hang up calls
 *   that are queued or ringing; however, it will not affect calls already in progress. Specifying
 *   `completed` will attempt to hang up a call even if it's already in progress."
 * - Twilio's call status values: `canceled` is a call hung up while queued or ringing.
 * - Twilio error 21220: "Call is not in-progress. Cannot redirect."
 */
import type { RestTools } from "./accounts";
import type { SimCall } from "./call-lifecycle";
import { type Form, oneOf } from "./call-recordings";
import { parseTwiml } from "./twiml-runner";

/** What an update asks Twilio to run next, once the rules let it through. */
export type Redirect = { twiml: string } | { url: string };

/** Twilio's 400 for a call that cannot take the update (the same code whatever the update was). */
export function notInProgress(tools: RestTools): Error {
  return tools.fail({ status: 400, code: 21220, message: "Call is not in-progress. Cannot redirect." });
}

/**
 * Applies a call update to the call and returns the redirect to run, if any; throws Twilio's refusal.
 * The caller answers 200 with the call's record, which then shows what the update did.
 */
export function applyCallUpdate(call: SimCall, form: Form, tools: RestTools): Redirect | null {
  const status = oneOf(tools, form, "Status", ["canceled", "completed"]);
  const twiml = form.single.Twiml;
  const url = form.single.Url;
  oneOf(tools, form, "Method", ["GET", "POST"]);
  if (status === undefined && twiml === undefined && url === undefined)
    throw tools.fail({ status: 400, code: 20001, message: "Status, Twiml or Url is required" });
  // twilio-oai, UpdateCallRequest.Twiml: "Twiml and url parameters are mutually exclusive".
  if (twiml !== undefined && url !== undefined)
    throw tools.fail({ status: 400, code: 20001, message: "Twiml and Url are mutually exclusive" });

  // An ended call takes no update at all, a status no more than a redirect: there is nothing left to end
  // or to run (Twilio's 21220). Answering 200 here would let a hang-up of a call Twilio already ended look
  // like it had worked.
  if (call.isOver) throw notInProgress(tools);

  if (status === "canceled") {
    // "Specifying `canceled` will attempt to hang up calls that are queued or ringing; however, it will
    // not affect calls already in progress": an answered call stays up, and the answer (200) says
    // `in-progress`. This is what hid Routekit's hang-up bug (#40) while the simulator ended it anyway.
    if (call.status !== "in-progress") call.end("canceled", "api");
    return null;
  }
  if (status === "completed") {
    // "Specifying `completed` will attempt to hang up a call even if it's already in progress": answered,
    // it ends `completed` with its duration; still queued or ringing, it never connected, and Twilio's
    // record of a call hung up then is `canceled` with no duration (call status values).
    call.hangUp("api");
    return null;
  }

  // 21220 "Call is not in-progress. Cannot redirect.": new TwiML only reaches a call that is up.
  if (call.status !== "in-progress") throw notInProgress(tools);
  if (twiml !== undefined) {
    if (parseTwiml(twiml) === null) throw tools.fail({ status: 400, code: 12100, message: "Document parse failure" });
    return { twiml };
  }
  if (!/^https?:\/\/[^/]/i.test(url ?? ""))
    throw tools.fail({ status: 400, code: 21205, message: `Url is not a valid URL: ${url ?? ""}` });
  // Fetched with POST whatever `Method` says: Routekit redirects with Twiml only (docs/twilio.md).
  return { url: url! };
}
