import type { JobWorker } from "../job-definition";
import { logger } from "../../logger";
import { reconcileTwilioCalls } from "../../services/reconciliation/reconcile-twilio-calls";

export const twilioReconcileWorker: JobWorker<object> = {
  handler: async () => {
    const result = await reconcileTwilioCalls();
    if (result.closed || result.recorded || result.errors) logger().info(result, "reconciled calls with Twilio");
  },
};
