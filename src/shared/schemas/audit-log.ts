import { z } from "zod";
import { queryInteger, ZQueryTime, ZTimestamp } from "./common";
import {
  API_KEY_PREFIX_CHARS,
  boundedRecord,
  boundedString,
  CURSOR_MAX_CHARS,
  EMAIL_MAX_CHARS,
  ID_MAX_CHARS,
  IP_MAX_CHARS,
  outputId,
  PAGE_MAX_ITEMS,
  twilioField,
} from "./bounds";

/**
 * docs/decisions.md §18: every change to an account the audit log records, `resource.verb`, with what it
 * means. The one home of the names: recordAudit takes only these, the filter of GET /api/audit-log is
 * their enum, and the dashboard shows their descriptions.
 */
export const AUDIT_ACTION_DESCRIPTIONS = {
  "account.closed": "The account was closed",
  "account.webhook_secret_rotated": "The account's webhook signing secret was rotated (the old one signs 24 hours)",
  "account.webhook_secret_previous_expired": "The account's previous webhook secret was retired early",
  "account.engine_url_rotated": "A new engine URL was issued (the old one works 24 hours)",
  "account.limits_changed": "The spend and volume guardrails were replaced",
  "account.alert_settings_changed": "Which alert types are emailed was changed",
  "account.two_factor_required": "Two-factor sign-in was required, or no longer required, of every member",
  "api_key.created": "An API key was created",
  "api_key.revoked": "An API key was revoked",
  "member.role_changed": "A member's role was changed",
  "member.removed": "A member was removed from the account, or left it",
  "member.joined": "Someone joined the account by accepting an invitation",
  "invitation.created": "An invitation was mailed",
  "invitation.revoked": "An invitation was withdrawn before it was accepted",
  "user.two_factor_enabled": "A member turned two-factor sign-in on",
  "user.two_factor_disabled": "A member turned two-factor sign-in off",
  "user.recovery_codes_regenerated": "A member replaced their two-factor recovery codes",
  "phone_number.created": "A phone number was registered",
  "phone_number.updated": "A phone number's URLs, answer policy, cap or Twilio set-up were changed",
  "phone_number.deleted": "A phone number was released",
  "webhook_endpoint.created": "A webhook endpoint was added",
  "webhook_endpoint.updated": "A webhook endpoint's URL, event types, description or switch was changed",
  "webhook_endpoint.deleted": "A webhook endpoint was deleted",
  "webhook_endpoint.secret_rotated": "A webhook endpoint's signing secret was rotated (the old one signs 24 hours)",
  "webhook_endpoint.secret_previous_expired": "A webhook endpoint's previous secret was retired early",
  "twilio_connection.set": "A Twilio account was connected (or its credentials replaced)",
  "twilio_connection.removed": "The Twilio account was disconnected",
  "billing.checkout_link_issued": "A checkout link was issued",
  "billing.portal_link_issued": "A billing portal link was issued",
  "call.hung_up": "A live call was hung up through the API",
  "call.redirected": "A live call was given new TwiML or actions",
  "call.transfer_started":
    "A live call was sent to another number or SIP address (call.transferred or call.transfer_failed follows)",
  "call.recording_started": "Recording of a live call was started",
  "call.recording_paused": "Recording of a live call was paused",
  "call.recording_resumed": "Recording of a live call was resumed",
  "call.recording_stopped": "Recording of a live call was stopped",
  "webhook_delivery.retried": "A delivery was sent again",
  "webhook_delivery.replayed": "Deliveries matching a status and a time were queued again",
} as const satisfies Record<string, string>;

export type AuditAction = keyof typeof AUDIT_ACTION_DESCRIPTIONS;
export const AUDIT_ACTIONS = Object.keys(AUDIT_ACTION_DESCRIPTIONS) as [AuditAction, ...AuditAction[]];

/** The reference's text for the action, every value with its meaning. */
const ACTION_LIST = Object.entries(AUDIT_ACTION_DESCRIPTIONS)
  .map(([action, meaning]) => `- \`${action}\`: ${meaning}`)
  .join("\n");

const AUDIT_ACTOR_TYPES = ["member", "api_key", "system"] as const;

/** What an entry is about (its `target.type`), so a filter can ask for every change to one kind of thing. */
export const AUDIT_TARGET_TYPES = [
  "account",
  "api_key",
  "member",
  "invitation",
  "user",
  "phone_number",
  "webhook_endpoint",
  "twilio_connection",
  "billing",
  "call",
  "webhook_delivery",
] as const;
export type AuditTargetType = (typeof AUDIT_TARGET_TYPES)[number];

/** docs/decisions.md §18: entries are kept 13 months, then deleted by the audit-log-prune job. */
export const AUDIT_LOG_KEPT_MONTHS = 13;

export const ZListAuditLogInput = z.object({
  action: z.enum(AUDIT_ACTIONS).optional().describe("Only entries of this action (`resource.verb`)"),
  actor: z
    .string()
    .trim()
    .min(1)
    .max(64)
    .optional()
    .describe("Only changes made by this member (their user id) or this API key (its keyPrefix, `rtk_…`)"),
  targetType: z.enum(AUDIT_TARGET_TYPES).optional().describe("Only entries about this kind of thing"),
  targetId: z
    .string()
    .trim()
    .min(1)
    .max(ID_MAX_CHARS)
    .optional()
    .describe("Only entries about this thing (its id or call SID)"),
  since: ZQueryTime.optional().describe("Entries made at or after this time"),
  until: ZQueryTime.optional().describe("Entries made before this time"),
  limit: queryInteger({ min: 1, max: 100 }).default(50).describe("Page size, 1–100 (default 50)"),
  cursor: z.string().max(CURSOR_MAX_CHARS).optional().describe("nextCursor of the previous page; opaque"),
});
export type TListAuditLogInput = z.infer<typeof ZListAuditLogInput>;

const ZAuditActor = z
  .object({
    type: z
      .enum(AUDIT_ACTOR_TYPES)
      .describe("member: a signed-in person; api_key: a request made with a key; system: Routekit itself"),
    userId: outputId().nullable().describe("The member's user id (member only; null otherwise)"),
    email: boundedString(EMAIL_MAX_CHARS)
      .nullable()
      .describe("The member's address when they made the change (member only)"),
    keyPrefix: boundedString(API_KEY_PREFIX_CHARS)
      .nullable()
      .describe("The key's public prefix, never the key (api_key only)"),
  })
  .describe("Who made the change");

const ZAuditLogEntry = z
  .object({
    id: outputId().describe("The entry's id"),
    action: z.enum(AUDIT_ACTIONS).describe(`What was done, \`resource.verb\`:\n\n${ACTION_LIST}`),
    actor: ZAuditActor,
    target: z
      .object({
        type: z.enum(AUDIT_TARGET_TYPES).describe("The kind of thing changed"),
        id: twilioField().nullable().describe("Its id (a call's SID); null where the account itself is meant"),
      })
      .describe("What was changed"),
    details: boundedRecord()
      .nullable()
      .describe("What changed (fields, old and new values); never a secret. Varies by action"),
    ip: boundedString(IP_MAX_CHARS)
      .nullable()
      .describe("The client address of the request that made the change; null for system"),
    createdAt: ZTimestamp.describe("When the change was made"),
  })
  .meta({ id: "AuditLogEntry" })
  .describe("One change to the account");
export type TAuditLogEntry = z.infer<typeof ZAuditLogEntry>;

export const ZListAuditLogOutput = z.object({
  entries: z.array(ZAuditLogEntry).max(PAGE_MAX_ITEMS).describe("Newest first; the last 13 months"),
  nextCursor: boundedString(CURSOR_MAX_CHARS)
    .nullable()
    .describe("Pass as `cursor` for the next page; null on the last page"),
});
