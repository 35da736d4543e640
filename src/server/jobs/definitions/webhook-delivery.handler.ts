import type { JobWorker } from "../job-definition";
import { startDeliveryWorker } from "../../webhooks/delivery/delivery-worker";
import type { DeliveryJob } from "./webhook-delivery";

/** The delivery loop fetches its own jobs (fairly, per account), so it is started rather than handed batches. */
export const webhookDeliveryWorker: JobWorker<DeliveryJob> = { run: () => startDeliveryWorker() };
