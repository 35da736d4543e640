import { z } from "zod";
import { ZMemberRole } from "./enums";
import { ZId, ZTimestamp } from "./common";

const ZKeyPrefix = z.string().describe("The key's first 12 characters (`rtk_` + 8): tells keys apart in listings");
const ZLabel = z.string().nullable().describe("Your name for the key; null when none was given");
export const API_KEY_SCOPES = ["full", "read-only"] as const;
const ZScope = z
  .enum(API_KEY_SCOPES)
  .describe("`full`: every route the account may use; `read-only`: GET routes only (anything else is 403 FORBIDDEN)");
const ZExpiresAt = ZTimestamp.nullable().describe("After this the key is refused (401); null: it does not expire");
const ZKeyRole = ZMemberRole.describe(
  "The role the key acts with: its maker's when it was made (docs/decisions.md §18); keys from before teams are `owner`",
);
const ZCreatedBy = z
  .object({ userId: ZId, email: z.string().describe("The maker's sign-in address") })
  .nullable()
  .describe("The member who made the key; null when that person's login no longer exists");

export const ZCreateApiKeyInput = z.object({
  label: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .nullish()
    .describe("Your name for the key (1–100 characters), e.g. where it is used"),
  scope: ZScope.default("full"),
  expiresAt: z.iso
    .datetime({ offset: true })
    .nullish()
    .describe("When the key stops working (ISO 8601, in the future); absent or null: never"),
});
export const ZCreatedApiKey = z.object({
  id: ZId,
  key: z.string().describe("The full key. Returned only in this response."),
  keyPrefix: ZKeyPrefix,
  label: ZLabel,
  scope: ZScope,
  expiresAt: ZExpiresAt,
  role: ZKeyRole,
  createdAt: ZTimestamp,
});
const ZApiKeyListItem = z.object({
  id: ZId,
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
});
export const ZListApiKeysOutput = z.object({
  apiKeys: z.array(ZApiKeyListItem).describe("Keys not revoked, expired ones included (with their expiresAt)"),
});
export const ZRevokeApiKeyInput = z.object({ id: ZId.describe("The key's id, from GET /api/api-keys") });
export const ZRevokeApiKeyOutput = z.object({
  revoked: z.literal(true).describe("The key stops working on the next request, on every instance"),
});
