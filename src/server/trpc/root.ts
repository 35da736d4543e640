import { createCallerFactory, router } from "./init";
import { accountRouter } from "./routers/account";
import { apiKeysRouter } from "./routers/api-keys";
import { authRouter } from "./routers/auth";
import { billingRouter } from "./routers/billing";
import { callsRouter } from "./routers/calls";
import { outboundRouter } from "./routers/outbound";
import { usageRouter } from "./routers/usage";
import { phoneNumbersRouter } from "./routers/phone-numbers";
import { settingsRouter } from "./routers/settings";
import { systemRouter } from "./routers/system";
import { twilioConnectionRouter } from "./routers/twilio-connection";
import { webhookDeliveriesRouter } from "./routers/webhook-deliveries";

export const appRouter = router({
  system: systemRouter,
  auth: authRouter,
  account: accountRouter,
  apiKeys: apiKeysRouter,
  phoneNumbers: phoneNumbersRouter,
  webhookDeliveries: webhookDeliveriesRouter,
  outbound: outboundRouter,
  usage: usageRouter,
  calls: callsRouter,
  billing: billingRouter,
  twilioConnection: twilioConnectionRouter,
  settings: settingsRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
