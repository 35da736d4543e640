import type { JobDefinition } from "../job-definition";
import { stripeMeterEventJob } from "./stripe-meter-event";
import { twilioReconcileJob } from "./twilio-reconcile";
import { webhookAttemptPruneJob } from "./webhook-attempt-prune";
import { webhookDeliveryJob } from "./webhook-delivery";

/** Every job of the service: its queue is created before any is sent, its worker started in this order. */
export const JOB_DEFINITIONS: readonly JobDefinition<object>[] = [
  webhookDeliveryJob,
  webhookAttemptPruneJob,
  stripeMeterEventJob,
  twilioReconcileJob,
] as JobDefinition<object>[];
