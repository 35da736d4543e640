import { z } from "zod";

export const ZTimestamp = z.iso.datetime({ offset: true }).describe("ISO 8601 timestamp");
export const ZId = z.string().min(1).max(64).describe("Opaque identifier");
export { ZAccountStatus } from "./enums";
