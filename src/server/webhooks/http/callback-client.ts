import { createCallbackClient, type CallbackClient } from "./callback-http-client";
import { serverCallbackPolicy } from "./server-callback-policy";
import { rememberPerGraph } from "../../runtime/remember";

/**
 * The one client for every request to a customer URL, with this server's policy.
 * Per module graph: it is stateless, and its errors must be instances of the
 * CallbackRequestError class of the graph whose code checks them.
 */
export function callbackClient(): CallbackClient {
  return rememberPerGraph("callbackClient", () => createCallbackClient(serverCallbackPolicy()));
}
