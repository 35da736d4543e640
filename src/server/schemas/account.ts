import { z } from "zod";
import { ZAccountStatus, ZId, ZTimestamp } from "./common";

export const ZAccount = z.object({
  id: ZId,
  email: z.string(),
  companyName: z.string().nullable(),
  status: ZAccountStatus,
  createdAt: ZTimestamp,
  webhookSecret: z.string().describe("Signs the events we send you (Standard Webhooks, `whsec_…`)"),
  engineVoiceUrl: z.string(),
  _count: z.object({ phoneNumbers: z.number().int(), apiKeys: z.number().int() }),
});
export const ZGetAccountOutput = z.object({ account: ZAccount });
