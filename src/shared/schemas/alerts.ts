import { z } from "zod";
import { queryInteger, ZTimestamp } from "./common";
import {
  boundedRecord,
  boundedString,
  CURSOR_MAX_CHARS,
  outputId,
  outputMessage,
  outputUrl,
  PAGE_MAX_ITEMS,
} from "./bounds";

/**
 * docs/decisions.md §16, §22: the alert events. Each is also stored (GET /api/alerts) and mailed to the
 * account's address unless switched off (GET/PUT /api/account/alert-settings).
 */
export const ALERT_TYPES = [
  "alert.endpoint_failing",
  "alert.endpoint_recovered",
  "alert.delivery_exhausted",
  "alert.fallback_rate",
  "alert.fallback_rate_recovered",
  "alert.twilio_credentials_rejected",
  "alert.number_unconfigured",
  "alert.payment_failed",
] as const;
export type AlertType = (typeof ALERT_TYPES)[number];

/** The alerts that stay open until their condition clears, and the recovery each announces then. */
export const RECOVERY_OF = {
  "alert.endpoint_failing": "alert.endpoint_recovered",
  "alert.fallback_rate": "alert.fallback_rate_recovered",
} as const satisfies Partial<Record<AlertType, AlertType>>;

const ALERT_SUBJECT_TYPES = ["endpoint", "number", "account"] as const;
export type AlertSubjectType = (typeof ALERT_SUBJECT_TYPES)[number];

const ZAlertSubject = z
  .object({
    type: z
      .enum(ALERT_SUBJECT_TYPES)
      .describe("endpoint: a destination of events (an account endpoint, or a number's URL); number; account"),
    id: outputId().describe(
      "The endpoint's, number's or account's id (a number's URL has no id of its own: its number's id)",
    ),
    url: outputUrl().optional().describe("The destination's URL, for an endpoint subject"),
  })
  .describe("What the alert is about");

const ZAlertData = z
  .object({
    kind: z.enum(ALERT_TYPES).describe("The alert type again (the envelope's `type`)"),
    subject: ZAlertSubject,
    since: ZTimestamp.describe("When the condition began (for a recovery: when it cleared)"),
    details: boundedRecord().describe(
      "What was seen: counts, the last status code or error, the call SIDs … (varies by kind)",
    ),
    howToFix: outputMessage().describe("What to do about it, in a sentence or two"),
    test: z
      .boolean()
      .optional()
      .describe("true only on sample events from POST /api/webhook-deliveries/test; absent on real alerts"),
  })
  .describe("An alert (docs/decisions.md §16)");
export type AlertData = z.infer<typeof ZAlertData>;

export const ZAlertEventEnvelope = z.object({
  id: outputId().describe("evt_…; the webhook-id header; the same on every retry"),
  createdAt: ZTimestamp.describe("When the event happened"),
  type: z
    .enum(ALERT_TYPES)
    .describe("An alert: sent within 60 s of its condition, at most once per kind and subject per hour"),
  data: ZAlertData,
});

export const ALERT_DESCRIPTIONS: Record<AlertType, string> = {
  "alert.endpoint_failing":
    "A destination's deliveries have failed 3 times in a row (it is backed off) or for 5 minutes. Never sent to that destination",
  "alert.endpoint_recovered": "A destination of an endpoint_failing alert answered with a 2xx again",
  "alert.delivery_exhausted": "A delivery gave up after its last attempt; it can be redelivered from the delivery log",
  "alert.fallback_rate":
    "3 or more calls on one number were decided by its fallback or the last resort within 5 minutes",
  "alert.fallback_rate_recovered": "A number of a fallback_rate alert had no call decided by a fallback for 5 minutes",
  "alert.twilio_credentials_rejected": "Twilio answered 20003 (authentication failed) to the account's connection",
  "alert.number_unconfigured":
    "A verified number's voice URL at Twilio no longer points at Routekit (checked at most hourly)",
  "alert.payment_failed": "A payment of the subscription failed",
};

const ZAlertEmailSwitch = (type: AlertType) =>
  z.boolean().describe(`Whether ${type} is emailed: ${ALERT_DESCRIPTIONS[type]}`);

export const ZAlert = z
  .object({
    id: outputId().describe("The alert's id"),
    type: z.enum(ALERT_TYPES).describe("The alert type (as the event's `type`)"),
    subject: ZAlertSubject,
    since: ZTimestamp.describe("When the condition began (for a recovery: when it cleared)"),
    details: boundedRecord().describe(
      "What was seen: counts, the last status code or error, the call SIDs … (varies by kind)",
    ),
    howToFix: outputMessage().describe("What to do about it, in a sentence or two"),
    eventId: outputId().describe("The id of the alert event sent to subscribed endpoints"),
    resolvedAt: ZTimestamp.nullable().describe(
      "For endpoint_failing and fallback_rate: when the recovery was announced (null while open)",
    ),
    createdAt: ZTimestamp.describe("When it was raised"),
  })
  .meta({ id: "Alert" })
  .describe("An alert raised for the account");

export const ZListAlertsInput = z.object({
  limit: queryInteger({ min: 1, max: PAGE_MAX_ITEMS }).default(50).describe("Page size, 1–100 (default 50)"),
  cursor: z.string().max(CURSOR_MAX_CHARS).optional().describe("nextCursor of the previous page; opaque"),
});
export const ZListAlertsOutput = z.object({
  alerts: z.array(ZAlert).max(PAGE_MAX_ITEMS).describe("The last 30 days, newest first"),
  nextCursor: boundedString(CURSOR_MAX_CHARS)
    .nullable()
    .describe("Pass as `cursor` for the next page; null on the last page"),
});

export const ZAlertSettingsOutput = z.object({
  email: z
    .object(Object.fromEntries(ALERT_TYPES.map((t) => [t, ZAlertEmailSwitch(t)])) as Record<AlertType, z.ZodBoolean>)
    .describe("Alert type → whether it is also emailed to the account's address (all true by default)"),
});
export const ZPutAlertSettingsInput = z.object({
  email: z
    .object(
      Object.fromEntries(ALERT_TYPES.map((t) => [t, ZAlertEmailSwitch(t).optional()])) as Record<
        AlertType,
        z.ZodOptional<z.ZodBoolean>
      >,
    )
    .strict()
    .describe("Alert type → whether it is emailed; an omitted type is switched on"),
});
