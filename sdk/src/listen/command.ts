import { type Command, UsageError } from "../commands/command.js";
import { listen } from "./listen-client.js";

/** `routekit listen --forward-to <url>`: the account's listen numbers' events on localhost, no tunnel. */
export const listenCommand: Command = {
  summary: "Receive your listen numbers' events (call.started included) on a local URL, without a tunnel",
  usage: `routekit listen --forward-to http://localhost:PORT/path

  Opens a WebSocket to Routekit. While it is connected, numbers with "listen": true send
  their events here instead of to their URLs: each is POSTed to --forward-to with the body
  and webhook-id / webhook-timestamp / webhook-signature headers their URL would have
  received, and your answer to call.started decides the call. Prints a line with "Ready"
  once connected; reconnects by itself; Ctrl-C stops it.`,
  options: { "forward-to": { type: "string" } },
  async run({ values, apiKey, baseUrl, out, err }) {
    const forwardTo = values["forward-to"] as string | undefined;
    if (!forwardTo) throw new UsageError("give --forward-to, the local URL to POST events to");
    try {
      new URL(forwardTo);
    } catch {
      throw new UsageError(`--forward-to is not a URL: ${forwardTo}`);
    }
    if (!apiKey) throw new UsageError("an API key is needed: set ROUTEKIT_API_KEY or pass --api-key");
    const stop = new AbortController();
    const onSignal = () => stop.abort();
    process.once("SIGINT", onSignal);
    process.once("SIGTERM", onSignal);
    try {
      return await listen({ baseUrl, apiKey, forwardTo, out, err, signal: stop.signal });
    } finally {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    }
  },
};
