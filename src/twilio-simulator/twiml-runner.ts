/**
 * TwiML a live call is given (a call update's `Twiml` or `Url`) runs here as Twilio runs it, for what
 * Routekit's commands send (docs/decisions.md §13): `<Dial action>` with `<Number url>` / `<Sip url>`
 * dials with the result planned by `planNextDial`; the callee's `url` (the whisper) is fetched on the
 * dialled leg once it answers; the `action` gets `DialCallStatus`, `DialCallSid`, `DialCallDuration`,
 * `DialBridged`, and its answer runs in turn. A document ends the call when it hangs up, rejects, or has
 * no verb that waits (Twilio hangs up when the verbs run out); `<Pause>`, `<Gather>`, `<Dial>`… keep it up.
 */
import { randomBytes } from "node:crypto";
import { SaxesParser } from "saxes";
import { DIAL_CALL_STATUSES } from "../shared/schemas/events";
import { API_VERSION, type DialLog, type DialStatus, type SimCall } from "./call-lifecycle";
import { postLogged } from "./post-signed";

/** Verbs that keep a call up while they run; a document without one ends the call when it is done. */
const WAITING_VERBS = new Set(["Pause", "Gather", "Dial", "Enqueue", "Conference", "Record", "Connect"]);

export type DialPlan = { status?: DialStatus; durationSeconds?: number; delayMs?: number };

type Element = { name: string; attributes: Record<string, string>; text: string; children: Element[] };

/** The document's verbs (children of `<Response>`), or null when it is not a TwiML document. */
export function parseTwiml(xml: string): Element[] | null {
  const parser = new SaxesParser();
  const root: Element = { name: "#root", attributes: {}, text: "", children: [] };
  const stack: Element[] = [root];
  let failed = false;
  parser.on("error", () => {
    failed = true;
  });
  parser.on("opentag", (tag) => {
    const el: Element = {
      name: tag.name,
      attributes: tag.attributes as Record<string, string>,
      text: "",
      children: [],
    };
    stack[stack.length - 1]!.children.push(el);
    stack.push(el);
  });
  parser.on("closetag", () => {
    stack.pop();
  });
  parser.on("text", (t) => {
    stack[stack.length - 1]!.text += t;
  });
  try {
    parser.write(xml).close();
  } catch {
    return null;
  }
  const response = root.children[0];
  if (failed || root.children.length !== 1 || response?.name !== "Response") return null;
  return response.children;
}

export class TwimlRunner {
  private readonly dialPlans: DialPlan[] = [];

  /** `stepDelayMs`: how long Twilio takes to act on a document. */
  constructor(private readonly stepDelayMs: () => number) {}

  /** How the next `<Dial>` ends (FIFO; default: answered, then completed after 3 s of talk). */
  planNextDial(plan: DialPlan): void {
    if (plan.status !== undefined && !DIAL_CALL_STATUSES.includes(plan.status))
      throw new Error(`unknown dial status ${plan.status}`);
    this.dialPlans.push(plan);
  }

  /** Runs the document `document()` yields once Twilio gets to it. */
  runLater(call: SimCall, document: () => Promise<string>): void {
    setTimeout(() => {
      void document().then((twiml) => this.run(call, twiml));
    }, this.stepDelayMs()).unref?.();
  }

  /** Runs a document the call was given: its `<Dial>`s, then ends the call unless a verb keeps it up. */
  private async run(call: SimCall, twiml: string): Promise<void> {
    if (call.isOver) return;
    call.documents.push(twiml);
    const verbs = parseTwiml(twiml);
    // Twilio: "an application error has occurred", and the call ends.
    if (!verbs) return void call.hangUp("twiml");
    for (const verb of verbs) {
      if (call.isOver) return;
      if (verb.name === "Hangup" || verb.name === "Reject") return void call.hangUp("twiml");
      if (verb.name === "Dial") return this.dial(call, verb);
    }
    if (!verbs.some((v) => WAITING_VERBS.has(v.name))) call.hangUp("twiml");
  }

  private async dial(call: SimCall, verb: Element): Promise<void> {
    const plan = this.dialPlans.shift() ?? {};
    const status: DialStatus = plan.status ?? "completed";
    const noun = verb.children.find((c) => c.name === "Number" || c.name === "Sip" || c.name === "Client");
    const to = (noun?.text ?? verb.text).trim();
    const dialCallSid = `CA${randomBytes(16).toString("hex")}`;
    const log: DialLog = {
      to,
      callerId: verb.attributes.callerId ?? null,
      status,
      dialCallSid,
      whisper: null,
      action: null,
    };
    call.dials.push(log);
    await new Promise((r) => setTimeout(r, plan.delayMs ?? this.stepDelayMs()));
    const connected = status === "completed" || status === "answered";
    if (connected && noun?.attributes.url) {
      log.whisper = await postLogged(
        noun.attributes.url,
        {
          AccountSid: call.accountSid,
          CallSid: dialCallSid,
          ParentCallSid: call.callSid,
          From: verb.attributes.callerId ?? call.base.From ?? "",
          To: to,
          CallStatus: "in-progress",
          Direction: "outbound-dial",
          ApiVersion: API_VERSION,
        },
        call.authToken,
      );
    }
    const action = verb.attributes.action;
    // No action: Twilio goes on with the verbs after <Dial>; with none, the call ends.
    if (!action) return void call.hangUp("twiml");
    const params: Record<string, string> = {
      ...call.base,
      CallStatus: "in-progress",
      DialCallStatus: status,
      DialBridged: String(connected),
    };
    if (status !== "no-answer" && status !== "busy") params.DialCallSid = dialCallSid;
    if (connected) params.DialCallDuration = String(plan.durationSeconds ?? 3);
    log.action = await postLogged(action, params, call.authToken);
    await this.run(call, log.action.status >= 200 && log.action.status < 300 ? log.action.body : "");
  }
}
