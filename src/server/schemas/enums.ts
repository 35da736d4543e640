import { z } from "zod";
import { AccountStatus, DeliveryStatus } from "../../generated/prisma/enums";

/**
 * The one spelling of each enum the API shows. Database enums come from the
 * Prisma schema (its generated client), the rest are listed once here; zod
 * schemas and TypeScript types derive from these, and a test compares them
 * with the migrations and the served OpenAPI document.
 */
export { AccountStatus, DeliveryStatus };

export const ZAccountStatus = z.enum(AccountStatus).describe("INACTIVE until checkout is completed, ACTIVE while paid, SUSPENDED when payment stopped");
export const ZDeliveryStatus = z.enum(DeliveryStatus).describe("PENDING while attempts remain, DELIVERED after a 2xx, FAILED once retries are exhausted");

/** Stored as text: who placed the call. */
export const CALL_DIRECTIONS = ["inbound", "outbound"] as const;
export type CallDirection = (typeof CALL_DIRECTIONS)[number];
export const ZCallDirection = z.enum(CALL_DIRECTIONS).describe("inbound: a call to your number; outbound: a call you started with POST /api/outbound");
