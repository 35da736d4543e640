import {
  ZCreateApiKeyInput,
  ZCreatedApiKey,
  ZListApiKeysOutput,
  ZRevokeApiKeyInput,
  ZRevokeApiKeyOutput,
} from "../../schemas/api-keys";
import { createApiKey, listApiKeys, revokeApiKey } from "../../services/api-keys/api-keys";
import { apiProcedure, router } from "../init";

export const apiKeysRouter = router({
  create: apiProcedure
    .input(ZCreateApiKeyInput)
    .output(ZCreatedApiKey)
    .mutation(({ ctx, input }) => createApiKey({ accountId: ctx.auth.account.id, label: input.label })),
  list: apiProcedure.output(ZListApiKeysOutput).query(({ ctx }) => listApiKeys({ accountId: ctx.auth.account.id })),
  revoke: apiProcedure
    .input(ZRevokeApiKeyInput)
    .output(ZRevokeApiKeyOutput)
    .mutation(({ ctx, input }) => revokeApiKey({ accountId: ctx.auth.account.id, id: input.id })),
});
