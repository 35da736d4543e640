import { z } from "zod";
import { ZTimestamp } from "./common";
import {
  boundedString,
  E164_MAX_CHARS,
  TWILIO_LIST_MAX_ITEMS,
  TWILIO_NAME_MAX_CHARS,
  TWILIO_SID_CHARS,
  URL_MAX_CHARS,
} from "./bounds";

const ZTwilioAccountSid = z
  .string()
  .trim()
  .max(TWILIO_SID_CHARS)
  .regex(/^AC[0-9a-fA-F]{32}$/, { message: "must be a Twilio Account SID: AC followed by 32 hex characters" })
  .describe("The Twilio Account SID: AC followed by 32 hex characters (Twilio console → Account Info)");

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
  accountSid: boundedString(TWILIO_SID_CHARS).describe("The connected Twilio Account SID"),
  friendlyName: boundedString(TWILIO_NAME_MAX_CHARS)
    .nullable()
    .describe("The Twilio account's name, as Twilio gave it"),
  connectedAt: ZTimestamp.describe("When the credentials were last checked and stored"),
});
export const ZTwilioConnectionOutput = z.object({
  twilioConnection: ZTwilioConnection.describe("The connection; the auth token is never returned"),
});
export const ZDisconnectTwilioOutput = z.object({
  disconnected: z
    .literal(true)
    .describe("The credentials are forgotten; numbers stay registered but lose verified and twilioConfigured"),
});

const ZTwilioNumber = z.object({
  sid: boundedString(TWILIO_SID_CHARS).describe("Twilio's `PN…` sid"),
  phoneNumber: boundedString(E164_MAX_CHARS).describe("The number, E.164"),
  friendlyName: boundedString(TWILIO_NAME_MAX_CHARS).describe("Its name at Twilio"),
  voiceUrl: boundedString(URL_MAX_CHARS).nullable().describe("Where Twilio sends its calls now; null when unset"),
  statusCallback: boundedString(URL_MAX_CHARS)
    .nullable()
    .describe("Where Twilio sends its status callbacks now; null when unset"),
  registered: z.boolean().describe("Registered to this Routekit account"),
  configured: z.boolean().describe("Its voice URL and status callback both point at this account's engineVoiceUrl"),
});
export const ZListTwilioNumbersOutput = z.object({
  numbers: z
    .array(ZTwilioNumber)
    .max(TWILIO_LIST_MAX_ITEMS)
    .describe(`The connected account's incoming numbers across Twilio's pages, the first ${TWILIO_LIST_MAX_ITEMS}`),
  subaccounts: z
    .array(
      z.object({
        sid: boundedString(TWILIO_SID_CHARS).describe("The subaccount's Account SID"),
        friendlyName: boundedString(TWILIO_NAME_MAX_CHARS).describe("Its name at Twilio"),
      }),
    )
    .max(TWILIO_LIST_MAX_ITEMS)
    .describe(
      "Subaccounts of the connected account: their numbers are not listed here; connect the subaccount that holds them",
    ),
});
