import { EVENT_TYPES } from "../generated/events.js";
import { type Command, UsageError } from "./command.js";
import { findNumber } from "./find-number.js";

type EventType = (typeof EVENT_TYPES)[number];
const isEventType = (t: string): t is EventType => (EVENT_TYPES as readonly string[]).includes(t);

/** `routekit trigger`: a signed sample event (`data.test = true`) sent now, through POST /api/webhook-deliveries/test. */
export const trigger: Command = {
  summary: "Send a signed sample event to a number's URL or a webhook endpoint",
  usage: `routekit trigger <event-type> (--number <E.164 or id> | --endpoint <id>)

  To a number: call.started, call.ended or call.error, sent to its onCallStartUrl,
  onCallEndUrl or onErrorUrl. To an endpoint: any type it may receive but call.started.
  Prints the delivery's attempt: your URL's status and latency.

  Event types: ${EVENT_TYPES.join(", ")}`,
  options: { number: { type: "string" }, endpoint: { type: "string" } },
  async run({ positionals, values, client, out }) {
    const [type] = positionals;
    if (!type) throw new UsageError("name the event type, e.g. routekit trigger call.started --number +14155550123");
    if (!isEventType(type)) throw new UsageError(`unknown event type ${type}`);
    const number = values.number as string | undefined;
    const endpointId = values.endpoint as string | undefined;
    if ((number === undefined) === (endpointId === undefined)) throw new UsageError("give --number or --endpoint");
    const routekit = client();
    const target = number === undefined ? { endpointId } : { phoneNumberId: (await findNumber(routekit, number)).id };
    const { delivery } = await routekit.webhookDeliveries.sendTest({ type, ...target });
    if (values.json) {
      out(JSON.stringify(delivery, null, 2));
    } else {
      const attempt = delivery.attempts.at(-1);
      const result = attempt
        ? `${attempt.statusCode ?? "no answer"}${attempt.error ? ` (${attempt.error})` : ""} in ${attempt.latencyMs} ms`
        : "not attempted yet";
      out(`${delivery.eventType} ${delivery.eventId} → ${delivery.url}: ${result}`);
      out(`delivery ${delivery.id}: ${delivery.status}`);
    }
    return delivery.status === "DELIVERED" ? 0 : 1;
  },
};
