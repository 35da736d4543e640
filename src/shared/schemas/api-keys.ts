import { z } from "zod";
import { ZMemberRole } from "./enums";
import { ZId, ZTimestamp } from "./common";
import {
  API_KEY_CHARS,
  API_KEY_LABEL_MAX_CHARS,
  API_KEY_PREFIX_CHARS,
  API_KEYS_MAX_ITEMS,
  boundedString,
  EMAIL_MAX_CHARS,
  ISO_TIME_MAX_CHARS,
  outputId,
} from "./bounds";

const ZKeyPrefix = boundedString(API_KEY_PREFIX_CHARS).describe(
  "The key's first 12 characters (`rtk_` + 8): tells keys apart in listings",
);
const ZLabel = boundedString(API_KEY_LABEL_MAX_CHARS)
  .nullable()
  .describe("Your name for the key; null when none was given");
export const API_KEY_SCOPES = ["full", "read-only"] as const;
const ZScope = z
  .enum(API_KEY_SCOPES)
  .describe("`full`: every route the account may use; `read-only`: GET routes only (anything else is 403 FORBIDDEN)");
const ZExpiresAt = ZTimestamp.nullable().describe("After this the key is refused (401); null: it does not expire");
const ZKeyRole = ZMemberRole.describe(
  "The role the key acts with: its maker's when it was made (docs/decisions.md §18); keys from before teams are `owner`",
);
const ZCreatedBy = z
  .object({ userId: outputId(), email: boundedString(EMAIL_MAX_CHARS).describe("The maker's sign-in address") })
  .nullable()
  .describe("The member who made the key; null when that person's login no longer exists");

export const ZCreateApiKeyInput = z.object({
  label: z
    .string()
    .trim()
    .min(1)
    .max(API_KEY_LABEL_MAX_CHARS)
    .nullish()
    .describe("Your name for the key (1–100 characters), e.g. where it is used"),
  scope: ZScope.default("full"),
  expiresAt: z.iso
    .datetime({ offset: true })
    .max(ISO_TIME_MAX_CHARS)
    .nullish()
    .describe("When the key stops working (ISO 8601, in the future); absent or null: never"),
});
export const ZCreatedApiKey = z
  .object({
    id: outputId(),
    key: boundedString(API_KEY_CHARS).describe("The full key. Returned only in this response."),
    keyPrefix: ZKeyPrefix,
    label: ZLabel,
    scope: ZScope,
    expiresAt: ZExpiresAt,
    role: ZKeyRole,
    createdAt: ZTimestamp,
  })
  .meta({ id: "CreatedApiKey" });
const ZApiKeyListItem = z
  .object({
    id: outputId(),
    keyPrefix: ZKeyPrefix,
    label: ZLabel,
    lastUsedAt: ZTimestamp.nullable().describe(
      "When the key last authenticated a request (written at most once a minute); null if never",
    ),
    scope: ZScope,
    expiresAt: ZExpiresAt,
    role: ZKeyRole,
    createdBy: ZCreatedBy,
    createdAt: ZTimestamp,
  })
  .meta({ id: "ApiKey" });
export const ZListApiKeysOutput = z.object({
  apiKeys: z
    .array(ZApiKeyListItem)
    .max(API_KEYS_MAX_ITEMS)
    .describe("Keys not revoked, expired ones included (with their expiresAt)"),
});
export const ZRevokeApiKeyInput = z.object({ id: ZId.describe("The key's id, from GET /api/api-keys") });
export const ZRevokeApiKeyOutput = z.object({
  revoked: z.literal(true).describe("The key stops working on the next request, on every instance"),
});
