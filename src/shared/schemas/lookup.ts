import { z } from "zod";
import { boundedString, E164_MAX_CHARS, outputId, twilioField } from "./bounds";

export const ZLookupInput = z.object({
  q: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .describe("A call SID, an event id (evt_…, the webhook-id header), a delivery id, or a phone number"),
});

export const ZLookupOutput = z.object({
  match: z
    .discriminatedUnion("kind", [
      z.object({
        kind: z.literal("call").describe("A call of this account"),
        callSid: twilioField().describe("The call's SID: GET /api/calls/{callSid}"),
      }),
      z.object({
        kind: z.literal("delivery").describe("A delivery of one of this account's events"),
        id: outputId().describe("The delivery's id: GET /api/webhook-deliveries/{id}"),
        eventId: outputId().describe("The event's id (its webhook-id header)"),
      }),
      z.object({
        kind: z.literal("number").describe("One of this account's phone numbers"),
        phoneNumberId: outputId().describe("The number's id: GET /api/phone-numbers/{id}"),
        phoneNumber: boundedString(E164_MAX_CHARS).describe("The number in E.164"),
      }),
    ])
    .nullable()
    .describe(
      "What it names: a call (for a number, the latest call from or to it, unless it is one of your numbers), the first delivery of an event, or one of your numbers; null for nothing",
    ),
});
