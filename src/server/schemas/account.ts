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

export const ZRotateEngineUrlOutput = z.object({
  engineVoiceUrl: z.string().describe("The new engine URL: set it as the voice URL and status callback of numbers you set up by hand"),
  previousExpiresAt: ZTimestamp.describe("Until then the previous engine URL keeps working"),
  twilioNumbers: z
    .object({
      repointed: z.array(z.string()).describe("Numbers set up through the Twilio connection, now pointing at the new URL"),
      failed: z.array(z.object({ phoneNumber: z.string(), message: z.string() })).describe("Numbers Twilio could not repoint: they stay on the old URL until it expires; set them up again"),
    })
    .describe("What happened at Twilio to numbers set up through the connection"),
});
