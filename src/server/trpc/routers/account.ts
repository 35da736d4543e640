import { ZGetAccountOutput, ZRotateEngineUrlOutput } from "../../schemas/account";
import { ZRotateSecretInput, ZRotateSecretOutput } from "../../schemas/webhook-deliveries";
import { rotateWebhookSecret } from "../../services/accounts/rotate-webhook-secret";
import { getAccount } from "../../services/accounts/get-account";
import { rotateEngineUrl } from "../../services/accounts/rotate-engine-url";
import { apiProcedure, router } from "../init";

export const accountRouter = router({
  get: apiProcedure.output(ZGetAccountOutput).query(({ ctx }) => getAccount({ accountId: ctx.auth.account.id, read: ctx.auth.accountRead })),
  rotateEngineUrl: apiProcedure.output(ZRotateEngineUrlOutput).mutation(({ ctx }) => rotateEngineUrl({ accountId: ctx.auth.account.id })),
  rotateWebhookSecret: apiProcedure
    .input(ZRotateSecretInput)
    .output(ZRotateSecretOutput)
    .mutation(({ ctx, input }) => rotateWebhookSecret({ accountId: ctx.auth.account.id, expirePrevious: input?.expirePrevious })),
});
