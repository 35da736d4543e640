import type { JobWorker } from "../jobs/job-definition";
import { logger } from "../logger";
import { metrics } from "../metrics/metrics";
import { reconcileTwilioCalls } from "../services/reconciliation/reconcile-twilio-calls";

export const twilioReconcileWorker: JobWorker<object> = {
  handler: async () => {
    const { reconciliationRuns, reconciliationCorrections } = metrics();
    const result = await reconcileTwilioCalls().catch((err: unknown) => {
      reconciliationRuns.inc({ outcome: "failed" });
      throw err;
    });
    reconciliationRuns.inc({ outcome: result.errors ? "failed" : "ok" });
    reconciliationCorrections.inc(result.closed + result.recorded);
    if (result.closed || result.recorded || result.errors) logger().info(result, "reconciled calls with Twilio");
  },
};
