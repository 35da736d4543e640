import { createCallbackClient, type CallbackClient } from "./callback-http-client";
import { serverCallbackPolicy } from "./server-callback-policy";

const KEY = Symbol.for("routekit.callbackClient");
type Holder = { [KEY]?: CallbackClient };

/** The one client for every request to a customer URL, with this server's policy. */
export function callbackClient(): CallbackClient {
  const g = globalThis as Holder;
  return (g[KEY] ??= createCallbackClient(serverCallbackPolicy()));
}
