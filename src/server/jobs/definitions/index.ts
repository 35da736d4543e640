import type { JobDefinition } from "../job-definition";
import { alertScanJob } from "./alert-scan";
import { auditLogPruneJob } from "./audit-log-prune";
import { closeUnfinishedCallsJob } from "./close-unfinished-calls";
import { mailJob } from "./mail";
import { numberConfigCheckJob } from "./number-config-check";
import { stripeMeterEventJob } from "./stripe-meter-event";
import { twilioReconcileJob } from "./twilio-reconcile";
import { usageThresholdMailJob } from "./usage-threshold-mail";
import { webhookAttemptPruneJob } from "./webhook-attempt-prune";

/** Every job of the service: its queue is created before any is sent, its worker started in this order. */
export const JOB_DEFINITIONS: readonly JobDefinition<object>[] = [
  webhookAttemptPruneJob,
  stripeMeterEventJob,
  twilioReconcileJob,
  closeUnfinishedCallsJob,
  usageThresholdMailJob,
  mailJob,
  alertScanJob,
  numberConfigCheckJob,
  auditLogPruneJob,
] as JobDefinition<object>[];
