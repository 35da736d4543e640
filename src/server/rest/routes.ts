/**
 * The REST API as a table: each route is a tRPC procedure behind a method and
 * a path. Path parameters (`:id`), query parameters (GET) and the JSON body
 * merge into the procedure's input; the procedure's zod schema validates it.
 */
export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export type RestRoute = {
  method: HttpMethod;
  path: string;
  /** Dotted path of the procedure in appRouter. */
  procedure: string;
  status: 200 | 201;
  /** Whether the route takes an API key or login JWT. */
  auth: boolean;
  summary: string;
  /** Error statuses particular to this route (the generic ones are derived: 400, 401, 404, 413, 429, 500). */
  errors?: number[];
};

export const restRoutes: readonly RestRoute[] = [
  { method: "GET", path: "/api/health", procedure: "system.health", status: 200, auth: false, summary: "Liveness" },
  { method: "GET", path: "/api/ready", procedure: "system.ready", status: 200, auth: false, summary: "Readiness (database reachable)", errors: [503] },
  { method: "POST", path: "/api/auth/register", procedure: "auth.register", status: 201, auth: false, summary: "Create an account", errors: [409] },
  { method: "POST", path: "/api/auth/login", procedure: "auth.login", status: 200, auth: false, summary: "Exchange email and password for a JWT", errors: [401] },
  { method: "POST", path: "/api/auth/logout", procedure: "auth.logout", status: 200, auth: true, summary: "Sign out everywhere: every dashboard session and login token of the account ends (API keys keep working)" },
  { method: "GET", path: "/api/account", procedure: "account.get", status: 200, auth: true, summary: "The calling account" },
  { method: "POST", path: "/api/account/webhook-secret", procedure: "account.rotateWebhookSecret", status: 200, auth: true, summary: "Rotate the webhook signing secret (the old one keeps signing for 24 hours)" },
  { method: "POST", path: "/api/account/engine-url", procedure: "account.rotateEngineUrl", status: 200, auth: true, summary: "Issue a new engine URL (the old one keeps working for 24 hours); numbers set up through the Twilio connection are repointed" },
  { method: "PUT", path: "/api/twilio-connection", procedure: "twilioConnection.connect", status: 200, auth: true, summary: "Connect your Twilio account (credentials checked at Twilio; the auth token is stored encrypted)", errors: [502] },
  { method: "GET", path: "/api/twilio-connection", procedure: "twilioConnection.get", status: 200, auth: true, summary: "The connected Twilio account", errors: [404] },
  { method: "DELETE", path: "/api/twilio-connection", procedure: "twilioConnection.disconnect", status: 200, auth: true, summary: "Disconnect Twilio (numbers stay registered, no longer verified)" },
  { method: "GET", path: "/api/twilio-connection/numbers", procedure: "twilioConnection.numbers", status: 200, auth: true, summary: "Every incoming number of the connected Twilio account, registered and configured or not", errors: [404, 502] },
  { method: "POST", path: "/api/api-keys", procedure: "apiKeys.create", status: 201, auth: true, summary: "Create an API key" },
  { method: "GET", path: "/api/api-keys", procedure: "apiKeys.list", status: 200, auth: true, summary: "List active API keys" },
  { method: "DELETE", path: "/api/api-keys/:id", procedure: "apiKeys.revoke", status: 200, auth: true, summary: "Revoke an API key" },
  { method: "POST", path: "/api/phone-numbers", procedure: "phoneNumbers.create", status: 201, auth: true, summary: "Register a phone number (with a Twilio connection: one you own there, set up at Twilio)", errors: [402, 403, 409, 502] },
  { method: "GET", path: "/api/phone-numbers", procedure: "phoneNumbers.list", status: 200, auth: true, summary: "List phone numbers, oldest first" },
  { method: "GET", path: "/api/phone-numbers/:id", procedure: "phoneNumbers.get", status: 200, auth: true, summary: "One phone number", errors: [403] },
  { method: "PATCH", path: "/api/phone-numbers/:id", procedure: "phoneNumbers.update", status: 200, auth: true, summary: "Change a number's callback URLs, or set it up at Twilio (`configureTwilio: true`)", errors: [403, 502] },
  { method: "DELETE", path: "/api/phone-numbers/:id", procedure: "phoneNumbers.delete", status: 200, auth: true, summary: "Release a phone number", errors: [403] },
  { method: "POST", path: "/api/outbound", procedure: "outbound.create", status: 201, auth: true, summary: "Start an outbound call from a registered number", errors: [402, 403, 502] },
  { method: "GET", path: "/api/calls", procedure: "calls.list", status: 200, auth: true, summary: "Every call the engine saw, whatever its end, newest first; filters and an opaque keyset cursor" },
  { method: "GET", path: "/api/calls/:callSid", procedure: "calls.get", status: 200, auth: true, summary: "One call with its timeline: Twilio's requests, the call.started attempt, the TwiML returned, events sent, usage" },
  { method: "GET", path: "/api/usage", procedure: "usage.list", status: 200, auth: true, summary: "Usage records with cost breakdowns, newest first" },
  { method: "GET", path: "/api/usage/current", procedure: "usage.current", status: 200, auth: true, summary: "This month's and all-time totals" },
  { method: "GET", path: "/api/usage/daily", procedure: "usage.daily", status: 200, auth: true, summary: "Calls, billed minutes and cost per UTC day (`days`, default 30, at most 90), oldest first" },
  { method: "GET", path: "/api/billing/subscription", procedure: "billing.subscription", status: 200, auth: true, summary: "Plan, prices and the current period's totals" },
  { method: "POST", path: "/api/billing/checkout", procedure: "billing.checkout", status: 200, auth: true, summary: "A fresh checkout link", errors: [502] },
  { method: "POST", path: "/api/billing/portal", procedure: "billing.portal", status: 200, auth: true, summary: "A billing portal link: plan, payment method, invoices", errors: [502] },
  { method: "GET", path: "/api/webhook-deliveries", procedure: "webhookDeliveries.list", status: 200, auth: true, summary: "Event deliveries, newest first, filterable by status and callSid" },
  { method: "POST", path: "/api/webhook-deliveries/test", procedure: "webhookDeliveries.sendTest", status: 200, auth: true, summary: "Send a signed sample event (`data.test = true`, callSid `CA` + 32 zeros) to a number's URL for that type now; answers the delivery with its attempt", errors: [403, 404] },
  { method: "POST", path: "/api/webhook-deliveries/replay", procedure: "webhookDeliveries.replay", status: 200, auth: true, summary: "Queue again every delivery (default: FAILED) created since a time at most 14 days ago" },
  { method: "GET", path: "/api/webhook-deliveries/:id", procedure: "webhookDeliveries.get", status: 200, auth: true, summary: "One delivery with its payload and every attempt" },
  { method: "POST", path: "/api/webhook-deliveries/:id/retry", procedure: "webhookDeliveries.retry", status: 200, auth: true, summary: "Redeliver now (idempotent: while a redelivery waits to be sent, another schedules nothing)" },
];
