import {
  ZCreateApiKeyInput,
  ZCreatedApiKey,
  ZListApiKeysOutput,
  ZRevokeApiKeyInput,
  ZRevokeApiKeyOutput,
} from "../../../shared/schemas/api-keys";
import { createApiKey, listApiKeys, revokeApiKey } from "../../services/api-keys/api-keys";
import { restProcedure } from "../../rest/rest-procedure";
import { apiProcedure } from "../init";

export const apiKeys = {
  create: restProcedure(apiProcedure, {
    method: "POST",
    path: "/api/api-keys",
    needs: "write",
    status: 201,
    summary: "Create an API key",
    input: ZCreateApiKeyInput,
    output: ZCreatedApiKey,
  }).mutation(({ ctx, input }) => createApiKey({ accountId: ctx.auth.account.id, label: input.label })),
  list: restProcedure(apiProcedure, {
    method: "GET",
    path: "/api/api-keys",
    needs: "read",
    summary: "List active API keys",
    output: ZListApiKeysOutput,
  }).query(({ ctx }) => listApiKeys({ accountId: ctx.auth.account.id })),
  revoke: restProcedure(apiProcedure, {
    method: "DELETE",
    path: "/api/api-keys/:id",
    needs: "write",
    summary: "Revoke an API key",
    input: ZRevokeApiKeyInput,
    output: ZRevokeApiKeyOutput,
  }).mutation(({ ctx, input }) => revokeApiKey({ accountId: ctx.auth.account.id, id: input.id })),
};
