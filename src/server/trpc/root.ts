import { createCallerFactory, router } from "./init";
import { account } from "./routers/account";
import { alerts } from "./routers/alerts";
import { apiKeys } from "./routers/api-keys";
import { auditLog } from "./routers/audit-log";
import { auth } from "./routers/auth";
import { billing } from "./routers/billing";
import { calls } from "./routers/calls";
import { outbound } from "./routers/outbound";
import { usage } from "./routers/usage";
import { phoneNumbers } from "./routers/phone-numbers";
import { settings } from "./routers/settings";
import { system } from "./routers/system";
import { twilioConnection } from "./routers/twilio-connection";
import { twoFactor } from "./routers/two-factor";
import { webhookDeliveries } from "./routers/webhook-deliveries";
import { eventTypes, webhookEndpoints } from "./routers/webhook-endpoints";
import { lookup } from "./routers/lookup";
import { members } from "./routers/members";

/**
 * Every procedure, as plain records: the REST table walks this (in this order,
 * which is the reference's order) and tRPC builds the router from it.
 */
export const procedures = {
  system,
  auth,
  twoFactor,
  account,
  twilioConnection,
  apiKeys,
  members,
  phoneNumbers,
  outbound,
  calls,
  usage,
  billing,
  webhookDeliveries,
  webhookEndpoints,
  eventTypes,
  alerts,
  auditLog,
  settings,
  lookup,
};

export const appRouter = router(procedures);

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
