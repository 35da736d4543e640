import { createCallbackClient, type CallbackClient } from "./callback-http-client";
import { serverCallbackPolicy } from "./server-callback-policy";

// Deliberately per module graph, not on globalThis: the client is stateless,
// and its errors must be instances of the CallbackRequestError class that the
// calling code checks against (the custom server and the Next.js bundles each
// load their own copy of that class).
let client: CallbackClient | undefined;

/** The one client for every request to a customer URL, with this server's policy. */
export function callbackClient(): CallbackClient {
  return (client ??= createCallbackClient(serverCallbackPolicy()));
}
