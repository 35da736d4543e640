import { z } from "zod";
import { ZAccountStatus, ZId, ZTimestamp } from "./common";
import {
  API_KEYS_MAX_ITEMS,
  boundedInt,
  boundedString,
  COMPANY_NAME_MAX_CHARS,
  E164_MAX_CHARS,
  EMAIL_MAX_CHARS,
  outputMessage,
  outputUrl,
  PHONE_NUMBERS_MAX_ITEMS,
  SECRET_MAX_CHARS,
} from "./bounds";

const ZAccount = z.object({
  id: ZId,
  email: boundedString(EMAIL_MAX_CHARS).describe("The account's email address, lower-cased"),
  companyName: boundedString(COMPANY_NAME_MAX_CHARS)
    .nullable()
    .describe("As given at registration; null when none was"),
  status: ZAccountStatus,
  createdAt: ZTimestamp,
  webhookSecret: boundedString(SECRET_MAX_CHARS)
    .optional()
    .describe(
      "Signs the events we send you (Standard Webhooks, `whsec_…`). Absent for a viewer, who never sees a secret",
    ),
  engineVoiceUrl: outputUrl()
    .optional()
    .describe(
      "Where Twilio sends your numbers' calls and status callbacks: set it as both the voice URL and the status callback (POST). Without a Twilio connection it is a bearer secret, so a viewer does not get it",
    ),
  _count: z
    .object({
      phoneNumbers: boundedInt(0, PHONE_NUMBERS_MAX_ITEMS).describe("Registered numbers"),
      apiKeys: boundedInt(0, API_KEYS_MAX_ITEMS).describe("Active API keys"),
    })
    .describe("How many of each the account holds"),
});
export const ZGetAccountOutput = z.object({ account: ZAccount.describe("The account the credential belongs to") });

export const ZRotateEngineUrlOutput = z.object({
  engineVoiceUrl: outputUrl().describe(
    "The new engine URL: set it as the voice URL and status callback of numbers you set up by hand",
  ),
  previousExpiresAt: ZTimestamp.describe("Until then the previous engine URL keeps working"),
  twilioNumbers: z
    .object({
      repointed: z
        .array(boundedString(E164_MAX_CHARS))
        .max(PHONE_NUMBERS_MAX_ITEMS)
        .describe("Numbers set up through the Twilio connection, now pointing at the new URL"),
      failed: z
        .array(
          z.object({
            phoneNumber: boundedString(E164_MAX_CHARS).describe("The number, US E.164"),
            message: outputMessage().describe("What Twilio answered, or why it could not be reached"),
          }),
        )
        .max(PHONE_NUMBERS_MAX_ITEMS)
        .describe("Numbers Twilio could not repoint: they stay on the old URL until it expires; set them up again"),
    })
    .describe("What happened at Twilio to numbers set up through the connection"),
});
