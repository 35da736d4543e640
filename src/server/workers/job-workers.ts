import type { JobWorker } from "../jobs/job-definition";
import type { JOB_DEFINITIONS } from "../jobs/definitions";
import { alertScanWorker } from "./alert-scan.handler";
import { auditLogPruneWorker } from "./audit-log-prune.handler";
import { closeUnfinishedCallsWorker } from "./close-unfinished-calls.handler";
import { mailWorker } from "./mail.handler";
import { numberConfigCheckWorker } from "./number-config-check.handler";
import { stripeMeterEventWorker } from "./stripe-meter-event.handler";
import { twilioReconcileWorker } from "./twilio-reconcile.handler";
import { usageThresholdMailWorker } from "./usage-threshold-mail.handler";
import { webhookAttemptPruneWorker } from "./webhook-attempt-prune.handler";

type JobName = (typeof JOB_DEFINITIONS)[number]["name"];

/**
 * What runs each job, by queue name. Only start-job-workers.ts imports this:
 * the handlers reach into services that themselves send jobs, so the
 * definitions stay leaves and this table is the one place that closes the loop.
 */
export const JOB_WORKERS: Record<JobName, JobWorker<never>> = {
  "webhook-attempt-prune": webhookAttemptPruneWorker,
  "stripe-meter-event": stripeMeterEventWorker,
  "twilio-reconcile": twilioReconcileWorker,
  "close-unfinished-calls": closeUnfinishedCallsWorker,
  "usage-threshold-mail": usageThresholdMailWorker,
  mail: mailWorker,
  "alert-scan": alertScanWorker,
  "number-config-check": numberConfigCheckWorker,
  "audit-log-prune": auditLogPruneWorker,
} as Record<JobName, JobWorker<never>>;
