import { z } from "zod";
import { ZAccountStatus, ZId, ZTimestamp } from "./common";

const ZAccount = z.object({
  id: ZId,
  email: z.string().describe("The account's email address, lower-cased"),
  companyName: z.string().nullable().describe("As given at registration; null when none was"),
  status: ZAccountStatus,
  createdAt: ZTimestamp,
  webhookSecret: z
    .string()
    .optional()
    .describe(
      "Signs the events we send you (Standard Webhooks, `whsec_…`). Absent for a viewer, who never sees a secret",
    ),
  engineVoiceUrl: z
    .string()
    .optional()
    .describe(
      "Where Twilio sends your numbers' calls and status callbacks: set it as both the voice URL and the status callback (POST). Without a Twilio connection it is a bearer secret, so a viewer does not get it",
    ),
  _count: z
    .object({
      phoneNumbers: z.number().int().describe("Registered numbers"),
      apiKeys: z.number().int().describe("Active API keys"),
    })
    .describe("How many of each the account holds"),
});
export const ZGetAccountOutput = z.object({ account: ZAccount.describe("The account the credential belongs to") });

export const ZRotateEngineUrlOutput = z.object({
  engineVoiceUrl: z
    .string()
    .describe("The new engine URL: set it as the voice URL and status callback of numbers you set up by hand"),
  previousExpiresAt: ZTimestamp.describe("Until then the previous engine URL keeps working"),
  twilioNumbers: z
    .object({
      repointed: z
        .array(z.string())
        .describe("Numbers set up through the Twilio connection, now pointing at the new URL"),
      failed: z
        .array(
          z.object({
            phoneNumber: z.string().describe("The number, US E.164"),
            message: z.string().describe("What Twilio answered, or why it could not be reached"),
          }),
        )
        .describe("Numbers Twilio could not repoint: they stay on the old URL until it expires; set them up again"),
    })
    .describe("What happened at Twilio to numbers set up through the connection"),
});
