import { z } from "zod";
import { ZId, ZTimestamp } from "./common";

export const ZCreateApiKeyInput = z.object({
  label: z.string().trim().min(1).max(100).nullish(),
});
export const ZCreatedApiKey = z.object({
  id: ZId,
  key: z.string().describe("The full key. Returned only in this response."),
  keyPrefix: z.string(),
  label: z.string().nullable(),
  createdAt: ZTimestamp,
});
export const ZApiKeyListItem = z.object({
  id: ZId,
  keyPrefix: z.string(),
  label: z.string().nullable(),
  lastUsedAt: ZTimestamp.nullable(),
  createdAt: ZTimestamp,
});
export const ZListApiKeysOutput = z.object({ apiKeys: z.array(ZApiKeyListItem) });
export const ZRevokeApiKeyInput = z.object({ id: ZId });
export const ZRevokeApiKeyOutput = z.object({ revoked: z.literal(true) });
