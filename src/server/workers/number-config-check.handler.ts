import type { JobWorker } from "../jobs/job-definition";
import { logger } from "../logger";
import { checkNumberConfiguration } from "../services/alerts/twilio-alerts";

export const numberConfigCheckWorker: JobWorker<object> = {
  handler: async () => {
    const { raised } = await checkNumberConfiguration();
    if (raised) logger().info({ raised }, "number configuration check");
  },
};
