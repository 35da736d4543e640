import { type Command, UsageError } from "./command.js";
import { findNumber } from "./find-number.js";

/**
 * `routekit call`: a simulated inbound call (POST /api/phone-numbers/{id}/simulate-call, docs/decisions.md §21).
 * The service plays Twilio's side: it sends call.started to the number's URL, checks and uses the answer as a
 * real call would, and ends the call with call.ended; nothing is billed and Twilio is never called.
 */
export const call: Command = {
  summary: "Place a simulated call to one of your numbers (no phone, no Twilio, nothing billed)",
  usage: `routekit call --to <your number: E.164 or id> [--from <caller E.164>]

  Runs the whole inbound flow against your backend: call.started to the number's
  onCallStartUrl, your answer checked and turned into TwiML, then call.ended.
  Prints the TwiML Twilio would have received and the call's outcome.`,
  options: { to: { type: "string" }, from: { type: "string" } },
  async run({ values, client, out }) {
    const to = values.to as string | undefined;
    if (!to) throw new UsageError("give --to, the number to call (E.164 or its id)");
    const from = values.from as string | undefined;
    const routekit = client();
    const number = await findNumber(routekit, to);
    const { call: simulated, twiml } = await routekit.phoneNumbers.simulateCall(number.id, {
      ...(from ? { from } : {}),
    });
    if (values.json) {
      out(JSON.stringify({ call: simulated, twiml }, null, 2));
      return 0;
    }
    out(
      `call ${simulated.callSid} from ${simulated.from} to ${simulated.to}: ${simulated.status}, answered by ${simulated.answeredBy ?? "nobody"}`,
    );
    out(twiml);
    return 0;
  },
};
