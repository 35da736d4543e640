import {
  ZCreateApiKeyInput,
  ZCreatedApiKey,
  ZListApiKeysOutput,
  ZRevokeApiKeyInput,
  ZRevokeApiKeyOutput,
} from "../../../shared/schemas/api-keys";
import { createApiKey, listApiKeys, revokeApiKey } from "../../services/api-keys/api-keys";
import { keyMakerOf } from "../../auth/authenticate";
import { restProcedure } from "../rest-procedure";
import { apiProcedure } from "../init";
import { exampleApiKey, exampleTime } from "./example-values";

export const apiKeys = {
  create: restProcedure(apiProcedure, {
    method: "POST",
    path: "/api/api-keys",
    needs: "write",
    status: 201,
    summary: "Create an API key",
    input: ZCreateApiKeyInput,
    output: ZCreatedApiKey,
    examples: {
      request: { label: "Dashboard reports", scope: "read-only", expiresAt: "2027-06-30T00:00:00Z" },
      response: {
        id: "cmwra6c9f00072c7d0v8a4n1q",
        key: exampleApiKey,
        keyPrefix: exampleApiKey.slice(0, 12),
        label: "Dashboard reports",
        scope: "read-only",
        expiresAt: "2027-06-30T00:00:00.000Z",
        role: "developer",
        createdAt: exampleTime,
      },
    },
  }).mutation(({ ctx, input }) =>
    createApiKey({
      accountId: ctx.auth.account.id,
      maker: keyMakerOf(ctx.auth),
      label: input.label,
      scope: input.scope,
      expiresAt: input.expiresAt,
    }),
  ),
  list: restProcedure(apiProcedure, {
    method: "GET",
    path: "/api/api-keys",
    needs: "read",
    summary: "List API keys not revoked, with their scope and expiry",
    output: ZListApiKeysOutput,
    examples: {
      response: {
        apiKeys: [
          {
            id: "cmwra2uwb00012c7d7x0e5b4k",
            keyPrefix: "rtk_DKFv6bh5",
            label: "Default",
            lastUsedAt: exampleTime,
            scope: "full",
            expiresAt: null,
            role: "owner",
            createdBy: { userId: "cmwra2uwb00002c7d4k9s1f0a", email: "you@example.com" },
            createdAt: exampleTime,
          },
        ],
      },
    },
  }).query(({ ctx }) => listApiKeys({ accountId: ctx.auth.account.id })),
  revoke: restProcedure(apiProcedure, {
    method: "DELETE",
    path: "/api/api-keys/:id",
    needs: "write",
    summary: "Revoke an API key",
    input: ZRevokeApiKeyInput,
    output: ZRevokeApiKeyOutput,
    examples: { response: { revoked: true } },
  }).mutation(({ ctx, input }) => revokeApiKey({ accountId: ctx.auth.account.id, id: input.id })),
};
