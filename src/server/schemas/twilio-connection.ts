import { z } from "zod";
import { ZTimestamp } from "./common";

export const ZTwilioAccountSid = z
  .string()
  .trim()
  .regex(/^AC[0-9a-fA-F]{32}$/, { message: "must be a Twilio Account SID: AC followed by 32 hex characters" });

export const ZConnectTwilioInput = z.object({
  accountSid: ZTwilioAccountSid,
  // Printable ASCII only: it travels in a Basic auth header, where anything else could not be sent.
  authToken: z
    .string()
    .min(1, { message: "is required" })
    .max(128)
    .regex(/^[\x21-\x7e]+$/, { message: "must be the account's auth token (printable characters, no spaces)" })
    .describe("The Twilio account's auth token: stored only encrypted, never returned"),
});
export type TConnectTwilioInput = z.infer<typeof ZConnectTwilioInput>;

export const ZTwilioConnection = z.object({
  accountSid: z.string(),
  friendlyName: z.string().nullable(),
  connectedAt: ZTimestamp,
});
export const ZTwilioConnectionOutput = z.object({ twilioConnection: ZTwilioConnection });
export const ZDisconnectTwilioOutput = z.object({ disconnected: z.literal(true) });

export const ZTwilioNumber = z.object({
  sid: z.string().describe("Twilio's `PN…` sid"),
  phoneNumber: z.string(),
  friendlyName: z.string(),
  voiceUrl: z.string().nullable(),
  statusCallback: z.string().nullable(),
  registered: z.boolean().describe("Registered to this Routekit account"),
  configured: z.boolean().describe("Its voice URL and status callback both point at this account's engineVoiceUrl"),
});
export const ZListTwilioNumbersOutput = z.object({
  numbers: z.array(ZTwilioNumber),
  subaccounts: z
    .array(z.object({ sid: z.string(), friendlyName: z.string() }))
    .describe("Subaccounts of the connected account: their numbers are not listed here; connect the subaccount that holds them"),
});

