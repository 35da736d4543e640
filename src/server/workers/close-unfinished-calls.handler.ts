import type { JobWorker } from "../jobs/job-definition";
import { logger } from "../logger";
import { closeUnfinishedCalls } from "../services/reconciliation/close-unfinished-calls";

export const closeUnfinishedCallsWorker: JobWorker<object> = {
  handler: async () => {
    const result = await closeUnfinishedCalls();
    if (result.closed) logger().info(result, "closed calls whose final status never came");
  },
};
