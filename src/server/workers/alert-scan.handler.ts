import type { JobWorker } from "../jobs/job-definition";
import { registerFetchLoop } from "../jobs/job-queue";
import { logger } from "../logger";
import { ALERT_SCAN_INTERVAL_MS, scanAlerts } from "../services/alerts/scan-alerts";
import { alertScanJob } from "../jobs/definitions/alert-scan";

export const alertScanWorker: JobWorker<object> = {
  run: async () => {
    let running: Promise<unknown> = Promise.resolve();
    let stopped = false;
    const tick = () => {
      if (stopped) return;
      running = scanAlerts()
        .then((r) => {
          if (r.raised || r.recovered) logger().info(r, "alert scan");
        })
        .catch((err: unknown) =>
          logger().warn({ err: err instanceof Error ? err.message : String(err) }, "alert scan failed"),
        );
    };
    // A little jitter, so instances started together do not scan in step.
    const timer = setInterval(tick, ALERT_SCAN_INTERVAL_MS + Math.floor(Math.random() * 2_000));
    timer.unref();
    registerFetchLoop(alertScanJob.name, {
      wake: tick,
      async stop() {
        stopped = true;
        clearInterval(timer);
        await running;
      },
    });
  },
};
