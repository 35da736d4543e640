import type { JobWorker } from "../jobs/job-definition";
import { startDeliveryWorker } from "./delivery-worker";
import type { DeliveryJob } from "../jobs/definitions/webhook-delivery";

/** The delivery loop fetches its own jobs (fairly, per account), so it is started rather than handed batches. */
export const webhookDeliveryWorker: JobWorker<DeliveryJob> = { run: () => startDeliveryWorker() };
